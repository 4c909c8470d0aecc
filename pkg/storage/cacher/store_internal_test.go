package cacher

import (
	"testing"

	"k8s.io/apimachinery/pkg/fields"
)

// TestFieldValuesSelectAsASetDoes: the cache's compact field values answer
// every selector as the fields.Set they are made from.
func TestFieldValuesSelectAsASetDoes(t *testing.T) {
	sets := []fields.Set{
		{},
		{"metadata.name": "a"},
		{"metadata.name": "a", "metadata.namespace": "ns", "spec.nodeName": "n1", "status.phase": ""},
	}
	selectors := []string{
		"", "metadata.name=a", "metadata.name!=a", "metadata.namespace=ns,spec.nodeName=n1",
		"spec.nodeName=n2", "status.phase=", "status.phase!=Running", "missing=", "missing!=x",
	}
	for _, set := range sets {
		fv := newFieldValues(set)
		for name, value := range set {
			if got, ok := fv.lookup(name); !ok || got != value {
				t.Errorf("%v: lookup(%q) = %q, %v", set, name, got, ok)
			}
		}
		if _, ok := fv.lookup("zzz"); ok {
			t.Errorf("%v: lookup of a missing field succeeds", set)
		}
		for _, text := range selectors {
			sel, err := fields.ParseSelector(text)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := sel.Matches(fv), sel.Matches(set); got != want {
				t.Errorf("%q on %v: %v, want %v", text, set, got, want)
			}
		}
	}
}
