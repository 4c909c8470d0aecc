package apiextensions

import (
	"bytes"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/conversion"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// hoisted records which per-version fields kube-apiserver's internal form
// moves to the top level of the spec: a field is hoisted when it is
// semantically equal in every version (including when it is unset in all of
// them). A CRD without versions hoists nothing.
//
// The internal form decides where errors are reported: errors about a
// hoisted field carry the top-level path (spec.validation.openAPIV3Schema...)
// even though the v1 object has no such field.
type hoisted struct {
	schema           bool
	subresources     bool
	columns          bool
	selectableFields bool
}

func hoistedFields(versions []apiextensionsv1.CustomResourceDefinitionVersion) hoisted {
	if len(versions) == 0 {
		return hoisted{}
	}
	h := hoisted{schema: true, subresources: true, columns: true, selectableFields: true}
	first := versions[0]
	for _, v := range versions[1:] {
		h.schema = h.schema && internalEquality.DeepEqual(v.Schema, first.Schema)
		h.subresources = h.subresources && internalEquality.DeepEqual(v.Subresources, first.Subresources)
		h.columns = h.columns && internalEquality.DeepEqual(v.AdditionalPrinterColumns, first.AdditionalPrinterColumns)
		h.selectableFields = h.selectableFields && internalEquality.DeepEqual(v.SelectableFields, first.SelectableFields)
	}
	return h
}

// versionSchema is versions[i].schema as the internal form holds it: nil
// when the schema was hoisted to spec.validation.
func (h hoisted) versionSchema(v *apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.CustomResourceValidation {
	if h.schema {
		return nil
	}
	return v.Schema
}

// topLevelSchema is spec.validation of the internal form.
func (h hoisted) topLevelSchema(versions []apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.CustomResourceValidation {
	if !h.schema {
		return nil
	}
	return versions[0].Schema
}

// versionSelectableFields is versions[i].selectableFields of the internal form.
func (h hoisted) versionSelectableFields(v *apiextensionsv1.CustomResourceDefinitionVersion) []apiextensionsv1.SelectableField {
	if h.selectableFields {
		return nil
	}
	return v.SelectableFields
}

// topLevelSelectableFields is spec.selectableFields of the internal form.
func (h hoisted) topLevelSelectableFields(versions []apiextensionsv1.CustomResourceDefinitionVersion) []apiextensionsv1.SelectableField {
	if !h.selectableFields {
		return nil
	}
	return versions[0].SelectableFields
}

// internalEquality compares v1 values the way kube-apiserver compares their
// internal forms: with apimachinery's semantic equality (nil and empty
// slices and maps are equal), and JSON values (defaults, enums, examples)
// by their decoded content, since the internal form holds them decoded:
// {"a":1, "b":2} equals {"b":2,"a":1}.
var internalEquality = func() conversion.Equalities {
	eq := apiequality.Semantic.Copy()
	if err := eq.AddFunc(func(a, b apiextensionsv1.JSON) bool {
		if bytes.Equal(a.Raw, b.Raw) {
			return true
		}
		av, aErr := decodeJSON(a.Raw)
		bv, bErr := decodeJSON(b.Raw)
		if aErr != nil || bErr != nil {
			return false
		}
		return apiequality.Semantic.DeepEqual(av, bv)
	}); err != nil {
		panic(err)
	}
	return eq
}()

// decodeJSON decodes a JSON value as the internal form holds it: null and
// empty become nil, and whole numbers become int64.
func decodeJSON(raw []byte) (any, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var v any
	if err := utiljson.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}
