package valuevalidation

import (
	"k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/walk"
)

// ValidateListSetsAndMaps checks the invariants of lists marked
// x-kubernetes-list-type set (no two equal items) and map (no two items
// with the same key values, items are objects) anywhere in obj, which sits
// at fldPath. Each repeated item is reported once, at its second
// occurrence, as kube-apiserver does: `Duplicate value: "a"` for sets and
// `Duplicate value: {"name":"a"}` (the key fields) for maps.
func ValidateListSetsAndMaps(fldPath *field.Path, obj interface{}, s *schema.Structural) field.ErrorList {
	m, ok := obj.(map[string]interface{})
	if !ok || s == nil {
		return nil
	}
	return walk.InStableOrder(func(sorted bool) field.ErrorList {
		w := listValidator{root: fldPath, path: walk.NewPath(), sorted: sorted}
		w.validateObject(m, s)
		return w.errs
	})
}

type listValidator struct {
	root   *field.Path
	path   *walk.Path
	sorted bool
	errs   field.ErrorList
}

func (w *listValidator) validateObject(obj map[string]interface{}, s *schema.Structural) {
	if obj == nil {
		return
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walk.ForEachField(obj, w.sorted, func(name string, v interface{}) bool {
			w.path.PushKey(name)
			w.validate(v, s.AdditionalProperties.Schema)
			w.path.Pop()
			return false
		})
	}
	if s.Properties != nil {
		walk.ForEachField(obj, w.sorted, func(name string, v interface{}) bool {
			if prop, found := s.Properties[name]; found {
				w.path.PushField(name)
				w.validate(v, prop)
				w.path.Pop()
			}
			return false
		})
	}
}

func (w *listValidator) validate(x interface{}, s *schema.Structural) {
	switch x := x.(type) {
	case []interface{}:
		w.validateList(x, s)
	case map[string]interface{}:
		w.validateObject(x, s)
	}
}

func (w *listValidator) validateList(list []interface{}, s *schema.Structural) {
	if s.XListType != nil && len(list) > 0 {
		switch *s.XListType {
		case "set":
			if duplicates, err := findDuplicates(list); err != nil {
				w.errs = append(w.errs, field.Invalid(w.path.FieldPath(w.root).Index(err.index), list[err.index], "internal error"))
			} else {
				for _, i := range duplicates {
					w.errs = append(w.errs, field.Duplicate(w.path.FieldPath(w.root).Index(i), list[i]))
				}
			}
		case "map":
			w.errs = append(w.errs, validateListMap(w.path, w.root, list, s.XListMapKeys)...)
		}
	}
	if s.Items != nil {
		for i, item := range list {
			w.path.PushIndex(i)
			w.validate(item, s.Items)
			w.path.Pop()
		}
	}
}

// missingKey stands for an absent key value (or a null item), so that two
// items lacking a key collide with each other but not with an explicit
// null.
type missingKey struct{}

func validateListMap(path *walk.Path, root *field.Path, list []interface{}, keyFields []string) field.ErrorList {
	for i, item := range list {
		if _, ok := item.(map[string]interface{}); item != nil && !ok {
			return field.ErrorList{field.Invalid(path.FieldPath(root).Index(i), item, "must be an object for an array of list-type map")}
		}
	}
	if len(list) <= 1 {
		return nil
	}

	// With one key field the key is the value itself; with several it is
	// the object of the key fields that are present.
	keys := make([]interface{}, 0, len(list))
	for _, item := range list {
		m, _ := item.(map[string]interface{})
		if len(keyFields) == 1 {
			if v, found := m[keyFields[0]]; found {
				keys = append(keys, v)
			} else {
				keys = append(keys, missingKey{})
			}
			continue
		}
		key := make(map[string]interface{}, len(keyFields))
		for _, name := range keyFields {
			if v, found := m[name]; found {
				key[name] = v
			}
		}
		keys = append(keys, key)
	}

	duplicates, err := findDuplicates(keys)
	if err != nil {
		return field.ErrorList{field.Invalid(path.FieldPath(root).Index(err.index), keys[err.index], "internal error")}
	}
	var errs field.ErrorList
	for _, i := range duplicates {
		itemPath := path.FieldPath(root).Index(i)
		switch key := keys[i].(type) {
		case missingKey:
			errs = append(errs, field.Duplicate(itemPath, map[string]interface{}{}))
		case map[string]interface{}:
			errs = append(errs, field.Duplicate(itemPath, key))
		default:
			errs = append(errs, field.Duplicate(itemPath, map[string]interface{}{keyFields[0]: key}))
		}
	}
	return errs
}

// findDuplicates returns the index of the second occurrence of every value
// that occurs more than once. Scalars are compared as Go values (so 1 and
// 1.0 differ, as int64 and float64), objects and lists by their JSON.
func findDuplicates(list []interface{}) ([]int, *unencodable) {
	if len(list) <= 1 {
		return nil, nil
	}
	seenScalars := make(map[interface{}]int, len(list))
	var seenCompounds map[string]int
	var duplicates []int
	for i, x := range list {
		switch x.(type) {
		case map[string]interface{}, []interface{}:
			bs, err := json.Marshal(x)
			if err != nil {
				return nil, &unencodable{index: i}
			}
			if seenCompounds == nil {
				seenCompounds = map[string]int{}
			}
			seenCompounds[string(bs)]++
			if seenCompounds[string(bs)] == 2 {
				duplicates = append(duplicates, i)
			}
		default:
			seenScalars[x]++
			if seenScalars[x] == 2 {
				duplicates = append(duplicates, i)
			}
		}
	}
	return duplicates, nil
}

// unencodable is an item that cannot be compared because it cannot be
// encoded, which unstructured JSON never is.
type unencodable struct {
	index int
}
