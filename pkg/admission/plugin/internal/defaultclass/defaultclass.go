// Package defaultclass is how kube-apiserver's plugins pick the default
// of a kind of class (StorageClass, IngressClass) when several are marked
// default: the newest wins, and among equally new ones the first by name.
// Marking a second class default thus takes over from the first, and the
// choice never depends on the order of a cache.
package defaultclass

import (
	"cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Newest returns the newest of classes that isDefault marks default, the
// first by name among equally new ones, and false when none is marked.
func Newest[T metav1.Object](classes []T, isDefault func(T) bool) (T, bool) {
	var best T
	found := false
	for _, c := range classes {
		if !isDefault(c) {
			continue
		}
		if !found || newer(c, best) {
			best, found = c, true
		}
	}
	return best, found
}

// newer says whether a comes before b: created later, or at the same
// time with a name that sorts first.
func newer(a, b metav1.Object) bool {
	ta, tb := a.GetCreationTimestamp().UnixNano(), b.GetCreationTimestamp().UnixNano()
	if ta != tb {
		return ta > tb
	}
	return cmp.Less(a.GetName(), b.GetName())
}
