package storage

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrorCode classifies a storage error; the registry maps each to the API
// error a client sees. The comment on each code says what kube-apiserver
// answers for it.
type ErrorCode int

const (
	// ErrCodeKeyNotFound: 404 NotFound for the resource and name.
	ErrCodeKeyNotFound ErrorCode = iota + 1
	// ErrCodeKeyExists: 409 AlreadyExists for the resource and name.
	ErrCodeKeyExists
	// ErrCodeResourceVersionConflicts: 409 Conflict; Detail says which
	// precondition failed.
	ErrCodeResourceVersionConflicts
	// ErrCodeInvalidObj: the object cannot be written as given (for example
	// it carries a resourceVersion on create); 500 unless the registry
	// knows better.
	ErrCodeInvalidObj
	// ErrCodeUnreachable: the backend cannot be reached; 504 ServerTimeout.
	ErrCodeUnreachable
	// ErrCodeInvalidResourceVersion: a resourceVersion that does not
	// parse; 400 BadRequest. (Parsers in this package return the
	// BadRequest StatusError directly, see ParseResourceVersion.)
	ErrCodeInvalidResourceVersion
	// ErrCodeTooLargeResourceVersion: a read asked for a revision the
	// backend has not reached; 504 Timeout with Detail as message, cause
	// ResourceVersionTooLarge and retryAfterSeconds 1.
	ErrCodeTooLargeResourceVersion
	// ErrCodeExpired: the revision asked for was compacted; 410 Expired
	// with Detail as message, and Continue as metadata.continue when set.
	ErrCodeExpired
	// ErrCodeCorruptObj: a stored value does not decode; 500
	// InternalError. Nothing was changed.
	ErrCodeCorruptObj
)

func (c ErrorCode) String() string {
	switch c {
	case ErrCodeKeyNotFound:
		return "key not found"
	case ErrCodeKeyExists:
		return "key exists"
	case ErrCodeResourceVersionConflicts:
		return "resource version conflicts"
	case ErrCodeInvalidObj:
		return "invalid object"
	case ErrCodeUnreachable:
		return "server unreachable"
	case ErrCodeInvalidResourceVersion:
		return "invalid resource version"
	case ErrCodeTooLargeResourceVersion:
		return "resource version too large"
	case ErrCodeExpired:
		return "resource version expired"
	case ErrCodeCorruptObj:
		return "corrupt object"
	}
	return fmt.Sprintf("storage error %d", int(c))
}

// Error is the error type every storage.Interface returns for conditions
// the caller is expected to handle.
type Error struct {
	Code ErrorCode
	Key  string
	// ResourceVersion is the revision involved, when there is one.
	ResourceVersion int64
	// Detail is a human-readable explanation appended to the message. For
	// ErrCodeTooLargeResourceVersion and ErrCodeExpired it is the message
	// kube-apiserver puts in the Status it returns.
	Detail string
	// Continue is set on an ErrCodeExpired error of a continued list: a
	// token that resumes the list at the latest revision. kube-apiserver
	// returns it in the 410 Status so that a client may accept an
	// inconsistent list rather than start over.
	Continue string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s, key: %q", e.Code, e.Key)
	if e.ResourceVersion != 0 {
		msg += fmt.Sprintf(", resourceVersion: %d", e.ResourceVersion)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// NewError returns a storage error of the given code.
func NewError(code ErrorCode, key string, rv int64, detail string) *Error {
	return &Error{Code: code, Key: key, ResourceVersion: rv, Detail: detail}
}

// NewTooLargeResourceVersionError says that a read asked for revision
// requested while the backend is at current, in kube-apiserver's words.
func NewTooLargeResourceVersionError(key string, requested, current uint64) *Error {
	return NewError(ErrCodeTooLargeResourceVersion, key, int64(requested),
		fmt.Sprintf("Too large resource version: %d, current: %d", requested, current))
}

// CodeOf returns the ErrorCode of err, or 0 if err is not a storage error.
func CodeOf(err error) ErrorCode {
	var se *Error
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// IsNotFound reports whether err means the key does not exist.
func IsNotFound(err error) bool { return CodeOf(err) == ErrCodeKeyNotFound }

// IsExist reports whether err means the key already exists.
func IsExist(err error) bool { return CodeOf(err) == ErrCodeKeyExists }

// IsConflict reports whether err is a failed resourceVersion or UID
// precondition.
func IsConflict(err error) bool { return CodeOf(err) == ErrCodeResourceVersionConflicts }

// IsExpired reports whether err means the revision was compacted.
func IsExpired(err error) bool { return CodeOf(err) == ErrCodeExpired }

// IsTooLargeResourceVersion reports whether err means a read asked for a
// revision the backend has not reached yet.
func IsTooLargeResourceVersion(err error) bool {
	return CodeOf(err) == ErrCodeTooLargeResourceVersion
}

// IsCorruptObj reports whether err means a stored value does not decode.
func IsCorruptObj(err error) bool { return CodeOf(err) == ErrCodeCorruptObj }

// WatchErrorStatus returns the Status a watch sends in its ERROR event for
// err: err's own Status if it has one, else a 500.
func WatchErrorStatus(err error) *metav1.Status {
	var status metav1.Status
	if se, ok := err.(apierrors.APIStatus); ok {
		status = se.Status()
	} else {
		status = apierrors.NewInternalError(err).Status()
	}
	status.Kind, status.APIVersion = "Status", "v1"
	return &status
}
