package generic

import (
	"errors"

	v1 "k8s.io/api/admissionregistration/v1"
)

// FailsOpen says whether errors of a policy are ignored (failurePolicy
// Ignore); unset is Fail.
func FailsOpen(fp *v1.FailurePolicyType) bool {
	return fp != nil && *fp == v1.Ignore
}

// ErrNotReady is returned until the policies and namespaces are known.
var ErrNotReady = errors.New("not yet ready to handle request")
