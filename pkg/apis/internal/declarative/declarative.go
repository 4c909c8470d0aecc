// Package declarative joins the two runs of kube-apiserver 1.37's
// validation. Upstream validates an object twice: first with its
// hand-written functions, then with the declarative rules generated from
// the `+k8s:` tags of the API types. A hand-written error that a
// declarative rule now covers is dropped when that rule reports the same
// error, and the declarative errors come last. Clients see the order and
// the messages (declarative ones are usually terse: "Required value"), so
// kapi's validation builds both lists and joins them here.
package declarative

import "k8s.io/apimachinery/pkg/util/validation/field"

// Join returns the hand-written errors, less those marked as covered
// (field.Error.MarkCoveredByDeclarative) that a declared error matches by
// type, field and origin, followed by the declared errors.
func Join(written, declared field.ErrorList) field.ErrorList {
	out := make(field.ErrorList, 0, len(written)+len(declared))
	for _, w := range written {
		if w.CoveredByDeclarative && matched(w, declared) {
			continue
		}
		out = append(out, w)
	}
	return append(out, declared...)
}

func matched(w *field.Error, declared field.ErrorList) bool {
	for _, d := range declared {
		if d.Type == w.Type && d.Field == w.Field && d.Origin == w.Origin {
			return true
		}
	}
	return false
}
