package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/app"
	"github.com/kapi-dev/kapi/pkg/features"
	"github.com/kapi-dev/kapi/pkg/testserver"
)

const (
	// featureGatesFlag is what both servers of TestEnabledGatesKeepTheirFields
	// were started with.
	featureGatesFlag = "DRAListTypeAttributes=true,DRAResourcePoolStatus=true,DRADerivedAttributes=true," +
		"EmptyDirVolumeMode=true,VolumeBindMountOptions=true,AtomicWriteVolumeUserFields=true,GenericWorkload=true," +
		"EvictionRequestAPI=true,GRPCContainerProbeTLS=true,H2CContainerProbe=true,ContainerStopSignals=true," +
		"CoordinatedLeaderElection=true"
	featureGatesRequests = "testdata/featuregates/requests.yaml"
	featureGatesAnswers  = "testdata/featuregates/oracle.json"
)

type gatedRequest struct {
	Name string          `json:"name"`
	Path string          `json:"path"`
	Body json.RawMessage `json:"body"`
}

type gatedAnswer struct {
	Name string         `json:"name"`
	Code int            `json:"code"`
	Body map[string]any `json:"body"`
}

// TestEnabledGatesKeepTheirFields: with --feature-gates turning alpha
// gates on, kapi keeps the fields kube-apiserver keeps (list attributes,
// derived attributes; a pod's and a pod template's emptyDir mode, volume
// file owners, bind mount options, HTTP probe protocol, gRPC probe mode,
// stop signal, scheduling group and eviction responders; a lease's
// strategy and preferred holder) and defaults a pod's HTTP probe
// protocol as kube-apiserver does, still drops those of gates left off
// (partitionTypeAttribute, skipNodeOperations, nodeAllocatableResources,
// a node's podPreemptionPolicy), and validates the DRA fields it keeps
// as kube-apiserver does. The answers are kube-apiserver 1.37.1's, started
// with the same flag (testdata/featuregates/oracle.json).
//
// With KAPI_FEATUREGATES_ORACLE set to the kubeconfig of a kube-apiserver
// started with --feature-gates=<featureGatesFlag> (and
// --runtime-config=coordination.k8s.io/v1beta1=true, which
// CoordinatedLeaderElection needs to start; admission as the corpus
// oracle's, NamespaceLifecycle only), the test sends the requests there
// and writes the recording instead.
func TestEnabledGatesKeepTheirFields(t *testing.T) {
	data, err := os.ReadFile(featureGatesRequests)
	if err != nil {
		t.Fatal(err)
	}
	var requests []gatedRequest
	if err := yaml.Unmarshal(data, &requests); err != nil {
		t.Fatal(err)
	}

	if oracle := os.Getenv("KAPI_FEATUREGATES_ORACLE"); oracle != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", oracle)
		if err != nil {
			t.Fatal(err)
		}
		answers := sendGated(t, cfg, requests)
		out, err := json.MarshalIndent(answers, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(featureGatesAnswers, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d answers in %s", len(answers), featureGatesAnswers)
		return
	}

	data, err = os.ReadFile(featureGatesAnswers)
	if err != nil {
		t.Fatal(err)
	}
	var want []gatedAnswer
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(requests) {
		t.Fatalf("%d requests, %d recorded answers: record again", len(requests), len(want))
	}

	gates, err := features.Parse([]string{featureGatesFlag})
	if err != nil {
		t.Fatal(err)
	}
	// The recording's admission: NamespaceLifecycle only.
	var off []string
	for _, name := range app.DefaultAdmissionPlugins() {
		if name != "NamespaceLifecycle" {
			off = append(off, name)
		}
	}
	s := testserver.Start(t, testserver.Options{FeatureGates: gates, Admission: app.AdmissionConfig{Disable: off}})
	got := sendGated(t, s.ClientConfig, requests)
	for i := range want {
		if diff := cmp.Diff(want[i], got[i]); diff != "" {
			t.Errorf("%s differs from kube-apiserver's answer (-oracle +kapi):\n%s", want[i].Name, diff)
		}
	}
}

// sendGated creates each object with dryRun=All and returns the answers
// without what differs between servers by nature (uid, times,
// resourceVersion, managedFields).
func sendGated(t *testing.T, cfg *rest.Config, requests []gatedRequest) []gatedAnswer {
	t.Helper()
	c := clientset(t, cfg)
	var answers []gatedAnswer
	for _, r := range requests {
		var code int
		body, err := c.RESTClient().Post().AbsPath(r.Path).Param("dryRun", "All").
			SetHeader("Content-Type", "application/json").Body([]byte(r.Body)).
			Do(context.Background()).StatusCode(&code).Raw()
		if err != nil && code == 0 {
			t.Fatalf("%s: %v", r.Name, err)
		}
		if code == 0 {
			code = http.StatusOK
		}
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			t.Fatalf("%s: %v: %s", r.Name, err, body)
		}
		if md, ok := obj["metadata"].(map[string]any); ok {
			for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
				delete(md, k)
			}
		}
		answers = append(answers, gatedAnswer{Name: r.Name, Code: code, Body: obj})
	}
	return answers
}
