package auditcontext

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var gvr = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func withLevel(level Level, omitManagedFields bool) context.Context {
	c := New("id")
	c.Init(level, omitManagedFields)
	return With(context.Background(), c)
}

func object() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", UID: "u", ResourceVersion: "5",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
}

// TestObjectsAreEncodedOnlyWhenTheLevelRecordsThem counts the encoder's
// calls: none at None and Metadata.
func TestObjectsAreEncodedOnlyWhenTheLevelRecordsThem(t *testing.T) {
	for _, tc := range []struct {
		level      Level
		wantEncode int
	}{{LevelNone, 0}, {LevelMetadata, 0}, {LevelRequest, 1}, {LevelRequestResponse, 2}} {
		ctx := withLevel(tc.level, false)
		calls := 0
		enc := func(o runtime.Object) ([]byte, error) { calls++; return json.Marshal(o) }
		LogRequestObject(ctx, object(), gvr, "", enc)
		LogResponseObject(ctx, object(), enc)
		if calls != tc.wantEncode {
			t.Errorf("level %d: %d encodings, want %d", tc.level, calls, tc.wantEncode)
		}
		rec := From(ctx).Recorded()
		if tc.level >= LevelMetadata && (rec.ObjectRef.Name != "c" || rec.ObjectRef.UID != "u" || rec.ObjectRef.ResourceVersion != "5") {
			t.Errorf("level %d: objectRef = %+v", tc.level, rec.ObjectRef)
		}
	}
	// No audit state at all (auditing off) costs nothing either.
	LogRequestObject(context.Background(), object(), gvr, "", func(runtime.Object) ([]byte, error) {
		t.Fatal("encoded without an audit state")
		return nil, nil
	})
}

func TestManagedFieldsOmittedFromACopy(t *testing.T) {
	ctx := withLevel(LevelRequestResponse, true)
	obj := object()
	LogRequestObject(ctx, obj, gvr, "", func(o runtime.Object) ([]byte, error) { return json.Marshal(o) })
	LogResponseObject(ctx, &corev1.ConfigMapList{Items: []corev1.ConfigMap{*object()}}, func(o runtime.Object) ([]byte, error) { return json.Marshal(o) })
	rec := From(ctx).Recorded()
	if strings.Contains(string(rec.RequestObject), "managedFields") || strings.Contains(string(rec.ResponseObject), "managedFields") {
		t.Errorf("managedFields recorded: %s %s", rec.RequestObject, rec.ResponseObject)
	}
	if len(obj.ManagedFields) != 1 {
		t.Error("the handler's object lost its managedFields")
	}
}

func TestStatusIsRecordedAtEveryLevelButNone(t *testing.T) {
	st := &metav1.Status{Status: "Failure", Reason: "NotFound", Message: "m", Code: 404}
	ctx := withLevel(LevelMetadata, false)
	LogResponseObject(ctx, st, nil)
	if got := From(ctx).Recorded().ResponseStatus; got == nil || got.Reason != "NotFound" || got.Code != 404 {
		t.Errorf("status = %+v", got)
	}
	ctx = withLevel(LevelNone, false)
	LogResponseObject(ctx, st, nil)
	AddAnnotation(ctx, "k", "v")
	if rec := From(ctx).Recorded(); rec.ResponseStatus != nil || rec.Annotations != nil {
		t.Errorf("level None recorded %+v", rec)
	}
}

// Authenticators annotate a request before the policy has chosen its
// level: those annotations are kept for an audited request.
func TestAnnotationsBeforeThePolicyAreKept(t *testing.T) {
	c := New("id")
	ctx := With(context.Background(), c)
	AddAnnotation(ctx, "authentication.k8s.io/legacy-token", "system:serviceaccount:ns:sa")
	c.Init(LevelMetadata, false)
	AddAnnotation(ctx, "authorization.k8s.io/decision", "allow")
	if got := c.Recorded().Annotations; len(got) != 2 || got["authentication.k8s.io/legacy-token"] == "" {
		t.Errorf("annotations %v, want both", got)
	}

	none := New("id2")
	ctx = With(context.Background(), none)
	none.Init(LevelNone, false)
	AddAnnotation(ctx, "authorization.k8s.io/decision", "allow")
	if got := none.Recorded().Annotations; len(got) != 0 {
		t.Errorf("a request the policy does not audit kept %v", got)
	}
}
