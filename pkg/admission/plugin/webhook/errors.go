package webhook

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CallError is a failure to get an answer from a webhook (it could not be
// reached, it timed out, or its answer made no sense), as opposed to the
// webhook refusing the write. The webhook's failurePolicy decides whether
// the write goes on. Status is what the metrics record as the code.
type CallError struct {
	Webhook string
	Reason  error
	Status  *apierrors.StatusError
}

// Error is kube-apiserver's text, which clients see inside an internal
// error when the webhook fails closed.
func (e *CallError) Error() string {
	if e.Reason != nil {
		return fmt.Sprintf("failed calling webhook %q: %v", e.Webhook, e.Reason)
	}
	return fmt.Sprintf("failed calling webhook %q; no further details available", e.Webhook)
}

func (e *CallError) Unwrap() error { return e.Reason }

// Rejection is a webhook's refusal of the write.
type Rejection struct {
	Status *apierrors.StatusError
}

func (e *Rejection) Error() string { return e.Status.Error() }

// RejectionStatus is the status a client sees when webhook refuses a
// write with result: the webhook's own status, made a failure of at least
// 400, its message prefixed with the webhook's name.
func RejectionStatus(webhook string, result *metav1.Status) *apierrors.StatusError {
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", webhook)
	var s metav1.Status
	if result != nil {
		s = *result
	} else {
		s = metav1.Status{Status: metav1.StatusFailure}
	}
	if s.Code < http.StatusBadRequest {
		s.Code = http.StatusBadRequest
	}
	if s.Status == "" || s.Status == metav1.StatusSuccess {
		s.Status = metav1.StatusFailure
	}
	switch {
	case s.Message != "":
		s.Message = deniedBy + ": " + s.Message
	case s.Reason != "":
		s.Message = deniedBy + ": " + string(s.Reason)
	default:
		s.Message = deniedBy + " without explanation"
	}
	return &apierrors.StatusError{ErrStatus: s}
}

// dryRunUnsupported refuses a dry run to a webhook that may have side
// effects.
func dryRunUnsupported(webhook string) *apierrors.StatusError {
	return apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", webhook))
}
