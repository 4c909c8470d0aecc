package e2e

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/fakekubelet"
	"github.com/kapi-dev/kapi/internal/required"
)

// TestKubectlReachesIntoPods drives `kubectl logs`, `exec`,
// `port-forward` and proxy GETs through the kapi binary to a fake
// kubelet over HTTPS, with kube-apiserver's kubelet flags: kapi shows
// the kubelet a client certificate (--kubelet-client-certificate,
// --kubelet-client-key) and verifies the kubelet's
// (--kubelet-certificate-authority). kubectl 1.37 speaks WebSockets
// first, which kapi translates to the kubelet's SPDY; with WebSockets
// switched off in kubectl, SPDY goes through untouched.
func TestKubectlReachesIntoPods(t *testing.T) {
	// kube-apiserver proxies only to global unicast addresses, so the
	// kubelet, the node and the pod listen on one of this machine's.
	address := globalUnicastAddress(t)
	dir := t.TempDir()
	ca, clientCert, clientKey := clientCertificate(t, dir, "kube-apiserver-kubelet-client")
	kubelet := fakekubelet.Start(t, fakekubelet.Options{ClientCAs: ca, Address: address})
	kubeletCA := filepath.Join(dir, "kubelet-ca.crt")
	if err := os.WriteFile(kubeletCA, kubelet.CertificatePEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startKapiBinary(t, filepath.Join(dir, "data"),
		"--kubelet-client-certificate", clientCert, "--kubelet-client-key", clientKey,
		"--kubelet-certificate-authority", kubeletCA,
		"--kubelet-preferred-address-types", "InternalIP,Hostname")

	// What a pod's port 8080 leads to: a web server on the same address.
	web := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "web %s %s?%s", r.Method, r.URL.Path, r.URL.RawQuery)
	})}
	webListener, err := net.Listen("tcp", net.JoinHostPort(address, "0"))
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Serve(webListener) }()
	t.Cleanup(func() { _ = web.Close() })
	_, webPort, _ := net.SplitHostPort(webListener.Addr().String())
	kubelet.ForwardPort(8080, webListener.Addr().String())

	p.mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Node
metadata: {name: node-1}
status:
  addresses:
  - {type: Hostname, address: node-1.invalid}
  - {type: InternalIP, address: %s}
  daemonEndpoints:
    kubeletEndpoint: {Port: %d}
---
# The pods' service account, which kube's controller manager would create.
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: default}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: node-1
  containers:
  - name: app
    image: example.com/app
    ports: [{containerPort: %s}]
---
apiVersion: v1
kind: Pod
metadata: {name: two, namespace: default}
spec:
  nodeName: node-1
  containers:
  - {name: first, image: example.com/app}
  - {name: second, image: example.com/app}
`, address, kubelet.Port, webPort), "create", "-f", "-")
	p.mustKubectl(t, "", "patch", "pod", "web", "--subresource=status", "--type=merge",
		"-p", fmt.Sprintf(`{"status":{"phase":"Running","podIP":%q,"podIPs":[{"ip":%q}]}}`, address, address))
	kubelet.AppendLog("default", "web", "app", "one", "two", "three")

	t.Run("logs reads the container's log from its kubelet", func(t *testing.T) {
		if out := p.mustKubectl(t, "", "logs", "web"); out != "one\ntwo\nthree\n" {
			t.Errorf("logs = %q", out)
		}
		if out := p.mustKubectl(t, "", "logs", "web", "--tail=1", "--timestamps"); out != "2026-01-02T03:04:05.000000000Z three\n" {
			t.Errorf("logs --tail=1 --timestamps = %q", out)
		}
		last := kubelet.Requests()[len(kubelet.Requests())-1]
		if last.URL.Path != "/containerLogs/default/web/app" || last.URL.RawQuery != "tailLines=1&timestamps=true" {
			t.Errorf("kubelet was asked %s?%s", last.URL.Path, last.URL.RawQuery)
		}
		if last.ClientCertificate != "kube-apiserver-kubelet-client" {
			t.Errorf("kapi showed the kubelet the certificate of %q", last.ClientCertificate)
		}
	})

	t.Run("a log read that names no container or a wrong one, or bad options, is refused", func(t *testing.T) {
		for _, tc := range []struct{ path, want string }{
			{"two/log", "a container name must be specified for pod two, choose one of: [first second]"},
			{"web/log?container=nope", "container nope is not valid for pod web"},
			{"web/log?tailLines=-1", `PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
			{"web/log?sinceSeconds=0&limitBytes=0", "* limitBytes: Invalid value: 0: must be greater than 0\n* sinceSeconds: Invalid value: 0: must be greater than 0"},
		} {
			out, err := p.kubectl(t, "", "get", "--raw", "/api/v1/namespaces/default/pods/"+tc.path)
			if err == nil || !strings.Contains(out, tc.want) {
				t.Errorf("GET %s: %v\n%s\nwant %s", tc.path, err, out, tc.want)
			}
		}
	})

	t.Run("logs -f follows the log as it grows", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "kubectl"), "--kubeconfig", p.kubeconfig, "logs", "-f", "web")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		lines := bufio.NewScanner(stdout)
		next := func() string {
			if !lines.Scan() {
				t.Fatalf("log ended: %v", lines.Err())
			}
			return lines.Text()
		}
		for _, want := range []string{"one", "two", "three"} {
			if got := next(); got != want {
				t.Fatalf("line %q, want %q", got, want)
			}
		}
		kubelet.AppendLog("default", "web", "app", "four")
		if got := next(); got != "four" {
			t.Errorf("followed line %q, want four", got)
		}
	})

	for _, transport := range []struct{ name, env string }{
		{"WebSockets", "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true"},
		{"SPDY", "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false"},
	} {
		t.Run("exec over "+transport.name+" carries stdin, stdout, stderr and the exit code", func(t *testing.T) {
			out, code := kubectlWithEnv(t, p, transport.env, "", "exec", "web", "--", "echo", "hello", "pod")
			if out != "hello pod\n" || code != 0 {
				t.Errorf("exec echo = %q, exit %d", out, code)
			}
			out, code = kubectlWithEnv(t, p, transport.env, "some input\n", "exec", "-i", "web", "--", "read-then-exit", "3")
			if out != "some input\ncommand terminated with exit code 3\n" || code != 3 {
				t.Errorf("exec -i read-then-exit 3 = %q, exit %d", out, code)
			}
			out, code = kubectlWithEnv(t, p, transport.env, "", "exec", "web", "--", "warn", "to stderr")
			if out != "to stderr\n" || code != 0 {
				t.Errorf("exec warn = %q, exit %d", out, code)
			}
		})
	}

	for _, transport := range []struct{ name, env string }{
		{"WebSockets", "KUBECTL_PORT_FORWARD_WEBSOCKETS=true"},
		{"SPDY", "KUBECTL_PORT_FORWARD_WEBSOCKETS=false"},
	} {
		t.Run("port-forward over "+transport.name+" reaches the pod's port", func(t *testing.T) {
			local := portForward(t, p, transport.env, "pod/web", ":8080")
			for i := range 2 {
				resp, err := http.Get(fmt.Sprintf("http://%s/hello?n=%d", local, i))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want := fmt.Sprintf("web GET /hello?n=%d", i); string(body) != want {
					t.Errorf("through the forwarded port: %q, want %q", body, want)
				}
			}
		})
	}

	t.Run("kubectl's WebSockets are served, not refused into its SPDY fallback", func(t *testing.T) {
		out, code := kubectlWithEnv(t, p, "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true", "", "-v=4", "exec", "web", "--", "echo", "hi")
		if code != 0 || strings.Contains(strings.ToLower(out), "fallback") {
			t.Errorf("exec fell back to SPDY (exit %d):\n%s", code, out)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "kubectl"), "--kubeconfig", p.kubeconfig, "-v=4", "port-forward", "pod/web", ":8080")
		cmd.Env = append(os.Environ(), "KUBECTL_PORT_FORWARD_WEBSOCKETS=true")
		var log strings.Builder
		cmd.Stderr = &log
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cancel(); _ = cmd.Wait() }()
		lines := bufio.NewScanner(stdout)
		if !lines.Scan() {
			t.Fatalf("port-forward did not start")
		}
		m := regexp.MustCompile(`(127\.0\.0\.1:\d+)`).FindStringSubmatch(lines.Text())
		if m == nil {
			t.Fatalf("port-forward said %q", lines.Text())
		}
		resp, err := http.Get("http://" + m[1] + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cancel()
		_ = cmd.Wait()
		if strings.Contains(strings.ToLower(log.String()), "fallback") {
			t.Errorf("port-forward fell back to SPDY:\n%s", log.String())
		}
	})

	t.Run("pods/proxy and nodes/proxy pass requests on", func(t *testing.T) {
		if out := p.mustKubectl(t, "", "get", "--raw", "/api/v1/namespaces/default/pods/web/proxy/some/path?x=1"); out != "web GET /some/path?x=1" {
			t.Errorf("pods/proxy: %q", out)
		}
		if out := p.mustKubectl(t, "", "get", "--raw", "/api/v1/namespaces/default/pods/http:web:"+webPort+"/proxy/"); out != "web GET /?" {
			t.Errorf("pods/proxy with scheme and port: %q", out)
		}
		// The kubelet's own port is reached with the kubelet client
		// certificate; its containerLogs path shows the proxy got there.
		if out := p.mustKubectl(t, "", "get", "--raw", "/api/v1/nodes/node-1/proxy/containerLogs/default/web/app?tailLines=2"); out != "three\nfour\n" {
			t.Errorf("nodes/proxy to the kubelet: %q", out)
		}
	})

	t.Run("services/proxy reaches a ready endpoint of the service's EndpointSlices", func(t *testing.T) {
		// No controller here writes EndpointSlices: the test writes the one
		// the EndpointSlice controller would, for a service whose named
		// port leads to the web server.
		p.mustKubectl(t, fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: %[2]s}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-1
  namespace: default
  labels: {kubernetes.io/service-name: web}
addressType: IPv4
ports: [{name: http, port: %[2]s, protocol: TCP}]
endpoints:
- addresses: [%[1]q]
  conditions: {ready: true}
  targetRef: {kind: Pod, name: web, namespace: default}
`, address, webPort), "create", "-f", "-")
		for path, want := range map[string]string{
			"/api/v1/namespaces/default/services/web:80/proxy/some/path?x=1": "web GET /some/path?x=1",
			"/api/v1/namespaces/default/services/web:http/proxy/":            "web GET /?",
			"/api/v1/namespaces/default/services/http:web:http/proxy/a?b=c":  "web GET /a?b=c",
		} {
			if out := p.mustKubectl(t, "", "get", "--raw", path); out != want {
				t.Errorf("GET %s: %q, want %q", path, out, want)
			}
		}
		// A port name no endpoint has (without one, the unnamed port) is
		// kube-apiserver's 503, and so is a port number the service lacks.
		for path, want := range map[string]string{
			"/api/v1/namespaces/default/services/web/proxy/":      `no endpoints available for service "web"`,
			"/api/v1/namespaces/default/services/web:nope/proxy/": `no endpoints available for service "web"`,
			"/api/v1/namespaces/default/services/web:81/proxy/":   `no service port 81 found for service "web"`,
		} {
			if out, err := p.kubectl(t, "", "get", "--raw", path); err == nil || !strings.Contains(out, "(ServiceUnavailable): "+want) {
				t.Errorf("GET %s: %v\n%s", path, err, out)
			}
		}
	})

	t.Run("a user who may get pods/exec but not create it cannot exec over WebSockets", func(t *testing.T) {
		p.mustKubectl(t, "", "create", "role", "exec-get", "--verb=get", "--resource=pods,pods/exec")
		p.mustKubectl(t, "", "create", "rolebinding", "exec-get", "--role=exec-get", "--user=reader")
		out, code := kubectlWithEnv(t, p, "KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true", "", "--as=reader", "exec", "web", "--", "echo", "hi")
		if code == 0 || !strings.Contains(out, `pods "web" is forbidden`) {
			t.Errorf("exec as a user without create: exit %d\n%s", code, out)
		}
	})
}

// kubectlWithEnv runs kubectl with one more environment variable and
// returns its combined output and exit code.
func kubectlWithEnv(t *testing.T, p *kapiProcess, env, stdin string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "kubectl"), append([]string{"--kubeconfig", p.kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), env)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exitErr):
		return string(out), exitErr.ExitCode()
	}
	t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	return "", 0
}

// portForward starts `kubectl port-forward` and returns the local
// address it listens on; it is stopped when the test ends.
func portForward(t *testing.T, p *kapiProcess, env string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "kubectl"), append([]string{"--kubeconfig", p.kubeconfig, "port-forward"}, args...)...)
	cmd.Env = append(os.Environ(), env)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	forwarding := regexp.MustCompile(`^Forwarding from (127\.0\.0\.1:\d+) ->`)
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if m := forwarding.FindStringSubmatch(lines.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return m[1]
		}
	}
	t.Fatalf("port-forward did not start: %s", stderr.String())
	return ""
}

// globalUnicastAddress is an IPv4 address of this machine that is global
// unicast, which kube-apiserver's proxies require of pods and nodes.
func globalUnicastAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		required.Missing(t, "a network interface", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	required.Missing(t, "a global unicast IPv4 address on this machine", fmt.Errorf("addresses: %v", addrs))
	return ""
}

// clientCertificate writes a CA and a client certificate it signed for
// cn, and returns the CA's pool and the certificate's and key's files.
func clientCertificate(t *testing.T, dir, cn string) (*x509.CertPool, string, string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubelet-client-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "kubelet-client.crt"), filepath.Join(dir, "kubelet-client.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return pool, certFile, keyFile
}
