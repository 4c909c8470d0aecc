package handlers

import (
	"net/http"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// kube-apiserver 1.37.1's answer to a JSON patch test without a value
// ([{"op":"test","path":"/data/key"}] on a ConfigMap, recorded from the
// oracle). To the same test of the whole document ("path": "") it
// answers nothing: json-patch panics and the connection is dropped.
var valuelessTestStatus = metav1.Status{
	Status:  metav1.StatusFailure,
	Message: "the server rejected our request due to an error in our request",
	Reason:  metav1.StatusReasonInvalid,
	Details: &metav1.StatusDetails{},
	Code:    http.StatusUnprocessableEntity,
}

// A test of the whole document without a value fails the patch with the
// 422 kube-apiserver gives a test of a field without one.
func TestJSONPatchTestWithoutValue(t *testing.T) {
	s := &RequestScope{Resource: corev1.SchemeGroupVersion.WithResource("configmaps")}
	for _, patch := range []string{`[{"op":"test","path":""}]`, `[{"op":"add","path":"/data/b","value":"c"},{"op":"test","path":""}]`} {
		p := &patchedObject{scope: s, patchType: types.JSONPatchType, patch: []byte(patch)}
		_, err := p.apply([]byte(`{"apiVersion":"v1","kind":"ConfigMap","data":{"key":"value"}}`))
		status, ok := err.(apierrors.APIStatus)
		if !ok {
			t.Fatalf("%s: got %v, want a Status", patch, err)
		}
		got := status.Status()
		if !reflect.DeepEqual(got, valuelessTestStatus) {
			t.Errorf("%s: got %+v, want %+v", patch, got, valuelessTestStatus)
		}
	}
}
