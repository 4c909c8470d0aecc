package apps

import (
	"bytes"
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
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
// ControllerRevision: its data is immutable, byte for byte as kube-apiserver
// compares it, and its revision number may change (controllers renumber a
// revision they roll back to).
func ValidateControllerRevisionUpdate(newCR, oldCR *appsv1.ControllerRevision) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&newCR.ObjectMeta, &oldCR.ObjectMeta, metadataPath)
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(newCR.Revision, revisionPath)...)
	newData, oldData := rawData(newCR.Data), rawData(oldCR.Data)
	if !bytes.Equal(newData, oldData) {
		var value any
		if newData != nil {
			value = json.RawMessage(newData)
		}
		allErrs = append(allErrs, field.Invalid(dataPath, value, apivalidation.FieldImmutableErrorMsg))
	}
	return allErrs
}

// rawData is the JSON of a revision's data, nil when it has none.
func rawData(data runtime.RawExtension) []byte {
	if data.Object != nil {
		raw, err := json.Marshal(data.Object)
		if err != nil {
			return nil
		}
		return raw
	}
	if len(data.Raw) == 0 {
		return nil
	}
	return data.Raw
}
