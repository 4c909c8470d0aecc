package rest

import "sigs.k8s.io/structured-merge-diff/v6/fieldpath"

// ResetFieldsProvider is implemented by the storage, and the update
// strategies, of endpoints whose writes reset fields to their current
// value: the status on the main resource, the spec (and some metadata)
// on /status. The field manager must not record a writer as the owner of
// fields it could not change, nor report conflicts on them. The sets are
// by the API version of the fields' paths ("apps/v1").
type ResetFieldsProvider interface {
	GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set
}
