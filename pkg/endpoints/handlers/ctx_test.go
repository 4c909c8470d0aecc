package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
)

// conflictingPatcher is a storage whose every write conflicts, as when
// another writer keeps changing the object: like a guaranteed update, it
// asks for the updated object again and again until computing it fails.
type conflictingPatcher struct {
	current *corev1.ConfigMap
	tries   atomic.Int64
}

func (p *conflictingPatcher) New() runtime.Object { return &corev1.ConfigMap{} }
func (p *conflictingPatcher) Destroy()            {}

func (p *conflictingPatcher) Get(context.Context, string, *metav1.GetOptions) (runtime.Object, error) {
	return p.current.DeepCopy(), nil
}

func (p *conflictingPatcher) Update(ctx context.Context, _ string, info rest.UpdatedObjectInfo, _ rest.ValidateObjectFunc,
	_ rest.ValidateObjectUpdateFunc, _ bool, _ *metav1.UpdateOptions) (runtime.Object, bool, error) {
	for {
		p.tries.Add(1)
		if _, err := info.UpdatedObject(ctx, p.current.DeepCopy()); err != nil {
			return nil, false, err
		}
	}
}

// cancellingAdmission ends the request (as the timeout filter does when
// its time is up) the n-th time it is asked, and counts every time.
type cancellingAdmission struct {
	cancel context.CancelFunc
	n      int64
	calls  atomic.Int64
}

func (a *cancellingAdmission) Admit(context.Context, *admission.Attributes) error {
	if a.calls.Add(1) == a.n {
		a.cancel()
	}
	return nil
}

func (a *cancellingAdmission) Validate(context.Context, *admission.Attributes) error { return nil }

// A PATCH whose writes keep conflicting retries until its request ends,
// and not one attempt longer: no patch is applied and no admission runs
// once the context is done.
func TestPatchStopsRetryingWhenTheRequestEnds(t *testing.T) {
	for _, pt := range []types.PatchType{types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType} {
		t.Run(string(pt), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			adm := &cancellingAdmission{cancel: cancel, n: 3}
			storage := &conflictingPatcher{current: &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", UID: "u", ResourceVersion: "1"},
			}}
			s := configMapScope(adm)
			patch := map[types.PatchType]string{
				types.JSONPatchType:           `[{"op":"add","path":"/data","value":{"k":"v"}}]`,
				types.MergePatchType:          `{"data":{"k":"v"}}`,
				types.StrategicMergePatchType: `{"data":{"k":"v"}}`,
			}[pt]
			r := httptest.NewRequest(http.MethodPatch, "/api/v1/namespaces/ns/configmaps/a", strings.NewReader(patch))
			r.Header.Set("Content-Type", string(pt))
			r = r.WithContext(request.WithRequestInfo(ctx, &request.RequestInfo{
				IsResourceRequest: true, Verb: "patch", APIVersion: "v1", Namespace: "ns", Resource: "configmaps", Name: "a",
			}))
			w := httptest.NewRecorder()

			done := make(chan struct{})
			go func() {
				defer close(done)
				PatchResource(storage, s, true)(w, r)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatalf("the patch was still retrying a minute after its request ended (%d tries)", storage.tries.Load())
			}
			if got := adm.calls.Load(); got != adm.n {
				t.Errorf("admission ran %d times, want %d: attempts went on after the request ended", got, adm.n)
			}
			if w.Code != http.StatusGatewayTimeout {
				t.Errorf("answer %d %s, want the 504 of an ended request", w.Code, w.Body)
			}
		})
	}
}

// configMapScope serves v1 ConfigMaps with adm as admission.
func configMapScope(adm admission.Interface) *RequestScope {
	gv := corev1.SchemeGroupVersion
	return &RequestScope{
		Serializer:      scheme.Codecs,
		ParameterCodec:  scheme.ParameterCodec,
		Creater:         scheme.Scheme,
		Convertor:       scheme.Scheme,
		Defaulter:       scheme.Scheme,
		Typer:           scheme.Scheme,
		Resource:        gv.WithResource("configmaps"),
		Kind:            gv.WithKind("ConfigMap"),
		HubGroupVersion: gv,
		Namespaced:      true,
		Admission:       adm,
	}
}

// requestEnded is a 504 Timeout once the context is done, nothing before.
func TestRequestEnded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if err := requestEnded(ctx); err != nil {
		t.Fatalf("live context: %v", err)
	}
	cancel()
	if err := requestEnded(ctx); !apierrors.IsTimeout(err) {
		t.Fatalf("ended context: %v, want a Timeout", err)
	}
}
