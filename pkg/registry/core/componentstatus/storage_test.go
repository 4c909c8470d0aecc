package componentstatus

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/registry/generic"
)

// The HTTP probe reports as kube-apiserver's prober: a healthy answer's
// body is the message, an error status is named, and a refused connection
// is unhealthy with the client's error as the message (the oracle's
// `kubectl get cs` shows `Get "https://127.0.0.1:10259/healthz": dial tcp
// 127.0.0.1:10259: connect: connection refused`).
func TestHTTPCheckReportsAsKubeAPIServer(t *testing.T) {
	healthy := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer healthy.Close()
	failing := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	defer failing.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "https://" + l.Addr().String() + "/healthz"
	_ = l.Close()

	tests := []struct {
		url         string
		wantHealthy bool
		wantMessage string
	}{
		{healthy.URL + "/healthz", true, "ok"},
		{failing.URL + "/healthz", false, "HTTP probe failed with statuscode: 500"},
		{closed, false, `Get "` + closed + `": dial tcp ` + l.Addr().String() + `: connect: connection refused`},
	}
	for _, tc := range tests {
		healthy, message, err := HTTPCheck(tc.url)(context.Background())
		if healthy != tc.wantHealthy || message != tc.wantMessage || err != nil {
			t.Errorf("%s: got (%v, %q, %v), want (%v, %q, nil)", tc.url, healthy, message, err, tc.wantHealthy, tc.wantMessage)
		}
	}
}

// A component is reported by its Healthy condition: etcd says "ok" when
// its check passes and gives the check's error otherwise; an unknown
// component is kube-apiserver's NotFound of "componentstatus".
func TestGetReportsTheHealthyCondition(t *testing.T) {
	broken := errors.New("context deadline exceeded")
	r, err := NewStorage(generic.RESTOptions{}, []Component{
		{Name: "etcd-0", Check: EtcdCheck(func(context.Context) error { return nil })},
		{Name: "etcd-1", Check: EtcdCheck(func(context.Context) error { return broken })},
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]corev1.ComponentCondition{
		"etcd-0": {Type: corev1.ComponentHealthy, Status: corev1.ConditionTrue, Message: "ok"},
		"etcd-1": {Type: corev1.ComponentHealthy, Status: corev1.ConditionFalse, Error: broken.Error()},
	} {
		obj, err := r.Get(context.Background(), name, &metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := obj.(*corev1.ComponentStatus).Conditions; len(got) != 1 || got[0] != want {
			t.Errorf("%s: conditions %+v, want [%+v]", name, got, want)
		}
	}
	_, err = r.Get(context.Background(), "etcd-9", &metav1.GetOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `componentstatus "etcd-9" not found` {
		t.Errorf("unknown component: %v", err)
	}
}
