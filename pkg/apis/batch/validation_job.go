package batch

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
	"github.com/kapi-dev/kapi/pkg/apis/internal/gofields"
)

// Limits of a Job's spec, as kube-apiserver 1.37 has them.
const (
	// maxParallelismForIndexedJob caps the length of
	// status.completedIndexes.
	maxParallelismForIndexedJob = 100_000
	// maxFailedIndexesForIndexedJob caps the length of
	// status.failedIndexes.
	maxFailedIndexesForIndexedJob           = 100_000
	completionsSoftLimit                    = 100_000
	parallelismLimitForHighCompletions      = 10_000
	maxFailedIndexesLimitForHighCompletions = 10_000

	maxPodFailurePolicyRules                   = 20
	maxPodFailurePolicyOnExitCodesValues       = 255
	maxPodFailurePolicyOnPodConditionsPatterns = 20
	maxManagedByLength                         = 63
	maxSuccessPolicySucceededIndexesLength     = 64 * 1024
	maxSuccessPolicyRules                      = 20
)

// The labels the server puts on a Job's pod template when it generates
// the selector, legacy and prefixed.
const (
	legacyControllerUIDLabel = "controller-uid"
	legacyJobNameLabel       = "job-name"
	controllerUIDLabel       = batchv1.ControllerUidLabel
	jobNameLabel             = batchv1.JobNameLabel
)

var (
	metadataPath = field.NewPath("metadata")
	specPath     = field.NewPath("spec")
	statusPath   = field.NewPath("status")

	// Valid values, in the order kube-apiserver lists them.
	podFailurePolicyActions = []batchv1.PodFailurePolicyAction{
		batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailIndex,
		batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore,
	}
	onExitCodesOperators   = []batchv1.PodFailurePolicyOnExitCodesOperator{batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn}
	onPodConditionStatuses = []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue, corev1.ConditionUnknown}
	podReplacementPolicies = []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed}
)

// JobValidationOptions are the rules that depend on the Job being
// updated.
type JobValidationOptions struct {
	// AllowInvalidLabelValueInSelector ratchets a selector stored before
	// its label values were checked.
	AllowInvalidLabelValueInSelector bool
	// RequirePrefixedLabels requires the batch.kubernetes.io labels of a
	// generated selector, besides the legacy ones.
	RequirePrefixedLabels bool
	// AllowMutablePodTemplate lets the pod template of a suspended Job that
	// has no active pods (never started, or suspended since) change its
	// scheduling directives and container resources.
	AllowMutablePodTemplate bool
	// PodOptions are those of the old pod template on an update.
	PodOptions core.PodValidationOptions
}

// ValidateJob validates a Job on create.
func ValidateJob(job *batchv1.Job) field.ErrorList {
	opts := JobValidationOptions{RequirePrefixedLabels: true}
	allErrs := core.ValidateObjectMeta(&job.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, validateGeneratedSelector(job, opts.RequirePrefixedLabels)...)
	allErrs = append(allErrs, validateJobSpecWithSelector(&job.Spec, specPath, opts)...)
	return append(allErrs, validateNameAllowsCompletions(job)...)
}

// JobUpdateOptions are the options of an update of old: label values of
// its selector ratchet, the prefixed labels are required only of Jobs that
// have them, and the template of a suspended Job without active pods may
// change in part.
func JobUpdateOptions(old *batchv1.Job) JobValidationOptions {
	_, hadJobName := old.Spec.Template.Labels[jobNameLabel]
	_, hadControllerUID := old.Spec.Template.Labels[controllerUIDLabel]
	suspended := old.Spec.Suspend != nil && *old.Spec.Suspend
	notStarted := old.Status.StartTime == nil
	return JobValidationOptions{
		AllowInvalidLabelValueInSelector: metavalidation.LabelSelectorHasInvalidLabelValue(old.Spec.Selector),
		RequirePrefixedLabels:            hadJobName && hadControllerUID,
		AllowMutablePodTemplate: suspended && old.Status.Active == 0 &&
			(notStarted || conditionTrue(old.Status.Conditions, batchv1.JobSuspended)),
		PodOptions: core.PodTemplateValidationOptions(&old.Spec.Template),
	}
}

// ValidateJobUpdate validates an update of a Job: the selector, the
// completion mode, the failure and success policies, the per-index
// backoff limit and managedBy are immutable, completions too unless the
// Job is indexed, and so is the pod template unless the Job is
// suspended.
func ValidateJobUpdate(job, old *batchv1.Job) field.ErrorList {
	opts := JobUpdateOptions(old)
	allErrs := core.ValidateObjectMetaUpdate(&job.ObjectMeta, &old.ObjectMeta, metadataPath)
	spec, oldSpec := &job.Spec, &old.Spec
	allErrs = append(allErrs, validateJobSpecWithSelector(spec, specPath, opts)...)
	allErrs = append(allErrs, validateCompletionsUpdate(spec, oldSpec, specPath.Child("completions"))...)
	allErrs = append(allErrs, immutable(spec.Selector, oldSpec.Selector, specPath.Child("selector"))...)
	allErrs = append(allErrs, validatePodTemplateUpdate(spec, oldSpec, specPath, opts)...)
	allErrs = append(allErrs, immutable(spec.CompletionMode, oldSpec.CompletionMode, specPath.Child("completionMode"))...)
	allErrs = append(allErrs, immutableShown(spec.PodFailurePolicy, oldSpec.PodFailurePolicy, specPath.Child("podFailurePolicy"))...)
	allErrs = append(allErrs, immutable(spec.BackoffLimitPerIndex, oldSpec.BackoffLimitPerIndex, specPath.Child("backoffLimitPerIndex"))...)
	allErrs = append(allErrs, immutable(spec.ManagedBy, oldSpec.ManagedBy, specPath.Child("managedBy"))...)
	allErrs = append(allErrs, immutableShown(spec.SuccessPolicy, oldSpec.SuccessPolicy, specPath.Child("successPolicy"))...)
	return append(allErrs, validateNameAllowsCompletions(job)...)
}

// immutable is apimachinery's ValidateImmutableField with the value shown
// as kube-apiserver shows it.
func immutable[T any](value, old *T, fldPath *field.Path) field.ErrorList {
	if apiequality.Semantic.DeepEqual(value, old) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, value, apivalidation.FieldImmutableErrorMsg)}
}

// immutableShown is immutable for values of internal struct types.
func immutableShown[T any](value, old *T, fldPath *field.Path) field.ErrorList {
	if apiequality.Semantic.DeepEqual(value, old) {
		return nil
	}
	var shown any
	if value != nil {
		shown = gofields.Value(value)
	}
	return field.ErrorList{field.Invalid(fldPath, shown, apivalidation.FieldImmutableErrorMsg)}
}

// validateGeneratedSelector checks, unless the selector is manual, that
// the labels the server generated are still on the pod template and that
// the selector selects them.
func validateGeneratedSelector(job *batchv1.Job, prefixedLabels bool) field.ErrorList {
	if job.Spec.ManualSelector != nil && *job.Spec.ManualSelector || job.Spec.Selector == nil {
		return nil
	}
	var allErrs field.ErrorList
	if job.UID == "" {
		allErrs = append(allErrs, field.Required(metadataPath.Child("uid"), ""))
	}
	templateMeta := specPath.Child("template", "metadata")
	allErrs = append(allErrs, validateHasLabel(&job.Spec.Template.ObjectMeta, templateMeta, legacyControllerUIDLabel, string(job.UID))...)
	allErrs = append(allErrs, validateHasLabel(&job.Spec.Template.ObjectMeta, templateMeta, legacyJobNameLabel, job.Name)...)
	expected := labels.Set{legacyControllerUIDLabel: string(job.UID), legacyJobNameLabel: job.Name}
	if prefixedLabels {
		allErrs = append(allErrs, validateHasLabel(&job.Spec.Template.ObjectMeta, templateMeta, controllerUIDLabel, string(job.UID))...)
		allErrs = append(allErrs, validateHasLabel(&job.Spec.Template.ObjectMeta, templateMeta, jobNameLabel, job.Name)...)
		expected[controllerUIDLabel] = string(job.UID)
		expected[jobNameLabel] = job.Name
	}
	if selector, err := metav1.LabelSelectorAsSelector(job.Spec.Selector); err == nil && !selector.Matches(expected) {
		allErrs = append(allErrs, field.Invalid(specPath.Child("selector"), job.Spec.Selector, "`selector` not auto-generated"))
	}
	return allErrs
}

func validateHasLabel(meta *metav1.ObjectMeta, fldPath *field.Path, key, want string) field.ErrorList {
	got, found := meta.Labels[key]
	if !found {
		return field.ErrorList{field.Required(fldPath.Child("labels").Key(key), fmt.Sprintf("must be '%s'", want))}
	}
	if got != want {
		return field.ErrorList{field.Invalid(fldPath.Child("labels").Key(key), meta.Labels, fmt.Sprintf("must be '%s'", want))}
	}
	return nil
}

// validateNameAllowsCompletions: the pods of an indexed Job are named
// after it with their index appended, and must be DNS labels.
func validateNameAllowsCompletions(job *batchv1.Job) field.ErrorList {
	mode, completions := job.Spec.CompletionMode, job.Spec.Completions
	if mode == nil || *mode != batchv1.IndexedCompletion || completions == nil || *completions <= 0 {
		return nil
	}
	hostname := fmt.Sprintf("%s-%d", job.Name, *completions-1)
	if len(validation.IsDNS1123Label(hostname)) > 0 {
		return field.ErrorList{field.Invalid(metadataPath.Child("name"), job.Name, "will not able to create pod with invalid DNS label: "+hostname)}
	}
	return nil
}

// validateJobSpecWithSelector validates the spec of a Job, which has a
// selector matching its template.
func validateJobSpecWithSelector(spec *batchv1.JobSpec, fldPath *field.Path, opts JobValidationOptions) field.ErrorList {
	allErrs := validateJobSpec(spec, fldPath, opts.PodOptions)
	if spec.Selector == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("selector"), ""))
	} else {
		selectorOpts := metavalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.AllowInvalidLabelValueInSelector}
		allErrs = append(allErrs, metavalidation.ValidateLabelSelector(spec.Selector, selectorOpts, fldPath.Child("selector"))...)
	}
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !selector.Matches(labels.Set(spec.Template.Labels)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	return allErrs
}

// validateJobSpec validates a JobSpec, in a Job or in a CronJob's job
// template.
func validateJobSpec(spec *batchv1.JobSpec, fldPath *field.Path, podOpts core.PodValidationOptions) field.ErrorList {
	var allErrs field.ErrorList
	nonNegative := func(v *int32, name string) {
		if v != nil {
			allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*v), fldPath.Child(name))...)
		}
	}
	nonNegative(spec.Parallelism, "parallelism")
	nonNegative(spec.Completions, "completions")
	if spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(*spec.ActiveDeadlineSeconds, fldPath.Child("activeDeadlineSeconds"))...)
	}
	nonNegative(spec.BackoffLimit, "backoffLimit")
	nonNegative(spec.TTLSecondsAfterFinished, "ttlSecondsAfterFinished")
	nonNegative(spec.BackoffLimitPerIndex, "backoffLimitPerIndex")
	if spec.MaxFailedIndexes != nil {
		nonNegative(spec.MaxFailedIndexes, "maxFailedIndexes")
		if spec.BackoffLimitPerIndex == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if spec.ManagedBy != nil {
		allErrs = append(allErrs, validation.IsDomainPrefixedPath(fldPath.Child("managedBy"), *spec.ManagedBy)...)
		if len(*spec.ManagedBy) > maxManagedByLength {
			allErrs = append(allErrs, field.TooLong(fldPath.Child("managedBy"), "", maxManagedByLength))
		}
	}
	allErrs = append(allErrs, validateCompletionMode(spec, fldPath)...)
	if spec.PodFailurePolicy != nil {
		allErrs = append(allErrs, validatePodFailurePolicy(spec, fldPath.Child("podFailurePolicy"))...)
	}
	if spec.SuccessPolicy != nil {
		if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("successPolicy"), gofields.Value(*spec.SuccessPolicy), "requires indexed completion mode"))
		} else {
			allErrs = append(allErrs, validateSuccessPolicy(spec, fldPath.Child("successPolicy"))...)
		}
	}
	allErrs = append(allErrs, validatePodReplacementPolicy(spec, fldPath.Child("podReplacementPolicy"))...)
	allErrs = append(allErrs, core.ValidatePodTemplateSpecWithOptions(&spec.Template, fldPath.Child("template"), podOpts)...)

	// A pod template's restart policy defaults to Always, so both that and
	// none mean the user gave no valid one.
	restartPath := fldPath.Child("template", "spec", "restartPolicy")
	switch restart := spec.Template.Spec.RestartPolicy; {
	case restart == corev1.RestartPolicyAlways || restart == "":
		allErrs = append(allErrs, field.Required(restartPath, fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)))
	case restart != corev1.RestartPolicyOnFailure && restart != corev1.RestartPolicyNever:
		allErrs = append(allErrs, field.NotSupported(restartPath, restart, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	case spec.PodFailurePolicy != nil && restart != corev1.RestartPolicyNever:
		allErrs = append(allErrs, field.Invalid(restartPath, restart, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever)))
	}
	return allErrs
}

// validateCompletionMode checks the completion mode and the fields that
// depend on it: an indexed Job has a number of completions and bounded
// parallelism and failed indexes; a non-indexed one has no per-index
// limits.
func validateCompletionMode(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	mode := spec.CompletionMode
	if mode != nil {
		if *mode != batchv1.NonIndexedCompletion && *mode != batchv1.IndexedCompletion {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("completionMode"), mode, []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
		}
		if *mode == batchv1.IndexedCompletion {
			if spec.Completions == nil {
				allErrs = append(allErrs, field.Required(fldPath.Child("completions"), fmt.Sprintf("when completion mode is %s", batchv1.IndexedCompletion)))
			}
			if spec.Parallelism != nil && *spec.Parallelism > maxParallelismForIndexedJob {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is %s", maxParallelismForIndexedJob, batchv1.IndexedCompletion)))
			}
			if spec.Completions != nil && spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > *spec.Completions {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "must be less than or equal to completions"))
			}
			if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesForIndexedJob {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesForIndexedJob)))
			}
			if spec.Completions != nil && *spec.Completions > completionsSoftLimit && spec.BackoffLimitPerIndex != nil {
				high := fmt.Sprintf("when completions are above %d and used with backoff limit per index", completionsSoftLimit)
				if spec.MaxFailedIndexes == nil {
					allErrs = append(allErrs, field.Required(fldPath.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit)))
				}
				if spec.Parallelism != nil && *spec.Parallelism > parallelismLimitForHighCompletions {
					allErrs = append(allErrs, field.Invalid(fldPath.Child("parallelism"), *spec.Parallelism, fmt.Sprintf("must be less than or equal to %d %s", parallelismLimitForHighCompletions, high)))
				}
				if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesLimitForHighCompletions {
					allErrs = append(allErrs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d %s", maxFailedIndexesLimitForHighCompletions, high)))
				}
			}
		}
	}
	if mode == nil || *mode == batchv1.NonIndexedCompletion {
		if spec.BackoffLimitPerIndex != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("backoffLimitPerIndex"), *spec.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if spec.MaxFailedIndexes != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	return allErrs
}

func validatePodFailurePolicy(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	rulesPath := fldPath.Child("rules")
	rules := spec.PodFailurePolicy.Rules
	if len(rules) > maxPodFailurePolicyRules {
		allErrs = append(allErrs, field.TooMany(rulesPath, len(rules), maxPodFailurePolicyRules))
	}
	containerNames := map[string]bool{}
	for _, c := range spec.Template.Spec.Containers {
		containerNames[c.Name] = true
	}
	for _, c := range spec.Template.Spec.InitContainers {
		containerNames[c.Name] = true
	}
	for i := range rules {
		allErrs = append(allErrs, validatePodFailurePolicyRule(spec, &rules[i], rulesPath.Index(i), containerNames)...)
	}
	return allErrs
}

func validatePodFailurePolicyRule(spec *batchv1.JobSpec, rule *batchv1.PodFailurePolicyRule, rulePath *field.Path, containerNames map[string]bool) field.ErrorList {
	var allErrs field.ErrorList
	actionPath := rulePath.Child("action")
	switch {
	case rule.Action == "":
		allErrs = append(allErrs, field.Required(actionPath, fmt.Sprintf("valid values: %q", podFailurePolicyActions)))
	case rule.Action == batchv1.PodFailurePolicyActionFailIndex:
		if spec.BackoffLimitPerIndex == nil {
			allErrs = append(allErrs, field.Invalid(actionPath, rule.Action, "requires the backoffLimitPerIndex to be set"))
		}
	case !slices.Contains(podFailurePolicyActions, rule.Action):
		allErrs = append(allErrs, field.NotSupported(actionPath, rule.Action, podFailurePolicyActions))
	}
	if rule.OnExitCodes != nil {
		allErrs = append(allErrs, validateOnExitCodes(rule.OnExitCodes, rulePath.Child("onExitCodes"), containerNames)...)
	}
	if len(rule.OnPodConditions) > 0 {
		allErrs = append(allErrs, validateOnPodConditions(rule.OnPodConditions, rulePath.Child("onPodConditions"))...)
	}
	if rule.OnExitCodes != nil && len(rule.OnPodConditions) > 0 {
		allErrs = append(allErrs, field.Invalid(rulePath, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
	}
	if rule.OnExitCodes == nil && len(rule.OnPodConditions) == 0 {
		allErrs = append(allErrs, field.Invalid(rulePath, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
	}
	return allErrs
}

func validateOnPodConditions(patterns []batchv1.PodFailurePolicyOnPodConditionsPattern, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(patterns) > maxPodFailurePolicyOnPodConditionsPatterns {
		allErrs = append(allErrs, field.TooMany(fldPath, len(patterns), maxPodFailurePolicyOnPodConditionsPatterns))
	}
	for i, pattern := range patterns {
		patternPath := fldPath.Index(i)
		for _, msg := range validation.IsQualifiedName(string(pattern.Type)) {
			allErrs = append(allErrs, field.Invalid(patternPath.Child("type"), string(pattern.Type), msg))
		}
		statusPath := patternPath.Child("status")
		if pattern.Status == "" {
			allErrs = append(allErrs, field.Required(statusPath, fmt.Sprintf("valid values: %q", onPodConditionStatuses)))
		} else if !slices.Contains(onPodConditionStatuses, pattern.Status) {
			allErrs = append(allErrs, field.NotSupported(statusPath, pattern.Status, onPodConditionStatuses))
		}
	}
	return allErrs
}

func validateOnExitCodes(req *batchv1.PodFailurePolicyOnExitCodesRequirement, fldPath *field.Path, containerNames map[string]bool) field.ErrorList {
	var allErrs field.ErrorList
	operatorPath := fldPath.Child("operator")
	if req.Operator == "" {
		allErrs = append(allErrs, field.Required(operatorPath, fmt.Sprintf("valid values: %q", onExitCodesOperators)))
	} else if !slices.Contains(onExitCodesOperators, req.Operator) {
		allErrs = append(allErrs, field.NotSupported(operatorPath, req.Operator, onExitCodesOperators))
	}
	if req.ContainerName != nil && !containerNames[*req.ContainerName] {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("containerName"), *req.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	valuesPath := fldPath.Child("values")
	if len(req.Values) == 0 {
		allErrs = append(allErrs, field.Invalid(valuesPath, req.Values, "at least one value is required"))
	} else if len(req.Values) > maxPodFailurePolicyOnExitCodesValues {
		allErrs = append(allErrs, field.TooMany(valuesPath, len(req.Values), maxPodFailurePolicyOnExitCodesValues))
	}
	ordered := true
	seen := map[int32]bool{}
	for i, value := range req.Values {
		valuePath := valuesPath.Index(i)
		if req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && value == 0 {
			allErrs = append(allErrs, field.Invalid(valuePath, value, "must not be 0 for the In operator"))
		}
		if seen[value] {
			allErrs = append(allErrs, field.Duplicate(valuePath, value))
		}
		seen[value] = true
		if i > 0 && req.Values[i-1] > value {
			ordered = false
		}
	}
	if !ordered {
		allErrs = append(allErrs, field.Invalid(valuesPath, req.Values, "must be ordered"))
	}
	return allErrs
}

func validatePodReplacementPolicy(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	policy := spec.PodReplacementPolicy
	if policy == nil {
		return nil
	}
	if spec.PodFailurePolicy != nil {
		if *policy != batchv1.Failed {
			return field.ErrorList{field.NotSupported(fldPath, *policy, []batchv1.PodReplacementPolicy{batchv1.Failed})}
		}
		return nil
	}
	if !slices.Contains(podReplacementPolicies, *policy) {
		return field.ErrorList{field.NotSupported(fldPath, *policy, podReplacementPolicies)}
	}
	return nil
}

func validateSuccessPolicy(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	rulesPath := fldPath.Child("rules")
	rules := spec.SuccessPolicy.Rules
	if len(rules) == 0 {
		allErrs = append(allErrs, field.Required(rulesPath, "at least one rules must be specified when the successPolicy is specified"))
	}
	if len(rules) > maxSuccessPolicyRules {
		allErrs = append(allErrs, field.TooMany(rulesPath, len(rules), maxSuccessPolicyRules))
	}
	for i := range rules {
		allErrs = append(allErrs, validateSuccessPolicyRule(spec, &rules[i], rulesPath.Index(i))...)
	}
	return allErrs
}

// validateSuccessPolicyRule is called for indexed Jobs only, which have
// completions (or an error saying they must).
func validateSuccessPolicyRule(spec *batchv1.JobSpec, rule *batchv1.SuccessPolicyRule, rulePath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var completions int32
	if spec.Completions != nil {
		completions = *spec.Completions
	}
	if rule.SucceededCount == nil && rule.SucceededIndexes == nil {
		allErrs = append(allErrs, field.Required(rulePath, "at least one of succeededCount or succeededIndexes must be specified"))
	}
	var totalIndexes int32
	if rule.SucceededIndexes != nil {
		indexesPath := rulePath.Child("succeededIndexes")
		if len(*rule.SucceededIndexes) > maxSuccessPolicySucceededIndexesLength {
			allErrs = append(allErrs, field.TooLong(indexesPath, "", maxSuccessPolicySucceededIndexesLength))
		}
		var err error
		if totalIndexes, err = parseIndexes(*rule.SucceededIndexes, completions); err != nil {
			allErrs = append(allErrs, field.Invalid(indexesPath, *rule.SucceededIndexes, "error parsing succeededIndexes: "+err.Error()))
		}
	}
	if rule.SucceededCount != nil {
		countPath := rulePath.Child("succeededCount")
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*rule.SucceededCount), countPath)...)
		if *rule.SucceededCount > completions {
			allErrs = append(allErrs, field.Invalid(countPath, *rule.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
		}
		if rule.SucceededIndexes != nil && *rule.SucceededCount > totalIndexes {
			allErrs = append(allErrs, field.Invalid(countPath, *rule.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", totalIndexes)))
		}
	}
	return allErrs
}

// validateCompletionsUpdate: completions are immutable, except in an
// indexed Job, where they may change together with parallelism.
func validateCompletionsUpdate(spec, old *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		return immutable(spec.Completions, old.Completions, fldPath)
	}
	if apiequality.Semantic.DeepEqual(spec.Completions, old.Completions) || spec.Completions == nil {
		return nil
	}
	if spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
		return field.ErrorList{field.Invalid(fldPath, spec.Completions, "can only be modified in tandem with spec.parallelism")}
	}
	return nil
}

// validatePodTemplateUpdate: the pod template of a running Job is
// immutable. That of a suspended Job without active pods may change its
// labels, annotations, scheduling directives (node affinity, node
// selector, tolerations, scheduling gates) and container resources.
func validatePodTemplateUpdate(spec, old *batchv1.JobSpec, fldPath *field.Path, opts JobValidationOptions) field.ErrorList {
	template, oldTemplate := &spec.Template, &old.Template
	if opts.AllowMutablePodTemplate {
		oldTemplate = old.Template.DeepCopy()
		switch {
		case template.Spec.Affinity == nil && oldTemplate.Spec.Affinity != nil:
			// The affinity may go if node affinity was all it had.
			oldTemplate.Spec.Affinity.NodeAffinity = nil
			if *oldTemplate.Spec.Affinity == (corev1.Affinity{}) {
				oldTemplate.Spec.Affinity = nil
			}
		case template.Spec.Affinity != nil && oldTemplate.Spec.Affinity == nil:
			oldTemplate.Spec.Affinity = &corev1.Affinity{NodeAffinity: template.Spec.Affinity.NodeAffinity}
		case template.Spec.Affinity != nil && oldTemplate.Spec.Affinity != nil:
			oldTemplate.Spec.Affinity.NodeAffinity = template.Spec.Affinity.NodeAffinity
		}
		oldTemplate.Spec.NodeSelector = template.Spec.NodeSelector
		oldTemplate.Spec.Tolerations = template.Spec.Tolerations
		oldTemplate.Annotations = template.Annotations
		oldTemplate.Labels = template.Labels
		oldTemplate.Spec.SchedulingGates = template.Spec.SchedulingGates
		return validateResourceUpdatesOnly(&template.Spec, &oldTemplate.Spec, fldPath.Child("template.spec"))
	}
	return immutableShown(template, oldTemplate, fldPath.Child("template"))
}

// validateResourceUpdatesOnly: the pod spec may differ from the old one
// in its containers' resources only.
func validateResourceUpdatesOnly(spec, old *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	old = old.DeepCopy()
	if len(spec.Containers) == len(old.Containers) {
		for i := range spec.Containers {
			if old.Containers[i].Name == spec.Containers[i].Name {
				old.Containers[i].Resources = spec.Containers[i].Resources
			}
		}
	}
	if len(spec.InitContainers) == len(old.InitContainers) {
		for i := range spec.InitContainers {
			if old.InitContainers[i].Name == spec.InitContainers[i].Name {
				old.InitContainers[i].Resources = spec.InitContainers[i].Resources
			}
		}
	}
	return immutableShown(spec, old, fldPath)
}

// ValidateJobStatusUpdate validates an update of a Job's status. Since
// Jobs may be managed by controllers other than kube's (spec.managedBy),
// the transitions of the status are checked, each rule only when the
// fields it reads changed, so that an update unrelated to a rule a Job
// already breaks goes through.
func ValidateJobStatusUpdate(job, old *batchv1.Job) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&job.ObjectMeta, &old.ObjectMeta, metadataPath)
	opts := statusValidationOptions(job, old)
	allErrs = append(allErrs, validateJobStatus(job, statusPath, opts)...)
	return append(allErrs, validateJobStatusTransition(job, old, opts)...)
}

func conditionTrue(conditions []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	for _, c := range conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func conditionFalse(conditions []batchv1.JobCondition, t batchv1.JobConditionType) bool {
	for _, c := range conditions {
		if c.Type == t && c.Status == corev1.ConditionFalse {
			return true
		}
	}
	return false
}

func isComplete(job *batchv1.Job) bool {
	return conditionTrue(job.Status.Conditions, batchv1.JobComplete)
}
func isFailed(job *batchv1.Job) bool   { return conditionTrue(job.Status.Conditions, batchv1.JobFailed) }
func isFinished(job *batchv1.Job) bool { return isComplete(job) || isFailed(job) }
func isFailureTarget(job *batchv1.Job) bool {
	return conditionTrue(job.Status.Conditions, batchv1.JobFailureTarget)
}
func isSuccessCriteriaMet(job *batchv1.Job) bool {
	return conditionTrue(job.Status.Conditions, batchv1.JobSuccessCriteriaMet)
}

// statusOptions says which rules of a status update apply.
type statusOptions struct {
	rejectDecreasingSucceeded, rejectInvalidCompletedIndexes, rejectInvalidFailedIndexes,
	rejectFailedIndexesOverlappingCompleted, rejectCompletedIndexesForNonIndexed,
	rejectFailedIndexesWithoutBackoffLimitPerIndex, rejectFailedWithoutFailureTarget,
	rejectCompleteWithoutSuccessCriteriaMet, rejectFinishedWithActive, rejectFinishedWithoutStartTime,
	rejectFinishedWithUncounted, rejectStartTimeUpdate, rejectCompletionBeforeStart,
	rejectNotCompleteWithCompletionTime, rejectCompleteWithoutCompletionTime,
	rejectCompleteWithFailed, rejectCompleteWithFailureTarget, rejectMoreReadyThanActive,
	rejectFinishedWithTerminating bool
}

func statusValidationOptions(job, old *batchv1.Job) statusOptions {
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	finishedChanged := isFinished(old) != isFinished(job)
	completeChanged := isComplete(old) != isComplete(job)
	failedChanged := isFailed(old) != isFailed(job)
	failureTargetChanged := isFailureTarget(old) != isFailureTarget(job)
	successCriteriaChanged := isSuccessCriteriaMet(old) != isSuccessCriteriaMet(job)
	s, o := &job.Status, &old.Status
	completedIndexesChanged := s.CompletedIndexes != o.CompletedIndexes
	failedIndexesChanged := !apiequality.Semantic.DeepEqual(s.FailedIndexes, o.FailedIndexes)
	activeChanged := s.Active != o.Active
	startTimeChanged := !timesEqual(s.StartTime, o.StartTime)
	completionTimeChanged := !timesEqual(s.CompletionTime, o.CompletionTime)
	uncountedChanged := !apiequality.Semantic.DeepEqual(s.UncountedTerminatedPods, o.UncountedTerminatedPods)
	readyChanged := !apiequality.Semantic.DeepEqual(s.Ready, o.Ready)
	terminatingChanged := !apiequality.Semantic.DeepEqual(s.Terminating, o.Terminating)
	suspendedWithZeroCompletions := job.Spec.Suspend != nil && *job.Spec.Suspend && job.Spec.Completions != nil && *job.Spec.Completions == 0
	resuming := conditionTrue(o.Conditions, batchv1.JobSuspended) && conditionFalse(s.Conditions, batchv1.JobSuspended)
	return statusOptions{
		// Indexed Jobs with as many completions as parallelism can be
		// scaled down, losing successes.
		rejectDecreasingSucceeded:                      !indexed || !apiequality.Semantic.DeepEqual(job.Spec.Completions, job.Spec.Parallelism),
		rejectInvalidCompletedIndexes:                  completedIndexesChanged,
		rejectInvalidFailedIndexes:                     failedIndexesChanged,
		rejectCompletedIndexesForNonIndexed:            completedIndexesChanged,
		rejectFailedIndexesWithoutBackoffLimitPerIndex: failedIndexesChanged,
		rejectFailedIndexesOverlappingCompleted:        failedIndexesChanged || completedIndexesChanged,
		rejectFailedWithoutFailureTarget:               failedChanged || failedIndexesChanged,
		rejectCompleteWithoutSuccessCriteriaMet:        completeChanged || successCriteriaChanged,
		rejectFinishedWithActive:                       finishedChanged || activeChanged,
		rejectFinishedWithoutStartTime:                 (finishedChanged || startTimeChanged) && !suspendedWithZeroCompletions,
		rejectFinishedWithUncounted:                    finishedChanged || uncountedChanged,
		rejectStartTimeUpdate:                          startTimeChanged && !resuming,
		rejectCompletionBeforeStart:                    startTimeChanged || completionTimeChanged,
		rejectNotCompleteWithCompletionTime:            completeChanged || completionTimeChanged,
		rejectCompleteWithoutCompletionTime:            completeChanged || completionTimeChanged,
		rejectCompleteWithFailed:                       completeChanged || failedChanged,
		rejectCompleteWithFailureTarget:                completeChanged || failureTargetChanged,
		rejectMoreReadyThanActive:                      readyChanged || activeChanged,
		rejectFinishedWithTerminating:                  finishedChanged || terminatingChanged,
	}
}

func timesEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// validateJobStatus checks the counters and the consistency of the
// conditions, times and indexes of a Job's status.
func validateJobStatus(job *batchv1.Job, fldPath *field.Path, opts statusOptions) field.ErrorList {
	var allErrs field.ErrorList
	status := &job.Status
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(status.Active), fldPath.Child("active"))...)
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(status.Succeeded), fldPath.Child("succeeded"))...)
	allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(status.Failed), fldPath.Child("failed"))...)
	if status.Ready != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*status.Ready), fldPath.Child("ready"))...)
	}
	if status.Terminating != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*status.Terminating), fldPath.Child("terminating"))...)
	}
	if u := status.UncountedTerminatedPods; u != nil {
		path := fldPath.Child("uncountedTerminatedPods")
		seen := map[types.UID]bool{}
		check := func(uids []types.UID, p *field.Path) {
			for i, uid := range uids {
				switch {
				case uid == "":
					allErrs = append(allErrs, field.Invalid(p.Index(i), uid, "must not be empty"))
				case seen[uid]:
					allErrs = append(allErrs, field.Duplicate(p.Index(i), uid))
				default:
					seen[uid] = true
				}
			}
		}
		check(u.Succeeded, path.Child("succeeded"))
		check(u.Failed, path.Child("failed"))
	}
	conditionsPath := fldPath.Child("conditions")
	if opts.rejectCompleteWithFailed && isComplete(job) && isFailed(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set Complete=True and Failed=true conditions"))
	}
	if opts.rejectCompleteWithFailureTarget && isComplete(job) && isFailureTarget(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set Complete=True and FailureTarget=true conditions"))
	}
	if opts.rejectNotCompleteWithCompletionTime && status.CompletionTime != nil && !isComplete(job) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("completionTime"), status.CompletionTime, "cannot set completionTime when there is no Complete=True condition"))
	}
	if opts.rejectCompleteWithoutCompletionTime && status.CompletionTime == nil && isComplete(job) {
		allErrs = append(allErrs, field.Required(fldPath.Child("completionTime"), "completionTime is required for Complete jobs"))
	}
	if opts.rejectCompletionBeforeStart && status.StartTime != nil && status.CompletionTime != nil && status.CompletionTime.Before(status.StartTime) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("completionTime"), status.CompletionTime, "must be equal to or after `startTime`"))
	}
	if opts.rejectFailedWithoutFailureTarget && isFailed(job) && !isFailureTarget(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set Failed=True condition without the FailureTarget=true condition"))
	}
	if opts.rejectCompleteWithoutSuccessCriteriaMet && isComplete(job) && !isSuccessCriteriaMet(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set Complete=True condition without the SuccessCriteriaMet=true condition"))
	}
	finished := isFinished(job)
	if opts.rejectFinishedWithActive && status.Active > 0 && finished {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("active"), status.Active, "active>0 is invalid for finished job"))
	}
	if opts.rejectFinishedWithoutStartTime && status.StartTime == nil && finished {
		allErrs = append(allErrs, field.Required(fldPath.Child("startTime"), "startTime is required for finished job"))
	}
	if opts.rejectFinishedWithUncounted && finished && status.UncountedTerminatedPods != nil &&
		len(status.UncountedTerminatedPods.Failed)+len(status.UncountedTerminatedPods.Succeeded) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("uncountedTerminatedPods"), gofields.Value(status.UncountedTerminatedPods), "must be empty for finished job"))
	}
	completions := job.Spec.Completions
	if opts.rejectInvalidCompletedIndexes && completions != nil {
		if _, err := parseIndexes(status.CompletedIndexes, *completions); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("completedIndexes"), status.CompletedIndexes, "error parsing completedIndexes: "+err.Error()))
		}
	}
	if opts.rejectInvalidFailedIndexes && completions != nil && job.Spec.BackoffLimitPerIndex != nil && status.FailedIndexes != nil {
		if _, err := parseIndexes(*status.FailedIndexes, *completions); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("failedIndexes"), status.FailedIndexes, "error parsing failedIndexes: "+err.Error()))
		}
	}
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	if opts.rejectCompletedIndexesForNonIndexed && len(status.CompletedIndexes) != 0 && !indexed {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("completedIndexes"), status.CompletedIndexes, "cannot set non-empty completedIndexes when non-indexed completion mode"))
	}
	if opts.rejectFailedIndexesWithoutBackoffLimitPerIndex && job.Spec.BackoffLimitPerIndex == nil && status.FailedIndexes != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("failedIndexes"), *status.FailedIndexes, "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
	}
	if opts.rejectFailedIndexesOverlappingCompleted && completions != nil && status.FailedIndexes != nil {
		if err := indexesOverlap(status.CompletedIndexes, *status.FailedIndexes, *completions); err != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("failedIndexes"), *status.FailedIndexes, err.Error()))
		}
	}
	if opts.rejectFinishedWithTerminating && status.Terminating != nil && *status.Terminating > 0 && finished {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("terminating"), status.Terminating, "terminating>0 is invalid for finished job"))
	}
	if opts.rejectMoreReadyThanActive && status.Ready != nil && *status.Ready > status.Active {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("ready"), *status.Ready, "cannot set more ready pods than active"))
	}
	if isSuccessCriteriaMet(job) && isFailed(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True and Failed=true conditions"))
	}
	if isSuccessCriteriaMet(job) && isFailureTarget(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True and FailureTarget=true conditions"))
	}
	if job.Spec.SuccessPolicy != nil && !isSuccessCriteriaMet(job) && isComplete(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True"))
	}
	return allErrs
}

// validateJobStatusTransition checks what a status update may not undo:
// terminal conditions, counters, the completion time, the start time of a
// running Job, the success criteria.
func validateJobStatusTransition(job, old *batchv1.Job, opts statusOptions) field.ErrorList {
	var allErrs field.ErrorList
	conditionsPath := statusPath.Child("conditions")
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
		if conditionTrue(old.Status.Conditions, t) && !conditionTrue(job.Status.Conditions, t) {
			allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, fmt.Sprintf("cannot disable the terminal %s=True condition", t)))
		}
	}
	if job.Status.Failed < old.Status.Failed {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("failed"), job.Status.Failed, "cannot decrease the failed counter"))
	}
	if opts.rejectDecreasingSucceeded && job.Status.Succeeded < old.Status.Succeeded {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("succeeded"), job.Status.Succeeded, "cannot decrease the succeeded counter"))
	}
	if job.Status.CompletionTime != nil && old.Status.CompletionTime != nil && !timesEqual(job.Status.CompletionTime, old.Status.CompletionTime) {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("completionTime"), job.Status.CompletionTime, "field is immutable"))
	}
	suspended := job.Spec.Suspend != nil && *job.Spec.Suspend
	if opts.rejectStartTimeUpdate && old.Status.StartTime != nil && !timesEqual(old.Status.StartTime, job.Status.StartTime) && !suspended {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("startTime"), job.Status.StartTime, "field is immutable for unsuspended job once set"))
	}
	if isSuccessCriteriaMet(old) && !isSuccessCriteriaMet(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot disable the SuccessCriteriaMet=True condition"))
	}
	if isComplete(old) && !isSuccessCriteriaMet(old) && isSuccessCriteriaMet(job) {
		allErrs = append(allErrs, field.Invalid(conditionsPath, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
	}
	return allErrs
}
