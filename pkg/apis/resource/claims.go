package resource

import (
	"encoding/json"
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// The hand-written rules of a claim's devices, as kube-apiserver 1.37 runs
// them before the declarative ones. Where upstream marks a rule as covered
// by a declarative one (the error then comes from the declarative run,
// after the hand-written errors), the rule is left to the declarative run
// here: the generated Validate_ functions of k8s.io/api report it.

// requestRefMessage is the error of a reference to a request the claim
// does not have.
const requestRefMessage = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"

// requestNames maps each request of a claim to the names of its
// subrequests (nil for a request of exactly one kind of device).
type requestNames map[string]sets.Set[string]

func gatherRequestNames(dc *resourcev1.DeviceClaim) requestNames {
	names := requestNames{}
	for _, r := range dc.Requests {
		if len(r.FirstAvailable) == 0 {
			names[r.Name] = nil
			continue
		}
		sub := sets.New[string]()
		for _, s := range r.FirstAvailable {
			sub.Insert(s.Name)
		}
		names[r.Name] = sub
	}
	return names
}

// has says whether ref names a request ("req") or one of its subrequests
// ("req/sub").
func (n requestNames) has(ref string) bool {
	parts := strings.Split(ref, "/")
	if len(parts) > 2 {
		return false
	}
	sub, ok := n[parts[0]]
	if !ok {
		return false
	}
	return len(parts) == 1 || sub.Has(parts[1])
}

// tooMany is upstream's early refusal of an over-long list: the count
// alone is reported, by the declarative maxItems rule, and the items are
// not judged.
func tooMany(n, max int) bool { return max >= 0 && n > max }

func validateDeviceClaim(dc *resourcev1.DeviceClaim, fldPath *field.Path, stored bool) field.ErrorList {
	var allErrs field.ErrorList
	names := gatherRequestNames(dc)
	if !tooMany(len(dc.Requests), resourcev1.DeviceRequestsMaxSize) {
		for i := range dc.Requests {
			allErrs = append(allErrs, validateDeviceRequest(&dc.Requests[i], fldPath.Child("requests").Index(i), stored)...)
		}
	}
	if !tooMany(len(dc.Constraints), resourcev1.DeviceConstraintsMaxSize) {
		for i, c := range dc.Constraints {
			allErrs = append(allErrs, validateDeviceConstraint(c, fldPath.Child("constraints").Index(i), names)...)
		}
	}
	if !tooMany(len(dc.Config), resourcev1.DeviceConfigMaxSize) {
		for i, c := range dc.Config {
			p := fldPath.Child("config").Index(i)
			allErrs = append(allErrs, validateRequestRefs(c.Requests, p.Child("requests"), names)...)
			allErrs = append(allErrs, validateDeviceConfiguration(c.DeviceConfiguration, p, stored)...)
		}
	}
	return allErrs
}

func validateDeviceRequest(r *resourcev1.DeviceRequest, fldPath *field.Path, stored bool) field.ErrorList {
	allErrs := core.ValidateDNS1123Label(r.Name, fldPath.Child("name"))
	hasFirst, hasExactly := len(r.FirstAvailable) > 0, r.Exactly != nil
	switch {
	case !hasFirst && !hasExactly:
		allErrs = append(allErrs, field.Required(fldPath, "exactly one of `exactly` or `firstAvailable` is required"))
	case hasFirst && hasExactly:
		allErrs = append(allErrs, field.Invalid(fldPath, nil, "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"))
	case hasFirst:
		if tooMany(len(r.FirstAvailable), resourcev1.FirstAvailableDeviceRequestMaxSize) {
			break
		}
		for i := range r.FirstAvailable {
			s := &r.FirstAvailable[i]
			p := fldPath.Child("firstAvailable").Index(i)
			allErrs = append(allErrs, core.ValidateDNS1123Label(s.Name, p.Child("name"))...)
			// The device class of a subrequest is judged declaratively.
			allErrs = append(allErrs, validateSelectors(s.Selectors, p.Child("selectors"), stored)...)
			allErrs = append(allErrs, validateAllocationCount(s.AllocationMode, s.Count, p.Child("count"))...)
			allErrs = append(allErrs, validateTolerations(s.Tolerations, p.Child("tolerations"))...)
		}
	default:
		e, p := r.Exactly, fldPath.Child("exactly")
		allErrs = append(allErrs, validateDeviceClassRef(e.DeviceClassName, p.Child("deviceClassName"))...)
		allErrs = append(allErrs, validateSelectors(e.Selectors, p.Child("selectors"), stored)...)
		allErrs = append(allErrs, validateAllocationCount(e.AllocationMode, e.Count, p.Child("count"))...)
		allErrs = append(allErrs, validateTolerations(e.Tolerations, p.Child("tolerations"))...)
	}
	return allErrs
}

// validateAllocationCount checks the count against the allocation mode;
// an unknown mode is reported declaratively.
func validateAllocationCount(mode resourcev1.DeviceAllocationMode, count int64, fldPath *field.Path) field.ErrorList {
	switch mode {
	case resourcev1.DeviceAllocationModeAll:
		if count != 0 {
			return field.ErrorList{field.Invalid(fldPath, count, fmt.Sprintf("must not be specified when allocationMode is '%s'", mode))}
		}
	case resourcev1.DeviceAllocationModeExactCount:
		if count <= 0 {
			return field.ErrorList{field.Invalid(fldPath, count, "must be greater than zero")}
		}
	}
	return nil
}

func validateDeviceClassRef(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return core.ValidateDNS1123Subdomain(name, fldPath)
}

func validateSelectors(selectors []resourcev1.DeviceSelector, fldPath *field.Path, stored bool) field.ErrorList {
	if tooMany(len(selectors), resourcev1.DeviceSelectorsMaxSize) {
		return nil
	}
	var allErrs field.ErrorList
	for i, s := range selectors {
		p := fldPath.Index(i).Child("cel")
		if s.CEL == nil {
			allErrs = append(allErrs, field.Required(p, ""))
			continue
		}
		allErrs = append(allErrs, validateSelectorExpression(s.CEL.Expression, p.Child("expression"), stored)...)
	}
	return allErrs
}

// validateSelectorExpression compiles a selector. One stored before was
// valid then and is not judged again: the environment may have changed.
func validateSelectorExpression(expression string, fldPath *field.Path, stored bool) field.ErrorList {
	if stored {
		return nil
	}
	if len(expression) > resourcev1.CELSelectorExpressionMaxLength {
		return field.ErrorList{field.TooLong(fldPath, "", resourcev1.CELSelectorExpressionMaxLength)}
	}
	cost, err := compileSelector(expression)
	switch {
	case err != nil && err.invalid:
		return field.ErrorList{field.Invalid(fldPath, expression, err.detail)}
	case err != nil:
		return field.ErrorList{field.InternalError(fldPath, fmt.Errorf("%s", err.detail))}
	case cost > resourcev1.CELSelectorExpressionMaxCost:
		return field.ErrorList{field.Forbidden(fldPath, "too complex, exceeds cost limit")}
	}
	return nil
}

func validateDeviceConstraint(c resourcev1.DeviceConstraint, fldPath *field.Path, names requestNames) field.ErrorList {
	allErrs := validateRequestRefs(c.Requests, fldPath.Child("requests"), names)
	// The attribute names are judged declaratively.
	if c.MatchAttribute == nil && c.DistinctAttribute == nil {
		allErrs = append(allErrs, field.Required(fldPath, `exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set`))
	}
	return allErrs
}

// validateRequestRefs checks the requests a constraint or a config names;
// their count and duplicates are judged declaratively.
func validateRequestRefs(refs []string, fldPath *field.Path, names requestNames) field.ErrorList {
	if tooMany(len(refs), resourcev1.DeviceRequestsMaxSize) {
		return nil
	}
	var allErrs field.ErrorList
	for i, ref := range refs {
		allErrs = append(allErrs, validateRequestRef(ref, fldPath.Index(i), names)...)
	}
	return allErrs
}

func validateRequestRef(ref string, fldPath *field.Path, names requestNames) field.ErrorList {
	parts := strings.Split(ref, "/")
	if len(parts) > 2 {
		return field.ErrorList{field.Invalid(fldPath, ref, requestRefMessage)}
	}
	var allErrs field.ErrorList
	for _, part := range parts {
		allErrs = append(allErrs, core.ValidateDNS1123Label(part, fldPath)...)
	}
	if !names.has(ref) {
		allErrs = append(allErrs, field.Invalid(fldPath, ref, requestRefMessage))
	}
	return allErrs
}

func validateDeviceConfiguration(c resourcev1.DeviceConfiguration, fldPath *field.Path, stored bool) field.ErrorList {
	p := fldPath.Child("opaque")
	if c.Opaque == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	// The driver is judged declaratively.
	return validateRawObject(c.Opaque.Parameters, p.Child("parameters"), stored, resourcev1.OpaqueParametersMaxLength)
}

// validateRawObject checks opaque JSON: present, within max bytes (unless
// stored before the limit existed), and an object.
func validateRawObject(raw runtime.RawExtension, fldPath *field.Path, stored bool, max int) field.ErrorList {
	var v any
	switch {
	case len(raw.Raw) == 0:
		return field.ErrorList{field.Required(fldPath, "")}
	case !stored && len(raw.Raw) > max:
		return field.ErrorList{field.TooLong(fldPath, "", max)}
	}
	if err := json.Unmarshal(raw.Raw, &v); err != nil {
		return field.ErrorList{field.Invalid(fldPath, "<value omitted>", fmt.Sprintf("error parsing data as JSON: %v", err))}
	}
	if v == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if _, ok := v.(map[string]any); !ok {
		return field.ErrorList{field.Invalid(fldPath, "<value omitted>", "must be a valid JSON object")}
	}
	return nil
}

// validateTolerations checks what the declarative rules leave: the value
// against the operator. Keys, operators and effects are declarative.
func validateTolerations(tolerations []resourcev1.DeviceToleration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, t := range tolerations {
		p := fldPath.Index(i).Child("value")
		switch t.Operator {
		case resourcev1.DeviceTolerationOpExists:
			if t.Value != "" {
				allErrs = append(allErrs, field.Invalid(p, t.Value, "must be empty for operator `Exists`"))
			}
		case resourcev1.DeviceTolerationOpEqual:
			allErrs = append(allErrs, validateLabelValue(t.Value, p)...)
		}
	}
	return allErrs
}

func validateLabelValue(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsValidLabelValue(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// ---- status ---------------------------------------------------------------

// deviceID names one allocated device, shared or not, as kube-apiserver
// prints it in errors.
type deviceID struct {
	Driver, Pool, Device string
	ShareID              string
}

func validateClaimStatus(status, old *resourcev1.ResourceClaimStatus, deleted bool, names requestNames, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	reserved := fldPath.Child("reservedFor")
	// The count and the uniqueness of the consumers are declarative.
	if !tooMany(len(status.ReservedFor), resourcev1.ResourceClaimReservedForMaxSize) {
		for i, ref := range status.ReservedFor {
			p := reserved.Index(i)
			if ref.Resource == "" {
				allErrs = append(allErrs, field.Required(p.Child("resource"), ""))
			}
			if ref.Name == "" {
				allErrs = append(allErrs, field.Required(p.Child("name"), ""))
			}
			if ref.UID == "" {
				allErrs = append(allErrs, field.Required(p.Child("uid"), ""))
			}
		}
	}

	allocated := sets.New[deviceID]()
	if status.Allocation != nil {
		for _, r := range status.Allocation.Devices.Results {
			id := deviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}
			if r.ShareID != nil {
				id.ShareID = string(*r.ShareID)
			}
			allocated.Insert(id)
		}
	}
	for i, d := range status.Devices {
		allErrs = append(allErrs, validateDeviceStatus(d, fldPath.Child("devices").Index(i), allocated)...)
	}

	if len(status.ReservedFor) > 0 {
		if status.Allocation == nil {
			allErrs = append(allErrs, field.Forbidden(reserved, "may not be specified when `allocated` is not set"))
		} else if deleted {
			before := sets.New(old.ReservedFor...)
			for _, ref := range status.ReservedFor {
				if !before.Has(ref) {
					allErrs = append(allErrs, field.Forbidden(reserved, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
					break
				}
			}
		}
	}

	// An allocation, once made, does not change: that is judged
	// declaratively. A new one is judged whole.
	if status.Allocation != nil && old.Allocation == nil {
		allErrs = append(allErrs, validateAllocation(status.Allocation, fldPath.Child("allocation"), names)...)
	}
	return allErrs
}

func validateAllocation(a *resourcev1.AllocationResult, fldPath *field.Path, names requestNames) field.ErrorList {
	var allErrs field.ErrorList
	devices := fldPath.Child("devices")
	if !tooMany(len(a.Devices.Results), resourcev1.AllocationResultsMaxSize) {
		for i, r := range a.Devices.Results {
			p := devices.Child("results").Index(i)
			allErrs = append(allErrs, validateRequestRef(r.Request, p.Child("request"), names)...)
			// Driver, pool and share ID are declarative.
			allErrs = append(allErrs, core.ValidateDNS1123Label(r.Device, p.Child("device"))...)
			allErrs = append(allErrs, validateBindingConditions(r.BindingConditions, r.BindingFailureConditions, p)...)
			allErrs = append(allErrs, validateTolerations(r.Tolerations, p.Child("tolerations"))...)
		}
	}
	if !tooMany(len(a.Devices.Config), 2*resourcev1.DeviceConfigMaxSize) {
		for i, c := range a.Devices.Config {
			p := devices.Child("config").Index(i)
			// The source is declarative.
			allErrs = append(allErrs, validateRequestRefs(c.Requests, p.Child("requests"), names)...)
			allErrs = append(allErrs, validateDeviceConfiguration(c.DeviceConfiguration, p, false)...)
		}
	}
	if a.NodeSelector != nil {
		allErrs = append(allErrs, core.ValidateNodeSelector(a.NodeSelector, fldPath.Child("nodeSelector"))...)
	}
	return allErrs
}

func validateBindingConditions(conditions, failures []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	condPath, failPath := fldPath.Child("bindingConditions"), fldPath.Child("bindingFailureConditions")
	if !tooMany(len(conditions), resourcev1.BindingConditionsMaxSize) {
		for i, c := range conditions {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(c, condPath.Index(i))...)
		}
	}
	if !tooMany(len(failures), resourcev1.BindingFailureConditionsMaxSize) {
		for i, c := range failures {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(c, failPath.Index(i))...)
		}
	}
	seen := sets.New[string]()
	for i, c := range conditions {
		if seen.Has(c) {
			allErrs = append(allErrs, field.Duplicate(condPath.Index(i), c))
		}
		seen.Insert(c)
	}
	seenFailures := sets.New[string]()
	for i, c := range failures {
		if seenFailures.Has(c) {
			allErrs = append(allErrs, field.Duplicate(failPath.Index(i), c))
		}
		seenFailures.Insert(c)
		if seen.Has(c) {
			allErrs = append(allErrs, field.Invalid(failPath.Index(i), c, "bindingFailureConditions must not overlap with bindingConditions"))
		}
	}
	if len(conditions) == 0 && len(failures) > 0 {
		allErrs = append(allErrs, field.Invalid(condPath, conditions, "bindingConditions are required to use bindingFailureConditions"))
	}
	if len(failures) == 0 && len(conditions) > 0 {
		allErrs = append(allErrs, field.Invalid(failPath, failures, "bindingFailureConditions are required to use bindingConditions"))
	}
	return allErrs
}

func validateDeviceStatus(d resourcev1.AllocatedDeviceStatus, fldPath *field.Path, allocated sets.Set[deviceID]) field.ErrorList {
	allErrs := validateDriverName(d.Driver, fldPath.Child("driver"))
	allErrs = append(allErrs, validatePoolName(d.Pool, fldPath.Child("pool"))...)
	allErrs = append(allErrs, core.ValidateDNS1123Label(d.Device, fldPath.Child("device"))...)
	id := deviceID{Driver: d.Driver, Pool: d.Pool, Device: d.Device}
	if d.ShareID != nil {
		id.ShareID = *d.ShareID
	}
	if !allocated.Has(id) {
		allErrs = append(allErrs, field.Invalid(fldPath, id, "must be an allocated device in the claim"))
	}
	conditions := fldPath.Child("conditions")
	if n := len(d.Conditions); n > resourcev1.AllocatedDeviceStatusMaxConditions {
		allErrs = append(allErrs, field.TooMany(conditions, n, resourcev1.AllocatedDeviceStatusMaxConditions))
	}
	allErrs = append(allErrs, metav1validation.ValidateConditions(d.Conditions, conditions)...)
	if d.Data != nil && len(d.Data.Raw) > 0 {
		allErrs = append(allErrs, validateRawObject(*d.Data, fldPath.Child("data"), false, resourcev1.AllocatedDeviceStatusDataMaxLength)...)
	}
	if n := d.NetworkData; n != nil {
		// The lengths, the count and the uniqueness of the addresses are
		// declarative.
		ips := fldPath.Child("networkData", "ips")
		if !tooMany(len(n.IPs), resourcev1.NetworkDeviceDataMaxIPs) {
			for i, ip := range n.IPs {
				allErrs = append(allErrs, validation.IsValidInterfaceAddress(ips.Index(i), ip)...)
			}
		}
	}
	return allErrs
}
