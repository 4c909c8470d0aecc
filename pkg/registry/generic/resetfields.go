package generic

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

var (
	_ rest.ResetFieldsProvider = &Store{}
	_ rest.ResetFieldsProvider = &SubresourceREST{}
)

// GetResetFields returns the fields the store's update strategy resets,
// or nil when it resets none.
func (s *Store) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if p, ok := s.UpdateStrategy.(rest.ResetFieldsProvider); ok {
		return p.GetResetFields()
	}
	return nil
}

// GetResetFields returns the fields the subresource's strategy resets.
func (r *SubresourceREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ResetFields is a ResetFieldsProvider's answer for one API version: the
// fields at paths, each a list of field names ("metadata", "labels").
func ResetFields(apiVersion string, paths ...[]string) map[fieldpath.APIVersion]*fieldpath.Set {
	set := fieldpath.NewSet()
	for _, p := range paths {
		elems := make([]any, len(p))
		for i, name := range p {
			elems[i] = name
		}
		set.Insert(fieldpath.MakePathOrDie(elems...))
	}
	return map[fieldpath.APIVersion]*fieldpath.Set{fieldpath.APIVersion(apiVersion): set}
}
