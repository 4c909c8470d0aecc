package controlplane

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/registry/rest"
	"github.com/kapi-dev/kapi/pkg/storage/embedded"
	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// fieldSelectorAnswers is what kube-apiserver 1.37 answered to a list of
// each resource kapi serves, selecting one field: testdata/
// field-selectors.json, recorded from the oracle.
type fieldSelectorAnswers struct {
	Request string
	Answers map[string]map[string]struct {
		Code    int
		Reason  metav1.StatusReason
		Message string
	}
}

// Every served resource accepts the fields kube-apiserver lets a list
// select on, and refuses the others with kube-apiserver's error: the
// fields follow from the resource's declaration (its FieldsFunc) and from
// the API it is served in (events.k8s.io names them differently).
func TestFieldSelectorsMatchKubeAPIServer(t *testing.T) {
	data, err := os.ReadFile("testdata/field-selectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var recorded fieldSelectorAnswers
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}

	etcd, err := embedded.Start(context.Background(), embedded.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	cfg, _ := testConfig(t, nil)
	cfg.RESTOptions.StorageFactory = &storagebackend.Factory{Client: etcd.Client(), Prefix: "/registry"}
	storage := declared(t, cfg)

	checked := 0
	for path, answers := range recorded.Answers {
		gv, resource := groupVersionResourceOf(t, path)
		lister, ok := storage[gv][resource].(rest.Lister)
		if !ok {
			t.Errorf("%s: not served, or not listable", path)
			continue
		}
		ctx := request.WithNamespace(context.Background(), "")
		for field, want := range answers {
			_, err := lister.List(ctx, &metav1.ListOptions{FieldSelector: field + "=x", Limit: 1})
			switch {
			case want.Code == http.StatusOK && err != nil:
				t.Errorf("%s, fieldSelector %s=x: kube-apiserver lists, kapi answers %v", path, field, err)
			case want.Code != http.StatusOK:
				var status apierrors.APIStatus
				if !asAPIStatus(err, &status) {
					t.Errorf("%s, fieldSelector %s=x: want %d %q, got %v", path, field, want.Code, want.Message, err)
					continue
				}
				got := status.Status()
				if int(got.Code) != want.Code || got.Reason != want.Reason || got.Message != want.Message {
					t.Errorf("%s, fieldSelector %s=x:\n got %d %s %q\nwant %d %s %q", path, field, got.Code, got.Reason, got.Message, want.Code, want.Reason, want.Message)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("testdata/field-selectors.json has no answers")
	}
}

// groupVersionResourceOf splits a recorded path, api/v1/pods or
// apis/apps/v1/deployments.
func groupVersionResourceOf(t *testing.T, path string) (schema.GroupVersion, string) {
	t.Helper()
	parts := strings.Split(path, "/")
	switch {
	case len(parts) == 3 && parts[0] == "api":
		return schema.GroupVersion{Version: parts[1]}, parts[2]
	case len(parts) == 4 && parts[0] == "apis":
		return schema.GroupVersion{Group: parts[1], Version: parts[2]}, parts[3]
	}
	t.Fatalf("unexpected path %q in testdata", path)
	return schema.GroupVersion{}, ""
}

func asAPIStatus(err error, status *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*status = s
	}
	return ok
}
