package audit

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/authorization/authorizer"
	"github.com/kapi-dev/kapi/pkg/endpoints/auditcontext"
)

func TestNewEventDescribesTheRequest(t *testing.T) {
	r := httptest.NewRequest("PUT", "/api/v1/namespaces/ns/configmaps/c?fieldManager=x", nil)
	r.Header.Set("User-Agent", strings.Repeat("u", 1100))
	r.Header.Set("X-Forwarded-For", "10.0.0.1")
	attrs := authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: "bob", UID: "42", Groups: []string{"devs"}, Extra: map[string][]string{"k": {"v"}}},
		Verb: "update", Namespace: "ns", Resource: "configmaps", Name: "c", APIVersion: "v1", ResourceRequest: true,
	}
	received := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	ev := NewEvent(r, "id", LevelRequest, received, attrs)
	js, err := json.Marshal(AtStage(ev, StageRequestReceived, received.Add(time.Second), auditcontext.Recorded{}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"id","stage":"RequestReceived",` +
		`"requestURI":"/api/v1/namespaces/ns/configmaps/c?fieldManager=x","verb":"update",` +
		`"user":{"username":"bob","uid":"42","groups":["devs"],"extra":{"k":["v"]}},"sourceIPs":["10.0.0.1","192.0.2.1"],` +
		`"userAgent":"` + strings.Repeat("u", 1024) + `...TRUNCATED",` +
		`"objectRef":{"resource":"configmaps","namespace":"ns","name":"c","apiVersion":"v1"},` +
		`"requestReceivedTimestamp":"2026-01-02T03:04:05.123456Z","stageTimestamp":"2026-01-02T03:04:05.123456Z"}`
	if string(js) != want {
		t.Errorf("event:\n got %s\nwant %s", js, want)
	}
}

func TestAtStageAddsWhatTheLayersRecorded(t *testing.T) {
	base := &Event{Level: LevelMetadata, ObjectRef: &ObjectReference{Resource: "configmaps", Namespace: "ns", APIVersion: "v1"}}
	rec := auditcontext.Recorded{
		ObjectRef:      auditcontext.ObjectRef{Set: true, Name: "from-body", Namespace: "other", UID: "u", ResourceVersion: "7", APIGroup: "g", APIVersion: "v9", Resource: "r"},
		RequestObject:  []byte(`{"a":1}`),
		ResponseObject: []byte(`{"b":2}`),
		ResponseStatus: &auditcontext.ResponseStatus{Code: 409, Status: "Failure", Reason: "AlreadyExists", Message: "m"},
		Annotations:    map[string]string{"k": "v"},
	}
	for _, tc := range []struct {
		level     Level
		req, resp bool
	}{{LevelMetadata, false, false}, {LevelRequest, true, false}, {LevelRequestResponse, true, true}} {
		b := *base
		b.Level = tc.level
		ev := AtStage(&b, StageResponseComplete, time.Now(), rec)
		// The path's namespace and version win; what the path did not say
		// comes from the object.
		ref := ev.ObjectRef
		if ref.Name != "from-body" || ref.Namespace != "ns" || ref.UID != "u" || ref.ResourceVersion != "7" || ref.APIVersion != "v1" || ref.APIGroup != "" || ref.Resource != "configmaps" {
			t.Errorf("%s: objectRef = %+v", tc.level, ref)
		}
		if (ev.RequestObject != nil) != tc.req || (ev.ResponseObject != nil) != tc.resp {
			t.Errorf("%s: request object %s, response object %s", tc.level, ev.RequestObject, ev.ResponseObject)
		}
		if ev.ResponseStatus.Code != 409 || ev.ResponseStatus.Reason != "AlreadyExists" || ev.Annotations["k"] != "v" {
			t.Errorf("%s: status %+v, annotations %v", tc.level, ev.ResponseStatus, ev.Annotations)
		}
		if base.ObjectRef.Name != "" {
			t.Fatal("AtStage changed the base event")
		}
	}
}

func TestLegacyString(t *testing.T) {
	ev := &Event{AuditID: "id", Stage: StageResponseComplete, Verb: "get", RequestURI: "/api", UserAgent: "ua",
		SourceIPs: []string{"1.2.3.4"}, RequestReceivedTimestamp: microTime(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC))}
	ev.User.Username, ev.User.Groups = "bob", []string{"a", "b"}
	want := `2026-01-02T03:04:05.000006Z AUDIT: id="id" stage="ResponseComplete" ip="1.2.3.4" method="get" user="bob" groups="\"a\",\"b\"" as="<self>" asgroups="<lookup>" user-agent="ua" namespace="<none>" uri="/api" response="<deferred>"`
	if got := LegacyString(ev); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func microTime(t time.Time) metav1.MicroTime { return metav1.NewMicroTime(t) }
