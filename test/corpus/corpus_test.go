package corpus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// oracleEnv names the admin kubeconfig of the kube-apiserver to record
// from. When it is set, TestCorpus records instead of comparing.
const oracleEnv = "KAPI_CORPUS_ORACLE"

// Every case answers on kapi as it did on kube-apiserver 1.37.1. With
// KAPI_CORPUS_ORACLE set, the cases are sent to that server and its
// answers recorded instead; -run 'TestCorpus/<group>/<resource>' picks
// the cases.
func TestCorpus(t *testing.T) {
	cases := caseFiles(t)
	if len(cases) == 0 {
		t.Fatal("no cases in testdata")
	}
	oracle := os.Getenv(oracleEnv)
	var server Server
	if oracle != "" {
		server = serverFromKubeconfig(t, oracle)
	} else {
		s := testserver.Start(t, testserver.Options{})
		server = serverFromConfig(t, s.ClientConfig)
	}
	for _, path := range cases {
		name := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(path, "testdata"+string(filepath.Separator))), ".yaml")
		t.Run(name, func(t *testing.T) {
			c, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := server.Run(context.Background(), c, namespaceFor(name))
			if err != nil {
				t.Fatal(err)
			}
			if oracle != "" {
				if err := WriteRecording(path, got); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := ReadRecording(path)
			if err != nil {
				t.Fatalf("%v (record it: %s=<kube-apiserver admin kubeconfig> go test ./test/corpus -run 'TestCorpus/%s')", err, oracleEnv, name)
			}
			if len(want) != len(c.Steps) {
				t.Fatalf("the recording has %d answers for %d steps: record it again", len(want), len(c.Steps))
			}
			// Compare as JSON values: the recording was decoded from
			// JSON, the answers were not written yet.
			got = roundTrip(t, got)
			for i := range want {
				SortManagedFields(want[i].Body)
				SortManagedFields(got[i].Body)
				step := c.Steps[i]
				if diff := cmp.Diff(want[i], got[i]); diff != "" {
					t.Errorf("step %d, %s %s: kapi answers differently from kube-apiserver (-kube-apiserver +kapi):\n%s", i, step.Method, step.Path, diff)
				}
			}
		})
	}
}

// caseFiles lists the case files below testdata.
func caseFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			out = append(out, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// namespaceFor is a fresh namespace for a case: unique, so that a case
// recorded twice on one server does not meet its earlier objects.
func namespaceFor(name string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	base := strings.NewReplacer("/", "-", "_", "-", ".", "-").Replace(strings.ToLower(name))
	if len(base) > 40 {
		base = base[:40]
	}
	return strings.Trim("c-"+base, "-") + "-" + hex.EncodeToString(b)
}

func serverFromKubeconfig(t *testing.T, path string) Server {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	return serverFromConfig(t, cfg)
}

func serverFromConfig(t *testing.T, cfg *rest.Config) Server {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Server{Client: client, URL: strings.TrimSuffix(cfg.Host, "/")}
}

// roundTrip returns answers as they read back from a recording.
func roundTrip(t *testing.T, answers []Response) []Response {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "case.yaml")
	if err := WriteRecording(path, answers); err != nil {
		t.Fatal(err)
	}
	out, err := ReadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
