package apps

import (
	"bytes"
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

var (
	revisionPath = field.NewPath("revision")
	dataPath     = field.NewPath("data")
)

// ValidateControllerRevision validates a ControllerRevision on create: a
// non-negative revision, and data that is a JSON object (the patch a
// controller applies to roll back).
func ValidateControllerRevision(cr *appsv1.ControllerRevision) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&cr.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(cr.Revision, revisionPath)...)
	raw := bytes.TrimSpace(cr.Data.Raw)
	switch {
	case cr.Data.Object == nil && (len(raw) == 0 || bytes.Equal(raw, []byte("null"))):
		allErrs = append(allErrs, field.Required(dataPath, "data is mandatory"))
	case cr.Data.Object == nil && raw[0] != '{':
		allErrs = append(allErrs, field.Required(dataPath, "data must be a valid JSON object"))
	}
	return allErrs
}

// ValidateControllerRevisionUpdate validates an update of a
// ControllerRevision: its data is immutable, its revision number may
// change (controllers renumber a revision they roll back to).
func ValidateControllerRevisionUpdate(newCR, oldCR *appsv1.ControllerRevision) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newCR.ObjectMeta, &oldCR.ObjectMeta, metadataPath)
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(newCR.Revision, revisionPath)...)
	newData, oldData := dataValue(newCR.Data), dataValue(oldCR.Data)
	if !apiequality.Semantic.DeepEqual(newData, oldData) {
		allErrs = append(allErrs, field.Invalid(dataPath, newData, apivalidation.FieldImmutableErrorMsg))
	}
	return allErrs
}

// dataValue is the JSON value of a revision's data, nil when it has none.
func dataValue(data runtime.RawExtension) any {
	raw := data.Raw
	if data.Object != nil {
		var err error
		if raw, err = json.Marshal(data.Object); err != nil {
			return nil
		}
	}
	var value any
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &value) != nil {
		return nil
	}
	return value
}
