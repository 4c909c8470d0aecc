package resource

import (
	"fmt"
	"regexp"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

// The hand-written rules of a ResourceSlice's spec, as kube-apiserver 1.37
// runs them before the declarative ones. Rules upstream leaves to the
// declarative run (counter names, attribute value unions, taint effects,
// the counts and uniqueness of counter sets) are not repeated here.

// nodeSelectionFields is the choice of nodes a slice, or a device of a
// slice with per-device node selection, makes.
const nodeSelectionFields = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"

const perDeviceSelection = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"

// qualifiedKeyMax is the longest attribute or capacity name shown whole in
// a field path: a domain, a slash and an identifier.
// maxValidValues bounds the values of a capacity request policy.
const maxValidValues = 10

const qualifiedKeyMax = resourcev1.DeviceMaxDomainLength + 1 + resourcev1.DeviceMaxIDLength

func validateSliceSpec(spec, old *resourcev1.ResourceSliceSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateDriverName(spec.Driver, fldPath.Child("driver"))
	pool := fldPath.Child("pool")
	allErrs = append(allErrs, validatePoolName(spec.Pool.Name, pool.Child("name"))...)
	if spec.Pool.ResourceSliceCount <= 0 {
		allErrs = append(allErrs, field.Invalid(pool.Child("resourceSliceCount"), spec.Pool.ResourceSliceCount, "must be greater than zero"))
	}
	if spec.Pool.Generation < 0 {
		allErrs = append(allErrs, field.Invalid(pool.Child("generation"), spec.Pool.Generation, "must be greater than or equal to zero"))
	}
	if old != nil {
		allErrs = append(allErrs, apivalidation.ValidateImmutableField(spec.Pool.Name, old.Pool.Name, pool.Child("name"))...)
		allErrs = append(allErrs, apivalidation.ValidateImmutableField(spec.Driver, old.Driver, fldPath.Child("driver"))...)
		allErrs = append(allErrs, apivalidation.ValidateImmutableField(spec.NodeName, old.NodeName, fldPath.Child("nodeName"))...)
	}

	var set []string
	if spec.NodeName != nil {
		if *spec.NodeName == "" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeName"), "", "must be either unset or set to a non-empty string"))
		} else {
			set = append(set, "`nodeName`")
			allErrs = append(allErrs, core.ValidateNodeName(*spec.NodeName, fldPath.Child("nodeName"))...)
		}
	}
	if spec.NodeSelector != nil {
		set = append(set, "`nodeSelector`")
		p := fldPath.Child("nodeSelector")
		allErrs = append(allErrs, core.ValidateNodeSelector(spec.NodeSelector, p)...)
		if len(spec.NodeSelector.NodeSelectorTerms) != 1 {
			// One term keeps merging the selectors of slices simple.
			allErrs = append(allErrs, field.Invalid(p.Child("nodeSelectorTerms"), gofields.Value(spec.NodeSelector.NodeSelectorTerms), "must have exactly one node selector term"))
		}
	}
	set, allErrs = trueOnly(spec.AllNodes, "`allNodes`", fldPath.Child("allNodes"), set, allErrs)
	set, allErrs = trueOnly(spec.PerDeviceNodeSelection, "`perDeviceNodeSelection`", fldPath.Child("perDeviceNodeSelection"), set, allErrs)
	switch len(set) {
	case 0:
		allErrs = append(allErrs, field.Required(fldPath, nodeSelectionFields))
	case 1:
	default:
		allErrs = append(allErrs, field.Invalid(fldPath, "{"+strings.Join(set, ", ")+"}", nodeSelectionFields+", but multiple fields are set"))
	}

	if spec.SharedCounters != nil && spec.Devices != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, "", "only one of `sharedCounters` or `devices` is allowed"))
	}

	devices := fldPath.Child("devices")
	maxDevices := resourcev1.ResourceSliceMaxDevices
	if advancedDevices(spec) {
		maxDevices = resourcev1.ResourceSliceMaxDevicesWithAdvancedFeatures
	}
	if n := len(spec.Devices); n > maxDevices {
		allErrs = append(allErrs, field.TooMany(devices, n, maxDevices).WithOrigin("maxItems"))
	} else {
		perDevice := spec.PerDeviceNodeSelection != nil && *spec.PerDeviceNodeSelection
		for i := range spec.Devices {
			d := &spec.Devices[i]
			allErrs = append(allErrs, validateDevice(d, oldDevice(old, d.Name), devices.Index(i), perDevice)...)
		}
		seen := sets.New[string]()
		for i, d := range spec.Devices {
			if seen.Has(d.Name) {
				allErrs = append(allErrs, field.Duplicate(devices.Index(i), d.Name))
			}
			seen.Insert(d.Name)
		}
	}

	// Counter sets: names, presence, count and uniqueness are declarative.
	if len(spec.SharedCounters) <= resourcev1.ResourceSliceMaxCounterSets {
		for i, s := range spec.SharedCounters {
			p := fldPath.Child("sharedCounters").Index(i).Child("counters")
			if n := len(s.Counters); n > resourcev1.ResourceSliceMaxCountersPerCounterSet {
				allErrs = append(allErrs, field.TooMany(p, n, resourcev1.ResourceSliceMaxCountersPerCounterSet))
			}
		}
	}
	return allErrs
}

// trueOnly records a node selection flag that may be unset or true.
func trueOnly(flag *bool, name string, fldPath *field.Path, set []string, allErrs field.ErrorList) ([]string, field.ErrorList) {
	switch {
	case flag == nil:
	case *flag:
		set = append(set, name)
	default:
		allErrs = append(allErrs, field.Invalid(fldPath, false, "must be either unset or set to true"))
	}
	return set, allErrs
}

// advancedDevices says whether a slice uses taints or counters, which
// halve the devices it may hold.
func advancedDevices(spec *resourcev1.ResourceSliceSpec) bool {
	for _, d := range spec.Devices {
		if len(d.Taints) > 0 || len(d.ConsumesCounters) > 0 {
			return true
		}
		for _, a := range d.Attributes {
			if a.BoolValues != nil || a.IntValues != nil || a.StringValues != nil || a.VersionValues != nil {
				return true
			}
		}
	}
	return false
}

func oldDevice(old *resourcev1.ResourceSliceSpec, name string) *resourcev1.Device {
	if old == nil {
		return nil
	}
	for i := range old.Devices {
		if old.Devices[i].Name == name {
			return &old.Devices[i]
		}
	}
	return nil
}

func validateDevice(d, old *resourcev1.Device, fldPath *field.Path, perDevice bool) field.ErrorList {
	allErrs := core.ValidateDNS1123Label(d.Name, fldPath.Child("name"))
	if n := len(d.Attributes) + len(d.Capacity); n > resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
		allErrs = append(allErrs, field.Invalid(fldPath, n, fmt.Sprintf("the total number of attributes and capacities must not exceed %d", resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice)))
	}
	if n := attributeValues(d); n > resourcev1.ResourceSliceMaxAttributeValuesPerDevice {
		allErrs = append(allErrs, field.Invalid(fldPath, n, fmt.Sprintf("the total number of attribute values must not exceed %d", resourcev1.ResourceSliceMaxAttributeValuesPerDevice)))
	}
	attrs := fldPath.Child("attributes")
	for name, a := range d.Attributes {
		allErrs = append(allErrs, validateQualifiedName(string(name), attrs)...)
		allErrs = append(allErrs, validateAttribute(a, attrs.Key(truncateKey(string(name), qualifiedKeyMax)))...)
	}
	// Capacity and taints as stored before are not judged again.
	if old == nil || !apiequality.Semantic.DeepEqual(old.Capacity, d.Capacity) {
		multi := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
		capPath := fldPath.Child("capacity")
		for name, c := range d.Capacity {
			allErrs = append(allErrs, validateQualifiedName(string(name), capPath)...)
			p := capPath.Key(truncateKey(string(name), qualifiedKeyMax)).Child("requestPolicy")
			switch {
			case c.RequestPolicy == nil:
			case !multi:
				allErrs = append(allErrs, field.Forbidden(p, "allowMultipleAllocations must be true"))
			default:
				allErrs = append(allErrs, validateRequestPolicy(c.Value, c.RequestPolicy, p)...)
			}
		}
	}
	if old == nil || !apiequality.Semantic.DeepEqual(old.Taints, d.Taints) {
		taints := fldPath.Child("taints")
		if n := len(d.Taints); n > resourcev1.DeviceTaintsMaxLength {
			allErrs = append(allErrs, field.TooMany(taints, n, resourcev1.DeviceTaintsMaxLength).WithOrigin("maxItems"))
		} else {
			for i, t := range d.Taints {
				allErrs = append(allErrs, validateTaint(t, nil, taints.Index(i))...)
			}
		}
	}
	if len(d.ConsumesCounters) <= resourcev1.ResourceSliceMaxDeviceCounterConsumptionsPerDevice {
		for i, c := range d.ConsumesCounters {
			if n := len(c.Counters); n > resourcev1.ResourceSliceMaxCountersPerDeviceCounterConsumption {
				p := fldPath.Child("consumesCounters").Index(i).Child("counters")
				allErrs = append(allErrs, field.TooMany(p, n, resourcev1.ResourceSliceMaxCountersPerDeviceCounterConsumption))
			}
		}
	}

	switch {
	case perDevice:
		var set []string
		if d.NodeName != nil {
			if *d.NodeName == "" {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeName"), "", "must not be empty"))
			} else {
				set = append(set, "`nodeName`")
				allErrs = append(allErrs, core.ValidateNodeName(*d.NodeName, fldPath.Child("nodeName"))...)
			}
		}
		if d.NodeSelector != nil {
			set = append(set, "`nodeSelector`")
			allErrs = append(allErrs, core.ValidateNodeSelector(d.NodeSelector, fldPath.Child("nodeSelector"))...)
		}
		set, allErrs = trueOnly(d.AllNodes, "`allNodes`", fldPath.Child("allNodes"), set, allErrs)
		switch len(set) {
		case 0:
			allErrs = append(allErrs, field.Required(fldPath, perDeviceSelection))
		case 1:
		default:
			allErrs = append(allErrs, field.Invalid(fldPath, "{"+strings.Join(set, ", ")+"}", perDeviceSelection))
		}
	case d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil:
		allErrs = append(allErrs, field.Invalid(fldPath, nil, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
	}

	allErrs = append(allErrs, validateBindingConditions(d.BindingConditions, d.BindingFailureConditions, fldPath)...)
	return allErrs
}

// attributeValues counts a device's attribute values, each item of a
// list value on its own.
func attributeValues(d *resourcev1.Device) int {
	n := 0
	for _, a := range d.Attributes {
		items := len(a.BoolValues) + len(a.IntValues) + len(a.StringValues) + len(a.VersionValues)
		if items == 0 {
			items = 1
		}
		n += items
	}
	return n
}

// truncateKey shortens a long map key in a field path, keeping its ends.
func truncateKey(key string, limit int) string {
	limit = max(limit, 16)
	if len(key) <= limit {
		return key
	}
	const ellipsis = "..."
	rest := limit - len(ellipsis)
	return key[:(rest+1)/2] + ellipsis + key[len(key)-rest/2:]
}

// semverPattern is semver.org 2.0.0: three numbers, an optional
// pre-release and optional build metadata.
var semverPattern = func() *regexp.Regexp {
	num := `(0|[1-9]\d*)`
	pre := `(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)`
	build := `[0-9a-zA-Z-]+`
	return regexp.MustCompile(`^` + num + `\.` + num + `\.` + num +
		`(-` + pre + `(\.` + pre + `)*)?` + `(\+` + build + `(\.` + build + `)*)?$`)
}()

// validateAttribute checks string and version values; that exactly one
// value is set is declarative.
func validateAttribute(a resourcev1.DeviceAttribute, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if a.StringValue != nil && len(*a.StringValue) > resourcev1.DeviceAttributeMaxValueLength {
		allErrs = append(allErrs, field.TooLong(fldPath.Child("string"), "", resourcev1.DeviceAttributeMaxValueLength))
	}
	if a.VersionValue != nil {
		allErrs = append(allErrs, validateVersion(*a.VersionValue, fldPath.Child("version"))...)
	}
	return allErrs
}

func validateVersion(v string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !semverPattern.MatchString(v) {
		allErrs = append(allErrs, field.Invalid(fldPath, v, "must be a string compatible with semver.org spec 2.0.0"))
	}
	if len(v) > resourcev1.DeviceAttributeMaxValueLength {
		allErrs = append(allErrs, field.TooLong(fldPath, "", resourcev1.DeviceAttributeMaxValueLength))
	}
	return allErrs
}

// validateQualifiedName checks an attribute or capacity name: a C
// identifier, optionally after a driver-like domain and a slash. Errors
// are reported on the map, not the key.
func validateQualifiedName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	parts := strings.Split(name, "/")
	switch len(parts) {
	case 1:
		allErrs = append(allErrs, validateCIdentifier(parts[0], fldPath)...)
	case 2:
		if parts[0] == "" {
			allErrs = append(allErrs, field.Invalid(fldPath, "", "the domain must not be empty"))
		} else {
			allErrs = append(allErrs, validateDriverName(parts[0], fldPath)...)
		}
		if parts[1] == "" {
			allErrs = append(allErrs, field.Invalid(fldPath, "", "the name must not be empty"))
		} else {
			allErrs = append(allErrs, validateCIdentifier(parts[1], fldPath)...)
		}
	}
	// kube-apiserver 1.37 lets names with more slashes pass.
	return allErrs
}

func validateCIdentifier(id string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(id) > resourcev1.DeviceMaxIDLength {
		allErrs = append(allErrs, field.TooLong(fldPath, "", resourcev1.DeviceMaxIDLength))
	}
	for _, msg := range validation.IsCIdentifier(id) {
		allErrs = append(allErrs, field.Invalid(fldPath, id, msg))
	}
	return allErrs
}

// validateTaint checks a device taint; its effect is checked only when
// new or changed, and an unknown or missing effect is declarative.
func validateTaint(t resourcev1.DeviceTaint, old *resourcev1.DeviceTaint, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateLabelName(t.Key, fldPath.Child("key"))
	if t.Value != "" {
		allErrs = append(allErrs, validateLabelValue(t.Value, fldPath.Child("value"))...)
	}
	if old == nil || old.Effect != t.Effect {
		switch {
		case t.Effect == "":
			allErrs = append(allErrs, field.Required(fldPath.Child("effect"), "").MarkCoveredByDeclarative())
		case !taintEffects.Has(t.Effect):
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("effect"), t.Effect, sets.List(taintEffects)).MarkCoveredByDeclarative())
		}
	}
	return allErrs
}

// ---- consumable capacity ---------------------------------------------------

// validateRequestPolicy checks how much of a capacity a request may
// consume: a list of values or a range, with a default among them.
// DRAFractionalCapacityRange is off in 1.37, so ranges step in integers.
func validateRequestPolicy(capacity apiresource.Quantity, policy *resourcev1.CapacityRequestPolicy, fldPath *field.Path) field.ErrorList {
	if len(policy.ValidValues) > 0 && policy.ValidRange != nil {
		return field.ErrorList{field.Forbidden(fldPath, `exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time`)}
	}
	switch {
	case len(policy.ValidValues) > 0:
		if policy.Default == nil {
			return field.ErrorList{field.Required(fldPath.Child("default"), "required when validValues is defined")}
		}
		return validateValidValues(*policy.Default, capacity, policy.ValidValues, fldPath.Child("validValues"))
	case policy.ValidRange != nil:
		if policy.Default == nil {
			return field.ErrorList{field.Required(fldPath.Child("default"), "required when validRange is defined")}
		}
		return validateValidRange(*policy.Default, capacity, *policy.ValidRange, fldPath.Child("validRange"))
	}
	return nil
}

func validateValidValues(def, capacity apiresource.Quantity, values []apiresource.Quantity, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i := 0; i+1 < len(values); i++ {
		if values[i].Cmp(values[i+1]) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i+1), values[i+1].String(), "values must be sorted in ascending order"))
		}
	}
	found := false
	if n := len(values); n > maxValidValues {
		// The options are not looked at, so neither is the default found.
		allErrs = append(allErrs, field.TooMany(fldPath, n, maxValidValues).WithOrigin("maxItems"))
		values = nil
	}
	seen := sets.New[int64]()
	for i, v := range values {
		if v.Cmp(capacity) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v.String(), fmt.Sprintf("option is larger than capacity value: %s", capacity.String())))
		}
		if v.Cmp(def) == 0 {
			found = true
		}
	}
	for i, v := range values {
		if seen.Has(v.Value()) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), fmt.Sprint(v.Value())))
		}
		seen.Insert(v.Value())
	}
	if !found {
		allErrs = append(allErrs, field.Invalid(fldPath, def.String(), "default value is not valid according to the requestPolicy"))
	}
	return allErrs
}

func validateValidRange(def, capacity apiresource.Quantity, r resourcev1.CapacityRequestPolicyRange, fldPath *field.Path) field.ErrorList {
	if r.Min == nil {
		return field.ErrorList{field.Required(fldPath.Child("min"), "required when validRange is defined")}
	}
	var allErrs field.ErrorList
	if r.Min.Cmp(capacity) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("min"), r.Min.String(), fmt.Sprintf("min is larger than capacity value: %s", capacity.String())))
	}
	if def.Cmp(*r.Min) < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("default"), def.String(), fmt.Sprintf("default is less than min: %s", r.Min.String())))
	}
	if r.Max != nil {
		if r.Min.Cmp(*r.Max) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("max"), r.Min.String(), fmt.Sprintf("min is larger than max: %s", r.Max.String())))
		}
		if r.Max.Cmp(capacity) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("max"), r.Max.String(), fmt.Sprintf("max is larger than capacity value: %s", capacity.String())))
		}
		if def.Cmp(*r.Max) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("default"), def.String(), fmt.Sprintf("default is more than max: %s", r.Max.String())))
		}
	}
	if r.Step == nil {
		return allErrs
	}
	step := fldPath.Child("step")
	if r.Step.Sign() <= 0 {
		return append(allErrs, field.Invalid(step, r.Step.String(), "must be greater than zero"))
	}
	oneStep := r.Min.DeepCopy()
	oneStep.Add(*r.Step)
	if oneStep.Cmp(capacity) > 0 {
		allErrs = append(allErrs, field.Invalid(step, r.Step.String(), fmt.Sprintf("one step %s is larger than capacity value: %s", oneStep.String(), capacity.String())))
	}
	// Integer arithmetic needs every bound in [0, MaxInt64].
	unsafe := false
	for _, b := range []struct {
		q    *apiresource.Quantity
		name string
	}{{&def, "default"}, {r.Min, "min"}, {r.Max, "max"}, {r.Step, "step"}} {
		if b.q == nil {
			continue
		}
		switch {
		case b.q.Sign() < 0:
			allErrs = append(allErrs, field.Invalid(fldPath.Child(b.name), b.q.String(), apivalidation.IsNegativeErrorMsg))
			unsafe = true
		case b.q.CmpInt64(1<<63-1) > 0:
			allErrs = append(allErrs, field.Invalid(fldPath.Child(b.name), b.q.String(), "must not be larger than 9223372036854775807"))
			unsafe = true
		}
	}
	if unsafe {
		return allErrs
	}
	allErrs = append(allErrs, validateStep(def, *r.Min, *r.Step, step)...)
	if r.Max != nil {
		allErrs = append(allErrs, validateStep(*r.Max, *r.Min, *r.Step, step)...)
	}
	return allErrs
}

// validateStep checks that value is min plus a whole number of steps.
func validateStep(value, min, step apiresource.Quantity, fldPath *field.Path) field.ErrorList {
	if (value.Value()-min.Value())%step.Value() != 0 {
		return field.ErrorList{field.Invalid(fldPath, value.String(), fmt.Sprintf("value is not a multiple of a given step (%s) from (%s)", step.String(), min.String()))}
	}
	return nil
}
