package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

const (
	// SystemPriorityClassPrefix starts the names reserved for the system
	// PriorityClasses.
	SystemPriorityClassPrefix = "system-"
	// HighestUserDefinablePriority is the highest value a PriorityClass
	// other than the system ones may have.
	HighestUserDefinablePriority = int32(1000000000)
	// SystemCriticalPriority is the value of system-cluster-critical;
	// system-node-critical is a thousand more.
	SystemCriticalPriority = 2 * HighestUserDefinablePriority
)

// SystemPriorityClasses are the PriorityClasses kube-apiserver creates at
// start-up and refuses to delete.
func SystemPriorityClasses() []*schedulingv1.PriorityClass {
	return []*schedulingv1.PriorityClass{
		{
			ObjectMeta:  metav1.ObjectMeta{Name: "system-node-critical"},
			Value:       SystemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node.",
		},
		{
			ObjectMeta:  metav1.ObjectMeta{Name: "system-cluster-critical"},
			Value:       SystemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
		},
	}
}

// IsSystemPriorityClass reports whether name is one of the system
// PriorityClasses.
func IsSystemPriorityClass(name string) bool {
	for _, pc := range SystemPriorityClasses() {
		if pc.Name == name {
			return true
		}
	}
	return false
}

// SetDefaultsPriorityClass defaults the preemption policy to
// PreemptLowerPriority.
func SetDefaultsPriorityClass(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		policy := corev1.PreemptLowerPriority
		pc.PreemptionPolicy = &policy
	}
}

// AddDefaults registers the defaulting functions of scheduling.k8s.io/v1
// in scheme.
func AddDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&schedulingv1.PriorityClass{}, func(obj any) { SetDefaultsPriorityClass(obj.(*schedulingv1.PriorityClass)) })
	scheme.AddTypeDefaultingFunc(&schedulingv1.PriorityClassList{}, func(obj any) {
		list := obj.(*schedulingv1.PriorityClassList)
		for i := range list.Items {
			SetDefaultsPriorityClass(&list.Items[i])
		}
	})
	return nil
}

// ValidatePriorityClass validates a PriorityClass on create: names
// starting with "system-" are only the system classes, with their values;
// other classes stay at or below HighestUserDefinablePriority.
func ValidatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&pc.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if strings.HasPrefix(pc.Name, SystemPriorityClassPrefix) {
		if err := checkSystemPriorityClass(pc); err != nil {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with '"+SystemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+err.Error()))
		}
	} else if pc.Value > HighestUserDefinablePriority {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserDefinablePriority)))
	}
	if pc.PreemptionPolicy != nil {
		allErrs = append(allErrs, core.ValidatePreemptionPolicy(*pc.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	return allErrs
}

func checkSystemPriorityClass(pc *schedulingv1.PriorityClass) error {
	for _, spc := range SystemPriorityClasses() {
		if spc.Name != pc.Name {
			continue
		}
		if spc.Value != pc.Value {
			return fmt.Errorf("value of %v PriorityClass must be %v", spc.Name, spc.Value)
		}
		if spc.GlobalDefault != pc.GlobalDefault {
			return fmt.Errorf("globalDefault of %v PriorityClass must be %v", spc.Name, spc.GlobalDefault)
		}
		return nil
	}
	return fmt.Errorf("%v is not a known system priority class", pc.Name)
}

// ValidatePriorityClassUpdate validates an update: the value and the
// preemption policy do not change.
func ValidatePriorityClassUpdate(pc, oldPC *schedulingv1.PriorityClass) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&pc.ObjectMeta, &oldPC.ObjectMeta, field.NewPath("metadata"))
	if pc.Value != oldPC.Value {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(allErrs, apivalidation.ValidateImmutableField(pc.PreemptionPolicy, oldPC.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
}
