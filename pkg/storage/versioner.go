package storage

import (
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The etcd revision at which an object was last written is its
// resourceVersion, and the revision a list was read at is the list's. The
// helpers below move revisions in and out of API objects; 0 stands for "no
// resourceVersion" both ways.

// ParseResourceVersion parses a resourceVersion given by a client for a get
// or a list. "" is 0. Anything that is not an unsigned decimal integer is a
// 400 BadRequest with kube-apiserver's message, for example:
//
//	invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax
func ParseResourceVersion(s string) (uint64, error) {
	rv, err := parseResourceVersion(s)
	if err != nil {
		return 0, apierrors.NewBadRequest("invalid resource version: " + err.Error())
	}
	return rv, nil
}

// ParseWatchResourceVersion parses the resourceVersion of a watch request.
// kube-apiserver does not turn a bad value into a BadRequest here: the
// client gets a 500 Status with no reason whose message is the bare field
// error, and so does ours.
func ParseWatchResourceVersion(s string) (uint64, error) {
	rv, err := parseResourceVersion(s)
	if err != nil {
		return 0, &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusInternalServerError,
			Message: err.Error(),
		}}
	}
	return rv, nil
}

func parseResourceVersion(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	rv, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, field.Invalid(field.NewPath("resourceVersion"), s, err.Error())
	}
	return rv, nil
}

// ObjectResourceVersion returns the resourceVersion of obj, 0 if it has
// none.
func ObjectResourceVersion(obj runtime.Object) (uint64, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0, err
	}
	s := m.GetResourceVersion()
	if s == "" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

// UpdateObject sets the resourceVersion of obj to rv, or clears it if rv
// is 0.
func UpdateObject(obj runtime.Object, rv uint64) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	m.SetResourceVersion(formatResourceVersion(rv))
	return nil
}

// UpdateList sets the list metadata a read returns: the revision it was
// read at, the continue token of the next page ("" on the last page) and,
// when known, how many items remain after this page.
func UpdateList(list runtime.Object, rv uint64, continueToken string, remaining *int64) error {
	if rv == 0 {
		// Every read happens at some revision; a list without one would
		// send clients that watch from it back to the beginning of time.
		return fmt.Errorf("illegal resource version from storage: 0")
	}
	m, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	m.SetResourceVersion(formatResourceVersion(rv))
	m.SetContinue(continueToken)
	m.SetRemainingItemCount(remaining)
	return nil
}

// PrepareObjectForStorage clears the fields that are never stored:
// resourceVersion is the etcd revision of the write, known only once it
// happened, and selfLink is no longer served. Storing neither also means an
// unchanged object encodes to the same bytes whatever revision it was read
// at.
func PrepareObjectForStorage(obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	m.SetResourceVersion("")
	m.SetSelfLink("")
	return nil
}

func formatResourceVersion(rv uint64) string {
	if rv == 0 {
		return ""
	}
	return strconv.FormatUint(rv, 10)
}
