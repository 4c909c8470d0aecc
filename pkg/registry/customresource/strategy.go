// Package customresource is the REST storage of the custom resources of
// one CRD, and of their /status and /scale subresources. Objects are
// unstructured; what a CRD says about them (scope, schema, subresources,
// printer columns, selectable fields) comes in a Config.
package customresource

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// Validator checks a custom resource against its CRD's schema (structure,
// value validations, list types, embedded metadata, CEL rules).
type Validator interface {
	// Validate returns the errors of obj; old is the current object on an
	// update (for CEL transition rules), nil on create.
	Validate(ctx context.Context, obj, old *unstructured.Unstructured) field.ErrorList
}

// strategy is the behaviour of custom resources. metadata.generation
// counts changes of everything but the metadata (and the status, when the
// status subresource owns it).
type strategy struct {
	generic.DefaultStrategy
	statusEnabled bool
	validator     Validator
	// apiVersion is the served version, which reset fields are given in.
	apiVersion string
}

// GetResetFields is the status, when the status is a subresource.
func (s strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if !s.statusEnabled {
		return nil
	}
	return generic.ResetFields(s.apiVersion, []string{"status"})
}

func (s strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	u := obj.(*unstructured.Unstructured)
	if s.statusEnabled {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
}

func (s strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	u, oldU := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	if s.statusEnabled {
		if status, ok := oldU.Object["status"]; ok {
			u.Object["status"] = status
		} else {
			delete(u.Object, "status")
		}
	}
	u.SetGeneration(oldU.GetGeneration())
	if !apiequality.Semantic.DeepEqual(withoutMetadata(u.Object), withoutMetadata(oldU.Object)) {
		u.SetGeneration(oldU.GetGeneration() + 1)
	}
}

// withoutMetadata is a shallow copy of a custom resource without its
// metadata, for comparisons.
func withoutMetadata(obj map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		if k != "metadata" {
			out[k] = v
		}
	}
	return out
}

func (s strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	u := obj.(*unstructured.Unstructured)
	errs := apivalidation.ValidateObjectMetaAccessor(u, s.Namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if s.validator != nil {
		errs = append(errs, s.validator.Validate(ctx, u, nil)...)
	}
	return errs
}

func (s strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	u, oldU := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	errs := apivalidation.ValidateObjectMetaAccessor(u, s.Namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateObjectMetaAccessorUpdate(u, oldU, field.NewPath("metadata"))...)
	if s.validator != nil {
		errs = append(errs, s.validator.Validate(ctx, u, oldU)...)
	}
	return errs
}

// statusStrategy writes the status and keeps everything else of the
// current object.
type statusStrategy struct{ strategy }

// GetResetFields is everything /status keeps: the metadata and the spec.
// (Other top-level fields are kept too, but cannot be named in advance.)
func (s statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return generic.ResetFields(s.apiVersion, []string{"metadata"}, []string{"spec"})
}

func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	u, oldU := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	status, hasStatus := u.Object["status"]
	managedFields := u.GetManagedFields()
	// The resourceVersion was checked against the current one already.
	u.Object = oldU.DeepCopy().Object
	u.SetManagedFields(managedFields)
	if hasStatus {
		u.Object["status"] = status
	} else {
		delete(u.Object, "status")
	}
}

func (s statusStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	u, oldU := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	errs := apivalidation.ValidateObjectMetaAccessorUpdate(u, oldU, field.NewPath("metadata"))
	if s.validator != nil {
		errs = append(errs, s.validator.Validate(ctx, u, oldU)...)
	}
	return errs
}
