// Package fielderrors holds what kapi's validation functions do to lists
// of field errors as kube-apiserver does.
package fielderrors

import "k8s.io/apimachinery/pkg/util/validation/field"

// Dedupe drops the repeats of an error (same type, field and detail),
// keeping the first. kube-apiserver checks the metadata of an update both
// in its common checks and in the resource's own, and reports each error
// once.
func Dedupe(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
next:
	for _, e := range errs {
		for _, o := range out {
			if o.Type == e.Type && o.Field == e.Field && o.Detail == e.Detail {
				continue next
			}
		}
		out = append(out, e)
	}
	return out
}
