package node

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

var (
	metadataPath = field.NewPath("metadata")
	handlerPath  = field.NewPath("handler")
)

// ValidateRuntimeClass validates a RuntimeClass on create. As in
// kube-apiserver 1.37, the handler is checked by the declarative rules of
// the type (required, a short name), whose errors come after the others.
func ValidateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	return append(validateRuntimeClass(rc), validateHandler(rc.Handler)...)
}

func validateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	allErrs := apivalidation.ValidateObjectMeta(&rc.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadataPath)
	if rc.Overhead != nil {
		// The pod overhead is validated as the limits of a container.
		allErrs = append(allErrs, core.ValidateResourceLimits(rc.Overhead.PodFixed, field.NewPath("overhead"))...)
	}
	if rc.Scheduling != nil {
		allErrs = append(allErrs, validateScheduling(rc.Scheduling, field.NewPath("scheduling"))...)
	}
	return allErrs
}

// ValidateRuntimeClassUpdate validates an update: the whole class again,
// with a handler that does not change. kube-apiserver 1.37 reports an
// invalid handler first, a changed one after the other errors, and a
// missing one last.
func ValidateRuntimeClassUpdate(newRC, oldRC *nodev1.RuntimeClass) field.ErrorList {
	var allErrs field.ErrorList
	if newRC.Handler != "" {
		allErrs = append(allErrs, validateHandler(newRC.Handler)...)
	}
	allErrs = append(allErrs, validateRuntimeClass(newRC)...)
	allErrs = append(allErrs, apivalidation.ValidateObjectMetaUpdate(&newRC.ObjectMeta, &oldRC.ObjectMeta, metadataPath)...)
	if newRC.Handler != oldRC.Handler {
		// The declarative rule does not show the new value.
		allErrs = append(allErrs, field.Invalid(handlerPath, nil, "field is immutable"))
	}
	if newRC.Handler == "" {
		allErrs = append(allErrs, validateHandler(newRC.Handler)...)
	}
	return allErrs
}

// validateHandler is the declarative rule of the handler: required, and a
// short name (an RFC 1123 label).
func validateHandler(handler string) field.ErrorList {
	switch {
	case handler == "":
		return field.ErrorList{field.Required(handlerPath, "")}
	case len(handler) > validation.DNS1123LabelMaxLength:
		return field.ErrorList{field.Invalid(handlerPath, handler, fmt.Sprintf("must be no more than %d bytes", validation.DNS1123LabelMaxLength))}
	}
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(handler) {
		allErrs = append(allErrs, field.Invalid(handlerPath, handler, msg))
	}
	return allErrs
}

func validateScheduling(s *nodev1.Scheduling, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if s.NodeSelector != nil {
		allErrs = append(allErrs, metavalidation.ValidateLabels(s.NodeSelector, fldPath.Child("nodeSelector"))...)
	}
	tolPath := fldPath.Child("tolerations")
	allErrs = append(allErrs, core.ValidateTolerations(s.Tolerations, tolPath)...)
	// kube-apiserver reports a repeated toleration with the Go field names
	// of its internal type.
	type tolerationKey struct {
		Key               string
		Operator          corev1.TolerationOperator
		Value             string
		Effect            corev1.TaintEffect
		TolerationSeconds *int64
	}
	seen := map[tolerationKey]bool{}
	for i, t := range s.Tolerations {
		k := tolerationKey{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect}
		if seen[k] {
			allErrs = append(allErrs, field.Duplicate(tolPath.Index(i), tolerationKey{t.Key, t.Operator, t.Value, t.Effect, t.TolerationSeconds}))
		}
		seen[k] = true
	}
	return allErrs
}
