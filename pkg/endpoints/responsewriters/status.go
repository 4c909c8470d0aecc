// Package responsewriters writes API responses: objects in the negotiated
// encoding and errors as metav1.Status.
package responsewriters

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

// ErrorToStatus turns any error into the Status a client sees. An error
// that is not an API error is a bug somewhere below the handler: it is
// logged and answered as kube-apiserver does, a 500 with no reason and the
// error's text.
func ErrorToStatus(err error) *metav1.Status {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		st := s.Status()
		st.Kind, st.APIVersion = "Status", "v1"
		if st.Status == "" {
			st.Status = metav1.StatusFailure
		}
		return &st
	}
	utilruntime.HandleError(fmt.Errorf("apiserver received an error that is not a metav1.Status: %w", err))
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     http.StatusInternalServerError,
		Reason:   metav1.StatusReasonUnknown,
		Message:  err.Error(),
	}
}

// WriteErrorStatus writes err as a JSON Status with its code. Handlers that
// negotiate an encoding use the negotiated writer instead; this one is for
// filters, which run before negotiation.
func WriteErrorStatus(w http.ResponseWriter, r *http.Request, err error) {
	st := ErrorToStatus(err)
	auditcontext.LogResponseObject(r.Context(), st, encodeStatus)
	WriteStatus(w, st)
}

func encodeStatus(obj runtime.Object) ([]byte, error) { return json.Marshal(obj) }

// WriteStatus writes a Status as JSON with its code as the HTTP status.
func WriteStatus(w http.ResponseWriter, st *metav1.Status) {
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	body, err := json.Marshal(st)
	if err != nil {
		utilruntime.HandleError(err)
		http.Error(w, "internal error encoding status", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
