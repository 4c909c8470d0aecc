package core

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodLogOptions checks the options of a read of pods/log as
// kube-apiserver 1.37 does, with stream selection (the alpha
// PodLogsQuerySplitStreams) off: stream may not be given.
func ValidatePodLogOptions(opts *corev1.PodLogOptions) field.ErrorList {
	var errs field.ErrorList
	if opts.TailLines != nil && *opts.TailLines < 0 {
		errs = append(errs, field.Invalid(field.NewPath("tailLines"), *opts.TailLines, "must be greater than or equal to 0"))
	}
	if opts.LimitBytes != nil && *opts.LimitBytes < 1 {
		errs = append(errs, field.Invalid(field.NewPath("limitBytes"), *opts.LimitBytes, "must be greater than 0"))
	}
	switch {
	case opts.SinceSeconds != nil && opts.SinceTime != nil:
		errs = append(errs, field.Forbidden(field.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	case opts.SinceSeconds != nil && *opts.SinceSeconds < 1:
		errs = append(errs, field.Invalid(field.NewPath("sinceSeconds"), *opts.SinceSeconds, "must be greater than 0"))
	}
	if opts.Stream != nil {
		errs = append(errs, field.Forbidden(field.NewPath("stream"), "may not be specified"))
	}
	return errs
}
