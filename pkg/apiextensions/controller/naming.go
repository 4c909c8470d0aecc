package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
)

// Naming decides which of the names a CRD asks for it gets. Within a
// group, a plural, singular or short name and a kind or list kind belong to
// the first CRD that got it; a CRD asking for a taken name keeps the names
// it had (none, at first) and is told why in NamesAccepted. A CRD is not
// served until its names are accepted.
type Naming struct {
	lister Lister
	write  StatusWriter
	// builtin reports whether a built-in API of the server already serves
	// a resource of that group and name.
	builtin func(group, resource string) bool
	// established is told about every CRD whose names were accepted.
	established func(name string)
	*queue
}

// NewNaming returns the naming controller. builtin may be nil.
func NewNaming(lister Lister, write StatusWriter, builtin func(group, resource string) bool, established func(string), log *slog.Logger) *Naming {
	n := &Naming{lister: lister, write: write, builtin: builtin, established: established}
	n.queue = newQueue("crd-naming", log, n.sync)
	return n
}

// Changed queues a CRD that was added, changed or deleted, and the CRDs of
// its group: a name it gave up may be what another one waits for.
func (n *Naming) Changed(crd *apiextensionsv1.CustomResourceDefinition) {
	n.Add(crd.Name)
	for _, other := range n.lister.ListGroup(crd.Spec.Group) {
		if other.Name != crd.Name {
			n.Add(other.Name)
		}
	}
}

func (n *Naming) sync(ctx context.Context, name string) error {
	crd, ok := n.lister.Get(name)
	if !ok {
		return nil
	}
	names, accepted, established := n.decide(crd)
	if apiequality.Semantic.DeepEqual(crd.Status.AcceptedNames, names) &&
		apiextensions.ConditionsEquivalent(apiextensions.GetCondition(crd, apiextensionsv1.NamesAccepted), &accepted) &&
		apiextensions.ConditionsEquivalent(apiextensions.GetCondition(crd, apiextensionsv1.Established), &established) {
		if accepted.Status == apiextensionsv1.ConditionTrue && n.established != nil {
			n.established(name)
		}
		return nil
	}
	crd = crd.DeepCopy()
	crd.Status.AcceptedNames = names
	apiextensions.SetCondition(crd, accepted)
	apiextensions.SetCondition(crd, established)
	updated, err := n.write(ctx, crd)
	if err != nil {
		return err
	}
	if accepted.Status == apiextensionsv1.ConditionTrue && n.established != nil {
		n.established(updated.Name)
	}
	// Names this CRD released may unblock another of its group.
	for _, other := range n.lister.ListGroup(crd.Spec.Group) {
		if other.Name != crd.Name {
			n.Add(other.Name)
		}
	}
	return nil
}

// decide computes the accepted names of crd and its NamesAccepted and
// Established conditions, as kube-apiserver's naming controller does.
func (n *Naming) decide(crd *apiextensionsv1.CustomResourceDefinition) (apiextensionsv1.CustomResourceDefinitionNames, apiextensionsv1.CustomResourceDefinitionCondition, apiextensionsv1.CustomResourceDefinitionCondition) {
	resources, kinds := n.namesTakenInGroup(crd)
	requested, current := crd.Spec.Names, crd.Status.AcceptedNames
	names := current
	accepted := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	reject := func(reason string, err error) {
		accepted.Status, accepted.Reason, accepted.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}

	if err := freeOrOwn(requested.Plural, current.Plural, resources); err != nil {
		reject("PluralConflict", err)
	} else if n.builtin != nil && requested.Plural != current.Plural && n.builtin(crd.Spec.Group, requested.Plural) {
		reject("PluralConflict", fmt.Errorf("%q is already in use by a built-in resource", requested.Plural))
	} else {
		names.Plural = requested.Plural
	}
	if err := freeOrOwn(requested.Singular, current.Singular, resources); err != nil {
		reject("SingularConflict", err)
	} else {
		names.Singular = requested.Singular
	}
	if !slices.Equal(requested.ShortNames, current.ShortNames) {
		owned := sets.New(current.ShortNames...)
		var errs []error
		for _, s := range requested.ShortNames {
			if !owned.Has(s) && resources.Has(s) {
				errs = append(errs, fmt.Errorf("%q is already in use", s))
			}
		}
		if len(errs) > 0 {
			reject("ShortNamesConflict", aggregate(errs))
		} else {
			names.ShortNames = requested.ShortNames
		}
	}
	if err := freeOrOwn(requested.Kind, current.Kind, kinds); err != nil {
		reject("KindConflict", err)
	} else {
		names.Kind = requested.Kind
	}
	if err := freeOrOwn(requested.ListKind, current.ListKind, kinds); err != nil {
		reject("ListKindConflict", err)
	} else {
		names.ListKind = requested.ListKind
	}
	names.Categories = requested.Categories

	if accepted.Status == apiextensionsv1.ConditionUnknown {
		accepted.Status, accepted.Reason, accepted.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}

	// Established becomes true in the establishing controller, once the
	// accepted names are known to the handlers.
	established := apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
		Reason: "NotAccepted", Message: "not all names are accepted",
	}
	if old := apiextensions.GetCondition(crd, apiextensionsv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextensionsv1.ConditionTrue && accepted.Status == apiextensionsv1.ConditionTrue {
		established = apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse,
			Reason: "Installing", Message: "the initial names have been accepted",
		}
	}
	return names, accepted, established
}

// namesTakenInGroup returns the resource names (plurals, singulars, short
// names) and kinds accepted for the other CRDs of crd's group.
func (n *Naming) namesTakenInGroup(crd *apiextensionsv1.CustomResourceDefinition) (resources, kinds sets.Set[string]) {
	resources, kinds = sets.New[string](), sets.New[string]()
	for _, other := range n.lister.ListGroup(crd.Spec.Group) {
		if other.Name == crd.Name {
			continue
		}
		a := other.Status.AcceptedNames
		resources.Insert(a.Plural, a.Singular)
		resources.Insert(a.ShortNames...)
		kinds.Insert(a.Kind, a.ListKind)
	}
	resources.Delete("")
	kinds.Delete("")
	return resources, kinds
}

// freeOrOwn accepts a requested name the CRD already has or nobody uses.
func freeOrOwn(requested, current string, taken sets.Set[string]) error {
	if requested == current || !taken.Has(requested) {
		return nil
	}
	return fmt.Errorf("%q is already in use", requested)
}

// aggregate joins errors as kube-apiserver's aggregate error prints them.
func aggregate(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	msg := "["
	for i, e := range errs {
		if i > 0 {
			msg += ", "
		}
		msg += e.Error()
	}
	return errors.New(msg + "]")
}
