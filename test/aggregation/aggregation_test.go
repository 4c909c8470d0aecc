// Package aggregation checks kapi's aggregation layer the way users meet
// it: an extension API server built with k8s.io/apiserver (package
// wardle, run as its own process) registered with an APIService, then used
// with the real kubectl as if its group were built in.
//
// The same test runs against a real kube-apiserver with
// KAPI_AGGREGATION_ORACLE=<admin kubeconfig> (for instance the oracle's
// start.sh, which gives it kubeadm's front-proxy flags); it then writes
// what that server answered to testdata/oracle.json, which the run against
// kapi is compared with.
//
// It is its own module so that k8s.io/apiserver stays out of kapi's
// dependencies; hack/test.sh runs it.
package aggregation

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/aggregation/wardle"
)

const apiServiceName = "v1alpha1.wardle.example.com"

// observations are the answers the test compares between kube-apiserver
// (recorded in testdata/oracle.json) and kapi. Ports and ages are
// replaced by placeholders.
type observations struct {
	// APIResources is kubectl api-resources --api-group=wardle.example.com.
	APIResources string `json:"apiResources"`
	// Explain is kubectl explain flunders.spec.
	Explain string `json:"explain"`
	// Applied are kubectl apply's messages: create, then update.
	Applied []string `json:"applied"`
	// ServerSideApplied are kubectl apply --server-side's, by two managers.
	ServerSideApplied []string `json:"serverSideApplied"`
	// Get is kubectl get flunders' output.
	Get string `json:"get"`
	// Seen is how the extension saw a request kubectl made as bob.
	Seen wardle.Record `json:"seen"`
	// SeenDirect is how the extension saw a request made to it directly
	// with the front proxy's client certificate and headers.
	SeenDirect wardle.Record `json:"seenDirect"`
	// ForbiddenByCluster is the answer to a user without RBAC, by kubectl.
	ForbiddenByCluster string `json:"forbiddenByCluster"`
	// ForbiddenByExtension is the extension's answer, after a
	// TokenReview and a SubjectAccessReview with the cluster, to a service
	// account without RBAC that asks it directly.
	ForbiddenByExtension status `json:"forbiddenByExtension"`
	// Unavailable is the APIService's Available condition once the
	// extension has stopped, and the answer to a request for its group.
	Unavailable struct {
		Condition condition `json:"condition"`
		Code      int       `json:"code"`
		Body      string    `json:"body"`
		Kubectl   string    `json:"kubectl"`
	} `json:"unavailable"`
}

type status struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func TestExtensionServer(t *testing.T) {
	c := startCluster(t)
	oracle := os.Getenv("KAPI_AGGREGATION_ORACLE") != ""
	var got, want observations
	file := filepath.Join("testdata", "oracle.json")
	if oracle {
		// A real cluster keeps what the test makes: leave it as found.
		t.Cleanup(func() { cleanup(c) })
		cleanup(c)
		defer record(t, file, &got)
	} else {
		load(t, file, &want)
	}
	// same compares an observation with kube-apiserver's (against kapi).
	same := func(t *testing.T, what string, got, want any) {
		t.Helper()
		if !oracle && !reflect.DeepEqual(got, want) {
			t.Errorf("%s differs from kube-apiserver's:\n got: %s\nwant: %s", what, show(got), show(want))
		}
	}

	// What a cluster admin does: the extension's namespace, service
	// account and permissions, then a token for it (a pod would have it
	// projected).
	c.mustKubectl(t, readTestdata(t, "extension.yaml", nil), "apply", "-f", "-")
	token := strings.TrimSpace(c.mustKubectl(t, "", "create", "token", "apiserver", "-n", "wardle"))
	ext := startExtension(t, c, token)
	register := func(t *testing.T) {
		c.mustKubectl(t, readTestdata(t, "apiservice.yaml", map[string]string{
			"PORT":      strconv.Itoa(ext.port),
			"CA_BUNDLE": base64.StdEncoding.EncodeToString(ext.ca),
		}), "apply", "-f", "-")
	}
	register(t)
	if cond, err := waitForCondition(c, "True"); err != nil {
		t.Error(err)
	} else {
		t.Logf("%s is available: %+v", apiServiceName, cond)
	}
	path := "/apis/wardle.example.com/v1alpha1/namespaces/wardle-test/flunders"

	t.Run("discovery lists the group's resource", func(t *testing.T) {
		got.APIResources = c.try(t, "", "api-resources", "--api-group=wardle.example.com", "-o", "wide")
		if !strings.Contains(got.APIResources, "flunders") {
			t.Errorf("kubectl api-resources does not list flunders:\n%s", got.APIResources)
		}
		same(t, "kubectl api-resources", got.APIResources, want.APIResources)
	})

	t.Run("kubectl apply and get -w", func(t *testing.T) {
		// kubectl apply creates a flunder, then updates it while kubectl
		// get -w watches it.
		got.Applied = []string{c.try(t, readTestdata(t, "flunder.yaml", map[string]string{"REFERENCE": "first"}), "apply", "-f", "-")}
		watch := startWatch(t, c, "get", "flunder", "one", "-n", "wardle-test", "-w", "-o", `jsonpath={.spec.reference}{"\n"}`)
		watch.waitFor(t, "first")
		got.Applied = append(got.Applied, c.try(t, readTestdata(t, "flunder.yaml", map[string]string{"REFERENCE": "second"}), "apply", "-f", "-"))
		watch.waitFor(t, "second")
		same(t, "kubectl apply", got.Applied, want.Applied)
	})

	t.Run("server-side apply", func(t *testing.T) {
		// Two managers each own the field they applied.
		two := "apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata: {name: two, namespace: wardle-test}\n"
		got.ServerSideApplied = []string{
			c.try(t, two+"spec: {reference: one}\n", "apply", "--server-side", "-f", "-"),
			c.try(t, two+"spec: {color: blue}\n", "apply", "--server-side", "--field-manager=painter", "-f", "-"),
		}
		applied := c.try(t, "", "get", "flunder", "two", "-n", "wardle-test", "-o", `jsonpath={.spec.reference} {.spec.color} {.metadata.managedFields[*].manager}`)
		if want := "one blue kubectl painter"; applied != want {
			t.Errorf("after the server-side applies, reference, color and field managers are %q, want %q", applied, want)
		}
		same(t, "kubectl apply --server-side", got.ServerSideApplied, want.ServerSideApplied)
	})

	t.Run("kubectl get", func(t *testing.T) {
		got.Get = ageless(c.try(t, "", "get", "flunders", "-n", "wardle-test"))
		same(t, "kubectl get", got.Get, want.Get)
	})

	t.Run("kubectl explain", func(t *testing.T) {
		// kubectl explain reads the extension's OpenAPI, merged into the
		// cluster's.
		got.Explain = c.try(t, "", "explain", "flunders.spec")
		same(t, "kubectl explain", got.Explain, want.Explain)
	})

	t.Run("the extension sees the user, groups and extra", func(t *testing.T) {
		// The request reaches the extension as the user who made it,
		// with the groups and extra the front proxy's headers carry.
		c.try(t, "", "get", "flunders", "-n", "wardle-test", "--as=bob", "--as-group=wardle-viewers", "--as-user-extra=scopes=read")
		got.Seen = ext.lastRequestBy(t, "bob", path)
		same(t, "what the extension saw", got.Seen, want.Seen)
	})

	t.Run("the extension trusts the front proxy the cluster publishes", func(t *testing.T) {
		// What the aggregator sends, sent by the test: the extension
		// learnt the front proxy's CA, allowed names and headers from the
		// cluster's extension-apiserver-authentication ConfigMap.
		code := ext.getAsFrontProxy(t, c, path, "carol", []string{"wardle-viewers", "system:authenticated"}, map[string]string{"Scopes": "write"})
		if code != http.StatusOK {
			t.Errorf("the extension answered %d to the front proxy, want 200", code)
		}
		got.SeenDirect = ext.lastRequestBy(t, "carol", path)
		same(t, "what the extension saw", got.SeenDirect, want.SeenDirect)
	})

	t.Run("the cluster refuses a user without RBAC", func(t *testing.T) {
		// The cluster authorizes before it proxies: the extension never
		// sees the request.
		_, errOut, err := c.kubectl("", "get", "flunders", "-n", "wardle-test", "--as=nobody")
		if err == nil {
			t.Error("kubectl get flunders as nobody succeeded")
		}
		got.ForbiddenByCluster = errOut
		if seen := ext.requestsBy(t, "nobody"); len(seen) > 0 {
			t.Errorf("the extension saw requests of nobody, whom the cluster refused: %+v", seen)
		}
		same(t, "kubectl's error", got.ForbiddenByCluster, want.ForbiddenByCluster)
	})

	t.Run("the extension refuses by the cluster's SubjectAccessReview", func(t *testing.T) {
		// A service account without RBAC asks the extension directly; it
		// reviews the token and the access with the cluster, and refuses.
		nobody := strings.TrimSpace(c.try(t, "", "create", "token", "nobody", "-n", "wardle-test"))
		got.ForbiddenByExtension = ext.get(t, path, nobody)
		same(t, "the extension's answer", got.ForbiddenByExtension, want.ForbiddenByExtension)
	})

	t.Run("deleting the APIService removes the group from discovery", func(t *testing.T) {
		start := time.Now()
		c.try(t, "", "delete", "apiservice", apiServiceName)
		if err := waitForDiscovery(c, false); err != nil {
			t.Error(err)
		}
		// The issue asks for under a second; a duration is logged, never
		// asserted.
		t.Logf("the group left discovery %v after kubectl was asked to delete its APIService", time.Since(start))
		register(t)
		if _, err := waitForCondition(c, "True"); err != nil {
			t.Error(err)
		}
		if err := waitForDiscovery(c, true); err != nil {
			t.Error(err)
		}
	})

	t.Run("a stopped extension is unavailable", func(t *testing.T) {
		norm := func(s string) string { return ext.normalize(c, s) }
		ext.stop(t)
		cond, err := waitForCondition(c, "False")
		if err != nil {
			t.Error(err)
		}
		cond.Message = norm(cond.Message)
		got.Unavailable.Condition = cond
		// Until the server's proxy has learnt that the APIService is
		// unavailable, a request may still be sent to the extension and
		// fail to connect: the answer wanted is the one after.
		client, err := rest.HTTPClientFor(c.config)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(time.Minute)
		for {
			resp, err := client.Get(c.config.Host + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got.Unavailable.Code, got.Unavailable.Body = resp.StatusCode, norm(string(body))
			if !strings.Contains(string(body), "connection refused") || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		_, errOut, err := c.kubectl("", "get", "flunders", "-n", "wardle-test")
		if err == nil {
			t.Error("kubectl get flunders succeeded with the extension stopped")
		}
		got.Unavailable.Kubectl = norm(errOut)
		same(t, "the condition and answers", got.Unavailable, want.Unavailable)
	})
}

// record writes what kube-apiserver answered.
func record(t *testing.T, file string, got *observations) {
	if t.Failed() {
		t.Logf("not recording %s: the test failed against the oracle", file)
		return
	}
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, append(data, '\n'))
	t.Logf("recorded %s", file)
}

// load reads what kube-apiserver answered.
func load(t *testing.T, file string, want *observations) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("kube-apiserver's answers: %v", err)
	}
	if err := json.Unmarshal(data, want); err != nil {
		t.Fatal(err)
	}
}

func show(v any) string {
	data, _ := json.MarshalIndent(v, "      ", "  ")
	return string(data)
}

// cleanup deletes what the test makes, so that it can run again on the
// same oracle.
func cleanup(c *cluster) {
	_, _, _ = c.kubectl("", "delete", "--ignore-not-found", "--wait=false", "apiservice", apiServiceName)
	_, _, _ = c.kubectl("", "delete", "--ignore-not-found", "--wait=false",
		"clusterrolebinding/wardle:system:auth-delegator", "clusterrolebinding/wardle-apiserver",
		"clusterrole/wardle-apiserver", "clusterrole/wardle-flunder-viewer")
	_, _, _ = c.kubectl("", "delete", "--ignore-not-found", "--wait=false", "-n", "kube-system", "rolebinding/wardle-auth-reader")
	// The oracle runs no controllers: namespaces stay Terminating, so
	// their objects are deleted one by one and the finalizer is left.
	_, _, _ = c.kubectl("", "delete", "--ignore-not-found", "--wait=false", "-n", "wardle", "serviceaccount/apiserver", "service/api")
	_, _, _ = c.kubectl("", "delete", "--ignore-not-found", "--wait=false", "-n", "wardle-test", "serviceaccount/nobody", "rolebinding/wardle-viewers")
}

func readTestdata(t *testing.T, name string, values map[string]string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for k, v := range values {
		s = strings.ReplaceAll(s, "{{"+k+"}}", v)
	}
	return s
}

// ageless blanks kubectl get's AGE column.
func ageless(table string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 0 && fields[0] != "NAME" {
			fields[len(fields)-1] = "<age>"
		}
		b.WriteString(strings.Join(fields, " ") + "\n")
	}
	return b.String()
}

// waitForCondition polls the APIService until its Available condition
// has the status wanted, and returns it.
func waitForCondition(c *cluster, want string) (condition, error) {
	var last string
	start := time.Now()
	deadline := start.Add(time.Minute)
	for time.Now().Before(deadline) {
		out, _, err := c.kubectl("", "get", "apiservice", apiServiceName, "-o", "jsonpath={.status.conditions}")
		if err == nil && out != "" {
			last = out
			var conds []condition
			if err := json.Unmarshal([]byte(out), &conds); err != nil {
				return condition{}, fmt.Errorf("the APIService's conditions %q: %v", out, err)
			}
			for _, cond := range conds {
				if cond.Type == "Available" && cond.Status == want {
					return cond, nil
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return condition{}, fmt.Errorf("the APIService did not have Available=%s in %s; its conditions: %s", want, time.Since(start).Round(time.Second), last)
}

// waitForDiscovery polls the cluster's discovery until the group is in it
// (or out of it).
func waitForDiscovery(c *cluster, present bool) error {
	dc, err := discovery.NewDiscoveryClientForConfig(c.config)
	if err != nil {
		return err
	}
	start := time.Now()
	deadline := start.Add(time.Minute)
	for time.Now().Before(deadline) {
		groups, err := dc.ServerGroups()
		if err == nil && slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == wardle.GroupName }) == present {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s was not present=%v in discovery in %s", wardle.GroupName, present, time.Since(start).Round(time.Second))
}

// extension is the wardle server, running as a process.
type extension struct {
	cmd    *exec.Cmd
	exited chan error
	port   int
	ca     []byte // the serving CA, the APIService's caBundle
	record string // the file it records requests in
	log    *bytes.Buffer
}

// startExtension runs the wardle server on a free loopback port with a
// serving certificate for the Service's name, authenticating to the
// cluster with the service account token, and waits until it is ready.
func startExtension(t *testing.T, c *cluster, token string) *extension {
	t.Helper()
	dir := t.TempDir()
	serving := newCA(t, "wardle-serving-ca")
	cert, key := serving.issue(t, dir, "api.wardle.svc", "api.wardle.svc", "localhost", "127.0.0.1")
	kubeconfig := filepath.Join(dir, "kubeconfig")
	c.tokenKubeconfig(t, kubeconfig, token)
	e := &extension{port: freePort(t), ca: serving.PEM, record: filepath.Join(dir, "requests.jsonl"),
		exited: make(chan error, 1), log: &bytes.Buffer{}}
	e.cmd = exec.Command(filepath.Join(binaries(t), "wardle"),
		"--bind-address", "127.0.0.1", "--secure-port", strconv.Itoa(e.port),
		"--tls-cert-file", cert, "--tls-private-key-file", key,
		"--kubeconfig", kubeconfig, "--authentication-kubeconfig", kubeconfig, "--authorization-kubeconfig", kubeconfig,
		"--record-requests", e.record)
	e.cmd.Stdout, e.cmd.Stderr = e.log, e.log
	if err := e.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { e.exited <- e.cmd.Wait() }()
	t.Cleanup(func() {
		e.stop(t)
		if t.Failed() {
			t.Logf("wardle log:\n%s", e.log.String())
		}
	})

	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-e.exited:
			e.exited <- err
			t.Fatalf("wardle exited before it was ready: %v\n%s", err, e.log.String())
		default:
		}
		if resp, err := e.client(t).Get(e.url("/readyz")); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return e
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("wardle was not ready in time:\n%s", e.log.String())
	return nil
}

func (e *extension) url(path string) string {
	return fmt.Sprintf("https://127.0.0.1:%d%s", e.port, path)
}

func (e *extension) client(t *testing.T) *http.Client {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(e.ca) {
		t.Fatal("bad serving CA")
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// get asks the extension directly, with a bearer token, and returns the
// Status it answered with.
func (e *extension) get(t *testing.T, path, token string) status {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.url(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.client(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var s metav1.Status
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("the extension's answer to GET %s is not a Status: %v", path, err)
	}
	if int(s.Code) != resp.StatusCode {
		t.Errorf("the extension answered %d with a Status of code %d", resp.StatusCode, s.Code)
	}
	return status{Code: s.Code, Reason: string(s.Reason), Message: s.Message}
}

// getAsFrontProxy asks the extension directly as the cluster's front
// proxy does, for user with groups and extra, and returns the status code.
func (e *extension) getAsFrontProxy(t *testing.T, c *cluster, path, user string, groups []string, extra map[string]string) int {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(c.proxyCert, c.proxyKey)
	if err != nil {
		t.Fatal(err)
	}
	client := e.client(t)
	client.Transport.(*http.Transport).TLSClientConfig.Certificates = []tls.Certificate{cert}
	req, err := http.NewRequest(http.MethodGet, e.url(path), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Remote-User", user)
	for _, g := range groups {
		req.Header.Add("X-Remote-Group", g)
	}
	for k, v := range extra {
		req.Header.Add("X-Remote-Extra-"+k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// requestsBy returns the requests the extension recorded from user.
func (e *extension) requestsBy(t *testing.T, user string) []wardle.Record {
	t.Helper()
	f, err := os.Open(e.record)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var records []wardle.Record
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		var r wardle.Record
		if err := json.Unmarshal(scanner.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.User == user {
			records = append(records, r)
		}
	}
	return records
}

// lastRequestBy returns the last request of user for path.
func (e *extension) lastRequestBy(t *testing.T, user, path string) wardle.Record {
	t.Helper()
	records := e.requestsBy(t, user)
	for i := len(records) - 1; i >= 0; i-- {
		if records[i].Path == path {
			return records[i]
		}
	}
	t.Fatalf("the extension saw no request of %s for %s; it saw %+v", user, path, records)
	return wardle.Record{}
}

// stop ends the extension as a pod's termination would, with SIGTERM.
func (e *extension) stop(t *testing.T) {
	t.Helper()
	if e.cmd.ProcessState != nil {
		return
	}
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-e.exited:
		e.exited <- err
	case <-time.After(30 * time.Second):
		_ = e.cmd.Process.Kill()
	}
}

// normalize replaces what changes from run to run (the ports) with
// placeholders.
func (e *extension) normalize(c *cluster, s string) string {
	s = strings.ReplaceAll(s, strings.TrimPrefix(c.config.Host, "https://"), "<cluster>")
	return strings.ReplaceAll(s, ":"+strconv.Itoa(e.port), ":<port>")
}

// watcher is a kubectl get -w running in the background.
type watcher struct {
	lines chan string
}

func startWatch(t *testing.T, c *cluster, args ...string) *watcher {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, c.kubectlBin, append(c.globalFlags(), args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watcher{lines: make(chan string, 100)}
	go func() {
		scanner := bufio.NewScanner(out)
		for scanner.Scan() {
			w.lines <- scanner.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() && errOut.Len() > 0 {
			t.Logf("kubectl %s: %s", strings.Join(args, " "), errOut.String())
		}
	})
	return w
}

// waitFor reads the watch's lines until one is want.
func (w *watcher) waitFor(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(time.Minute)
	var seen []string
	for {
		select {
		case line, ok := <-w.lines:
			if !ok {
				t.Fatalf("kubectl get -w ended before it printed %q; it printed %q", want, seen)
			}
			if line == want {
				return
			}
			seen = append(seen, line)
		case <-timeout:
			t.Fatalf("kubectl get -w never printed %q; it printed %q", want, seen)
		}
	}
}
