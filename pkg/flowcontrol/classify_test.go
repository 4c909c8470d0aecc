package flowcontrol

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

const classificationRecordingFile = "testdata/classification-oracle.json"

// TestClassificationMatchesKubeAPIServer replays the requests of the
// recording (set KAPI_APF_ORACLE to a kube-apiserver's kubeconfig to
// record it again) against a controller given the oracle's FlowSchemas
// and priority levels, and expects each to land where the oracle put it:
// the bootstrap schemas for system:masters, probes, nodes, the
// controller manager and scheduler, service accounts and everyone else,
// and the recording's own schemas for each kind of subject and rule, and
// a dangling schema that matches nothing.
func TestClassificationMatchesKubeAPIServer(t *testing.T) {
	if kubeconfig := os.Getenv("KAPI_APF_ORACLE"); kubeconfig != "" {
		recordClassification(t, kubeconfig, classificationRecordingFile)
	}
	rec := readClassificationRecording(t)
	if len(rec.Cases) != len(recordingCases()) {
		t.Fatalf("the recording has %d cases, the test %d: record it again", len(rec.Cases), len(recordingCases()))
	}
	ctl := New(Config{ServerConcurrencyLimit: 600})
	ctl.digest(rec.FlowSchemas, rec.PriorityLevels)
	resolver := request.NewRequestInfoFactory()
	for _, c := range rec.Cases {
		t.Run(c.Name, func(t *testing.T) {
			info, err := resolver.NewRequestInfo(httptest.NewRequest(c.Method, c.Path, nil))
			if err != nil {
				t.Fatal(err)
			}
			u := &user.DefaultInfo{Name: c.User.Username, Groups: c.User.Groups}
			got := ctl.Classify(Digest{Info: info, User: u})
			if got.FlowSchema != c.FlowSchema || got.PriorityLevel != c.PriorityLevel {
				t.Errorf("%s %s as %s %v: classified %s/%s, kube-apiserver %s/%s", c.Method, c.Path, u.Name, u.Groups,
					got.FlowSchema, got.PriorityLevel, c.FlowSchema, c.PriorityLevel)
			}
			if want := uidOf(rec, c.FlowSchema); string(got.FlowSchemaUID) != want {
				t.Errorf("flow schema UID %q, want %q", got.FlowSchemaUID, want)
			}
		})
	}
}

func readClassificationRecording(t testing.TB) classificationRecording {
	t.Helper()
	data, err := os.ReadFile(classificationRecordingFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec classificationRecording
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func uidOf(rec classificationRecording, schema string) string {
	for _, fs := range rec.FlowSchemas {
		if fs.Name == schema {
			return string(fs.UID)
		}
	}
	return ""
}
