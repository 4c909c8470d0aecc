package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

// TestKubectlImpersonation runs the real kubectl with --as, --as-group,
// --as-uid and --as-user-extra against kapi, as the administrator (in
// system:masters, who may impersonate anyone) and as an unprivileged user
// from --token-auth-file, and compares every answer with what kubectl and
// kube-apiserver 1.37.1 answered to the same commands
// (testdata/impersonation-kubectl-oracle.json).
//
// kapi runs with --authorization-mode=Node, kapi having no RBAC yet: like
// the oracle's Node,RBAC for these users, it lets the administrator
// impersonate anyone (system:masters) and allows nothing else to users that
// are not nodes, without giving a reason, so the same requests fail with
// the same messages.
//
// kubectl reads discovery from a cache the administrator filled, because
// the Node authorizer, unlike the oracle's RBAC, does not let everyone read
// it.
//
// The recording's `kubectl auth whoami` cases show the impersonated user
// through a SelfSubjectReview, which the Node authorizer does not let bob
// create (the oracle's RBAC does, through system:basic-user): they run
// against a second kapi with --authorization-mode=AlwaysAllow, where only
// the review's creationTimestamp differs.
func TestKubectlImpersonation(t *testing.T) {
	var rec struct {
		Cases []struct {
			Requestor string   `json:"requestor"`
			Args      []string `json:"args"`
			ExitCode  int      `json:"exitCode"`
			Stdout    string   `json:"stdout"`
			Stderr    string   `json:"stderr"`
		} `json:"cases"`
	}
	data, err := os.ReadFile("testdata/impersonation-kubectl-oracle.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}

	kubectl := filepath.Join(binaries(t), "kubectl")
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("nemo-token,nemo,2001\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, testserver.Options{TokenAuthFile: tokens, AuthorizationMode: []string{"Node"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := clientset(t, s.ClientConfig).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "h-node"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfigs := map[string]string{
		"admin":        s.Kubeconfig,
		"unprivileged": tokenKubeconfig(t, s, "nemo-token"),
	}

	// The oracle's RBAC lets every user read discovery (system:discovery);
	// the Node authorizer alone does not, so kubectl reads it from a cache the
	// administrator fills first.
	cacheDir := filepath.Join(dir, "kubectl-cache")
	if out, err := exec.Command(kubectl, "--kubeconfig", s.Kubeconfig, "--cache-dir", cacheDir, "api-resources").CombinedOutput(); err != nil {
		t.Fatalf("filling the discovery cache: %v\n%s", err, out)
	}

	var whoami *testserver.Server
	ran := 0
	for _, tc := range rec.Cases {
		kubeconfig := kubeconfigs[tc.Requestor]
		if slices.Contains(tc.Args, "whoami") {
			if tc.Requestor != "admin" {
				t.Fatalf("whoami cases are run as the administrator only: %v", tc.Args)
			}
			if whoami == nil {
				whoami = testserver.Start(t, testserver.Options{AuthorizationMode: []string{"AlwaysAllow"}})
			}
			kubeconfig = whoami.Kubeconfig
		}
		ran++
		t.Run(tc.Requestor+" "+strings.Join(tc.Args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", cacheDir}, tc.Args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.ExitCode {
				t.Errorf("exit code %d, kube-apiserver's kubectl exited %d", code, tc.ExitCode)
			}
			got, want := creationTimestamp.ReplaceAllString(stdout.String(), "<time>"), creationTimestamp.ReplaceAllString(tc.Stdout, "<time>")
			if got != want {
				t.Errorf("stdout\n got %q\nwant %q", got, want)
			}
			if stderr.String() != tc.Stderr {
				t.Errorf("stderr\n got %q\nwant %q", stderr.String(), tc.Stderr)
			}
		})
	}
	if ran < 12 {
		t.Fatalf("ran %d recorded cases, expected the whole recording", ran)
	}
}

// creationTimestamp is the one field of a SelfSubjectReview that differs
// from run to run.
var creationTimestamp = regexp.MustCompile(`"creationTimestamp": "[^"]*"`)
