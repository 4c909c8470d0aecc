package rest

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The messages are kube-apiserver 1.37.1's answers to a PUT of
// /api/v1/namespaces/ns/configmaps/n1 (recorded from the oracle).
func TestCheckNameMatchesAnswersAsKubeAPIServer(t *testing.T) {
	tests := []struct {
		objName string
		wantMsg string
	}{
		{"n1", ""},
		{"other", "the name of the object (other) does not match the name on the URL (n1)"},
		{"", "the name of the object (n1 based on URL) was undeterminable: name must be provided"},
	}
	for _, tt := range tests {
		err := CheckNameMatches(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: tt.objName}}, "n1")
		if tt.wantMsg == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.objName, err)
			}
			continue
		}
		st, ok := err.(apierrors.APIStatus)
		if !ok || st.Status().Code != http.StatusBadRequest || st.Status().Message != tt.wantMsg {
			t.Errorf("%q: got %v, want 400 %q", tt.objName, err, tt.wantMsg)
		}
	}
}
