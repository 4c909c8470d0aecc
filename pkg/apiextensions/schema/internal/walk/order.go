package walk

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ForEachField calls f for the fields of m, in sorted order if sorted is
// set (which costs an allocation), until f returns an error.
func ForEachField[E comparable](m map[string]interface{}, sorted bool, f func(name string, v interface{}) E) E {
	var zero E
	if sorted {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if err := f(name, m[name]); err != zero {
				return err
			}
		}
		return zero
	}
	for name, v := range m {
		if err := f(name, v); err != zero {
			return err
		}
	}
	return zero
}

// InStableOrder runs a walk over an object first in map order, which is
// cheap, and, if it reports errors, again in sorted order so that the
// errors do not depend on map iteration.
func InStableOrder(walk func(sorted bool) field.ErrorList) field.ErrorList {
	if errs := walk(false); len(errs) == 0 {
		return nil
	}
	return walk(true)
}
