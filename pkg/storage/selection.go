package storage

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// AttrFunc returns the labels and the selectable fields of an object.
type AttrFunc func(obj runtime.Object) (labels.Set, fields.Set, error)

// SelectionPredicate selects objects by label and field, and carries the
// paging parameters of a list.
type SelectionPredicate struct {
	Label    labels.Selector
	Field    fields.Selector
	GetAttrs AttrFunc
	Limit    int64
	Continue string
}

// Everything matches every object.
var Everything = SelectionPredicate{Label: labels.Everything(), Field: fields.Everything()}

// Empty reports whether the predicate matches everything.
func (p SelectionPredicate) Empty() bool {
	return (p.Label == nil || p.Label.Empty()) && (p.Field == nil || p.Field.Empty())
}

// Matches reports whether obj is selected.
func (p SelectionPredicate) Matches(obj runtime.Object) (bool, error) {
	if p.Empty() {
		return true, nil
	}
	if p.GetAttrs == nil {
		return false, NewError(ErrCodeInvalidObj, "", 0, "selection predicate has no attribute function")
	}
	ls, fs, err := p.GetAttrs(obj)
	if err != nil {
		return false, err
	}
	return p.MatchesAttrs(ls, fs), nil
}

// MatchesAttrs reports whether the given labels and fields are selected.
func (p SelectionPredicate) MatchesAttrs(ls labels.Set, fs fields.Set) bool {
	if p.Label != nil && !p.Label.Matches(ls) {
		return false
	}
	if p.Field != nil && !p.Field.Matches(fs) {
		return false
	}
	return true
}

// MatchesSingle returns the name a field selector pins with
// metadata.name=<name>, if it does, so a list can become a get.
func (p SelectionPredicate) MatchesSingle() (string, bool) {
	if p.Field == nil {
		return "", false
	}
	return p.Field.RequiresExactMatch("metadata.name")
}
