package batch

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apis/core"
)

// maxCronJobNameLength leaves room for the 11 characters ("-" and a
// timestamp) the CronJob controller appends to name a Job, whose name
// must be a DNS label.
const maxCronJobNameLength = validation.DNS1035LabelMaxLength - 11

// ValidateCronJob validates a CronJob on create.
func ValidateCronJob(cj *batchv1.CronJob) field.ErrorList {
	allErrs := core.ValidateObjectMeta(&cj.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadataPath)
	allErrs = append(allErrs, validateCronJobSpec(&cj.Spec, nil, specPath)...)
	if len(cj.Name) > maxCronJobNameLength {
		allErrs = append(allErrs, field.Invalid(metadataPath.Child("name"), cj.Name, fmt.Sprintf("must be no more than %d characters", maxCronJobNameLength)))
	}
	return allErrs
}

// ValidateCronJobUpdate validates an update of a CronJob. The name length
// is not checked again, so that older CronJobs with longer names can be
// updated and deleted.
func ValidateCronJobUpdate(cj, old *batchv1.CronJob) field.ErrorList {
	allErrs := core.ValidateObjectMetaUpdate(&cj.ObjectMeta, &old.ObjectMeta, metadataPath)
	return append(allErrs, validateCronJobSpec(&cj.Spec, &old.Spec, specPath)...)
}

// ValidateCronJobStatusUpdate validates an update of a CronJob's status:
// kube-apiserver checks nothing of it, not even the metadata.
func ValidateCronJobStatusUpdate(_, _ *batchv1.CronJob) field.ErrorList { return nil }

// validateCronJobSpec validates a CronJobSpec; old is nil on create.
func validateCronJobSpec(spec, old *batchv1.CronJobSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(spec.Schedule) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("schedule"), ""))
	} else {
		// A schedule stored with TZ= before the timeZone field keeps it.
		allowTZ := old != nil && strings.Contains(old.Schedule, "TZ")
		allErrs = append(allErrs, validateSchedule(spec.Schedule, allowTZ, spec.TimeZone, fldPath.Child("schedule"))...)
	}
	if spec.StartingDeadlineSeconds != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(*spec.StartingDeadlineSeconds, fldPath.Child("startingDeadlineSeconds"))...)
	}
	// An unchanged time zone is not checked again: the time zone database
	// of this server may lack one that another had.
	if old == nil || !stringPtrsEqual(old.TimeZone, spec.TimeZone) {
		allErrs = append(allErrs, validateTimeZone(spec.TimeZone, fldPath.Child("timeZone"))...)
	}
	allErrs = append(allErrs, validateConcurrencyPolicy(spec.ConcurrencyPolicy, fldPath.Child("concurrencyPolicy"))...)
	var podOpts core.PodValidationOptions
	if old != nil {
		podOpts = core.PodTemplateValidationOptions(&old.JobTemplate.Spec.Template)
	}
	allErrs = append(allErrs, validateJobTemplateSpec(&spec.JobTemplate, fldPath.Child("jobTemplate"), podOpts)...)
	if spec.SuccessfulJobsHistoryLimit != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*spec.SuccessfulJobsHistoryLimit), fldPath.Child("successfulJobsHistoryLimit"))...)
	}
	if spec.FailedJobsHistoryLimit != nil {
		allErrs = append(allErrs, apivalidation.ValidateNonnegativeField(int64(*spec.FailedJobsHistoryLimit), fldPath.Child("failedJobsHistoryLimit"))...)
	}
	return allErrs
}

func stringPtrsEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func validateConcurrencyPolicy(p batchv1.ConcurrencyPolicy, fldPath *field.Path) field.ErrorList {
	switch p {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	}
	return field.ErrorList{field.NotSupported(fldPath, p, []batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent})}
}

// validateSchedule parses the schedule as the CronJob controller does:
// five fields or a descriptor (@hourly, @every 1h), with the standard
// parser's messages. The time zone goes in spec.timeZone, not in the
// schedule.
func validateSchedule(schedule string, allowTZ bool, timeZone *string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if err := parseSchedule(schedule); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, schedule, err.Error()))
	}
	switch {
	case allowTZ && strings.Contains(schedule, "TZ") && timeZone != nil:
		allErrs = append(allErrs, field.Invalid(fldPath, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && strings.Contains(schedule, "TZ"):
		allErrs = append(allErrs, field.Invalid(fldPath, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return allErrs
}

// parseSchedule parses a schedule with the cron library's standard
// parser, which panics on some inputs: a panic is an invalid schedule.
func parseSchedule(schedule string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	_, err = cron.ParseStandard(schedule)
	return err
}

// timeZoneComponent is one component of an IANA time zone name: letters,
// '.', '-', '_' and, for legacy names, digits and '+'.
var timeZoneComponent = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

func validateTimeZone(tz *string, fldPath *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if len(*tz) == 0 {
		return field.ErrorList{field.Invalid(fldPath, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !timeZoneComponent.MatchString(part) {
			return field.ErrorList{field.Invalid(fldPath, tz, "unknown time zone "+*tz)}
		}
	}
	var allErrs field.ErrorList
	if strings.EqualFold(*tz, "Local") {
		allErrs = append(allErrs, field.Invalid(fldPath, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, tz, err.Error()))
	}
	return allErrs
}

// validateJobTemplateSpec validates the job template of a CronJob: a
// JobSpec whose selector the server generates in each Job.
func validateJobTemplateSpec(spec *batchv1.JobTemplateSpec, fldPath *field.Path, podOpts core.PodValidationOptions) field.ErrorList {
	allErrs := validateJobSpec(&spec.Spec, fldPath.Child("spec"), podOpts)
	if spec.Spec.Selector != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("spec", "selector"), spec.Spec.Selector, "`selector` will be auto-generated"))
	}
	if spec.Spec.ManualSelector != nil && *spec.Spec.ManualSelector {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("spec", "manualSelector"), spec.Spec.ManualSelector, []string{"nil", "false"}))
	}
	return allErrs
}
