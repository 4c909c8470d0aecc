package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// echoCreater stores nothing: it answers the object it is given with a
// uid and resourceVersion, so that a benchmark measures the handler.
type echoCreater struct{}

func (echoCreater) New() runtime.Object { return &corev1.ConfigMap{} }
func (echoCreater) Create(_ context.Context, obj runtime.Object, _ rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	cm := obj.(*corev1.ConfigMap)
	cm.UID, cm.ResourceVersion = "uid", "1"
	return cm, nil
}

const benchConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"a":"b"}},"data":{"k1":"v1","k2":"v2","k3":"v3"}}`

func createRequest(tb testing.TB, level auditcontext.Level, audited bool) *http.Request {
	r := httptest.NewRequest("POST", "/api/v1/namespaces/ns/configmaps", strings.NewReader(benchConfigMap))
	r.Header.Set("Content-Type", "application/json")
	info, err := request.NewRequestInfoFactory().NewRequestInfo(r)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := request.WithRequestInfo(r.Context(), info)
	if audited {
		ac := auditcontext.New("id")
		ac.Init(level, false)
		ctx = auditcontext.With(ctx, ac)
	}
	return r.WithContext(ctx)
}

// BenchmarkCreateAudit measures the create path of a ConfigMap at each
// audit level: at None and Metadata nothing is encoded for audit, so they
// should cost what an unaudited create costs; Request and
// RequestResponse pay for encoding the objects.
func BenchmarkCreateAudit(b *testing.B) {
	h := CreateResource(echoCreater{}, configMapScope(admission.NewChain(nil)))
	for _, bc := range []struct {
		name    string
		level   auditcontext.Level
		audited bool
	}{
		{"NoAuditContext", auditcontext.LevelNone, false},
		{"None", auditcontext.LevelNone, true},
		{"Metadata", auditcontext.LevelMetadata, true},
		{"Request", auditcontext.LevelRequest, true},
		{"RequestResponse", auditcontext.LevelRequestResponse, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, createRequest(b, bc.level, bc.audited))
				if w.Code != http.StatusCreated {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// TestCreateRecordsForAudit: the create handler hands audit the object
// as the client sent it (at Request) and as answered (at
// RequestResponse), and its name at every level.
func TestCreateRecordsForAudit(t *testing.T) {
	h := CreateResource(echoCreater{}, configMapScope(admission.NewChain(nil)))
	for _, level := range []auditcontext.Level{auditcontext.LevelMetadata, auditcontext.LevelRequest, auditcontext.LevelRequestResponse} {
		r := createRequest(t, level, true)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		rec := auditcontext.From(r.Context()).Recorded()
		if rec.ObjectRef.Name != "c" || rec.ObjectRef.Resource != "configmaps" || rec.ObjectRef.APIVersion != "v1" {
			t.Errorf("level %d: objectRef = %+v", level, rec.ObjectRef)
		}
		wantReq := level >= auditcontext.LevelRequest
		if (rec.RequestObject != nil) != wantReq || (wantReq && !strings.Contains(string(rec.RequestObject), `"data":{"k1":"v1","k2":"v2","k3":"v3"}`)) {
			t.Errorf("level %d: request object %s", level, rec.RequestObject)
		}
		wantResp := level == auditcontext.LevelRequestResponse
		if (rec.ResponseObject != nil) != wantResp || (wantResp && !strings.Contains(string(rec.ResponseObject), `"uid":"uid"`)) {
			t.Errorf("level %d: response object %s", level, rec.ResponseObject)
		}
	}
}
