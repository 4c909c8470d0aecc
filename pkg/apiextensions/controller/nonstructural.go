package controller

import (
	"context"
	"log/slog"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/schemavalidation"
	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
)

// NonStructural keeps the NonStructuralSchema condition of CRDs whose
// schemas are not structural. apiextensions.k8s.io/v1 refuses such
// schemas, but CRDs stored through v1beta1 by an older server may have
// them: the condition tells their owners what to fix.
type NonStructural struct {
	lister Lister
	write  StatusWriter
	*queue
}

// NewNonStructural returns the non-structural schema controller.
func NewNonStructural(lister Lister, write StatusWriter, log *slog.Logger) *NonStructural {
	n := &NonStructural{lister: lister, write: write}
	n.queue = newQueue("crd-nonstructural-schema", log, n.sync)
	return n
}

func (n *NonStructural) sync(ctx context.Context, name string) error {
	crd, ok := n.lister.Get(name)
	if !ok {
		return nil
	}
	want := nonStructuralCondition(crd)
	have := apiextensions.GetCondition(crd, apiextensionsv1.NonStructuralSchema)
	if want == nil && have == nil || apiextensions.ConditionsEquivalent(want, have) {
		return nil
	}
	crd = crd.DeepCopy()
	if want == nil {
		apiextensions.RemoveCondition(crd, apiextensionsv1.NonStructuralSchema)
	} else {
		apiextensions.SetCondition(crd, *want)
	}
	_, err := n.write(ctx, crd)
	return err
}

// nonStructuralCondition is the condition a CRD should have, nil when its
// schemas are all structural.
func nonStructuralCondition(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinitionCondition {
	var errs field.ErrorList
	if crd.Spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(field.NewPath("spec", "preserveUnknownFields"), crd.Spec.PreserveUnknownFields, "must be false"))
	}
	for i, v := range crd.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		path := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
		errs = append(errs, schemavalidation.ValidateStructural(path, v.Schema.OpenAPIV3Schema)...)
	}
	if len(errs) == 0 {
		return nil
	}
	return &apiextensionsv1.CustomResourceDefinitionCondition{
		Type:    apiextensionsv1.NonStructuralSchema,
		Status:  apiextensionsv1.ConditionTrue,
		Reason:  "Violations",
		Message: errs.ToAggregate().Error(),
	}
}
