package corpus

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Two servers' answers to one case differ in the uids they gave, the
// resourceVersions, times, the namespace and generated names; normalised,
// they do not. (A uid the request chose, such as an owner's, is the same
// in both.)
func TestNormaliseHidesWhatTwoRunsDisagreeOn(t *testing.T) {
	now := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	answer := func(ns, uid, ownerUID, rv, created, generated string) []rawResponse {
		return []rawResponse{{
			code: 201, at: now,
			warnings: []string{`299 - "object in ` + ns + `"`},
			body: decode(t, `{"metadata": {"name": "`+generated+`", "generateName": "job-", "namespace": "`+ns+`",
				"uid": "`+uid+`", "resourceVersion": "`+rv+`", "creationTimestamp": "`+created+`",
				"labels": {"controller-uid": "`+uid+`"},
				"ownerReferences": [{"uid": "`+ownerUID+`"}]},
			"spec": {"startingDeadline": "2020-01-01T00:00:00Z"}}`),
		}, {
			code: 422, at: now, generateName: "job-",
			body: decode(t, `{"kind": "Status", "details": {"name": "job-`+uid[:5]+`"}, "message": "Job \"job-`+uid[:5]+`\" is invalid"}`),
		}}
	}
	a := normalise(answer("ns-a", "aaaaaaaa-1", "owner-1", "17", "2026-11-25T18:00:01Z", "job-x1"), "ns-a", nil)
	b := normalise(answer("ns-b", "bbbbbbbb-2", "owner-1", "9012", "2026-11-25T17:59:58Z", "job-y2"), "ns-b", nil)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("normalised answers differ:\n%s", diff)
	}
	if got := lookup(a[0].Body, "spec.startingDeadline"); got != "2020-01-01T00:00:00Z" {
		t.Errorf("a time the request chose was replaced: %v", got)
	}
	if got := lookup(a[0].Body, "metadata.labels.controller-uid"); got != "<uid-1>" {
		t.Errorf("the uid in a label is %v, want <uid-1>", got)
	}
}

// What is not a placeholder is compared, and an ignored path is not.
func TestNormaliseKeepsTheRest(t *testing.T) {
	now := time.Now()
	one := normalise([]rawResponse{{code: 201, at: now, body: decode(t, `{"spec": {"replicas": 1, "clusterIP": "10.0.0.1"}}`)}}, "", []Ignore{{Path: "spec.clusterIP", Why: "allocated"}})
	two := normalise([]rawResponse{{code: 201, at: now, body: decode(t, `{"spec": {"replicas": 2, "clusterIP": "10.0.0.2"}}`)}}, "", []Ignore{{Path: "spec.clusterIP", Why: "allocated"}})
	if got := lookup(one[0].Body, "spec.clusterIP"); got != "<ignored>" {
		t.Errorf("ignored path is %v", got)
	}
	if cmp.Equal(one, two) {
		t.Error("answers with different replicas compare equal")
	}
}

// Two servers that wrote a case's entries in different seconds order its
// managedFields differently; sorted, they compare equal.
func TestManagedFieldsOrderIsNotCompared(t *testing.T) {
	a := decode(t, `{"metadata": {"managedFields": [{"manager": "m", "operation": "Update", "subresource": "status"}, {"manager": "m", "operation": "Update"}]}}`)
	b := decode(t, `{"metadata": {"managedFields": [{"manager": "m", "operation": "Update"}, {"manager": "m", "operation": "Update", "subresource": "status"}]}}`)
	SortManagedFields(a)
	SortManagedFields(b)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("sorted managedFields differ:\n%s", diff)
	}
}

// The ServiceAccount plugin's token volume ends at random: normalised,
// two servers' names agree, in the volume and in its mounts, while its
// prefix and a mount of another volume are still compared.
func TestNormaliseHidesTheTokenVolumesRandomEnd(t *testing.T) {
	now := time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC)
	answer := func(suffix string) []Response {
		return normalise([]rawResponse{{code: 201, at: now, body: decode(t, `{"spec": {
			"containers": [{"volumeMounts": [{"name": "data"}, {"name": "kube-api-access-`+suffix+`"}]}],
			"volumes": [{"name": "data"}, {"name": "kube-api-access-`+suffix+`"}]}}`)}}, "", nil)
	}
	a, b := answer("sv8sr"), answer("x2k9p")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("normalised answers differ:\n%s", diff)
	}
	if got := lookup(a[0].Body, "spec.containers.0.volumeMounts.1.name"); got != "kube-api-access-<random-1>" {
		t.Errorf("the token volume's mount is %v", got)
	}
	if got := lookup(a[0].Body, "spec.volumes.0.name"); got != "data" {
		t.Errorf("another volume's name is %v", got)
	}
}
