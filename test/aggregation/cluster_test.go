package aggregation

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The binaries the test runs: the real kubectl (hack/tools/kubectl) and
// the wardle extension server, built once; kapi is built when the test
// runs against it.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := filepath.Abs("../..")
		if err != nil {
			buildErr = err
			return
		}
		if binDir, buildErr = os.MkdirTemp("", "kapi-aggregation-bin"); buildErr != nil {
			return
		}
		for _, b := range []struct{ dir, out, pkg string }{
			{filepath.Join(root, "hack", "tools", "kubectl"), "kubectl", "."},
			{".", "wardle", "./cmd/wardle"},
		} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, b.out), b.pkg)
			cmd.Dir = b.dir
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("building %s: %v\n%s", b.out, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cluster is the API server the extension is registered with.
type cluster struct {
	kubeconfig string // the admin's (system:masters)
	config     *rest.Config
	kubectlBin string
	// proxyCert and proxyKey are the front proxy's client certificate,
	// which the cluster presents to the extension.
	proxyCert, proxyKey string
	// cacheDir is kubectl's discovery cache, the test's own.
	cacheDir string
}

// startCluster starts kapi with the front-proxy flags kubeadm gives
// kube-apiserver, the PKI made here: kapi proxies to the extension with
// the front-proxy client certificate, and publishes the front-proxy CA
// and names in kube-system/extension-apiserver-authentication, where the
// extension reads whom to trust.
//
// With KAPI_AGGREGATION_ORACLE set to a kubeconfig, the test runs against
// that server instead (a kube-apiserver with the same flags, as the
// oracle's start.sh runs it), and records what it answered in testdata.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	bin := binaries(t)
	c := &cluster{kubectlBin: filepath.Join(bin, "kubectl"), cacheDir: t.TempDir()}
	if oracle := os.Getenv("KAPI_AGGREGATION_ORACLE"); oracle != "" {
		// The oracle's start.sh keeps its PKI in pki/ beside the
		// kubeconfig.
		c.kubeconfig = oracle
		pki := filepath.Join(filepath.Dir(oracle), "pki")
		c.proxyCert, c.proxyKey = filepath.Join(pki, "front-proxy-client.crt"), filepath.Join(pki, "front-proxy-client.key")
	} else {
		c.kubeconfig, c.proxyCert, c.proxyKey = startKapi(t, bin)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c.config = cfg
	return c
}

func startKapi(t *testing.T, bin string) (kubeconfig, proxyCert, proxyKey string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kapi"), "./cmd/kapi")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kapi: %v\n%s", err, out)
	}
	pki := t.TempDir()
	frontProxy := newCA(t, "front-proxy-ca")
	writeFile(t, filepath.Join(pki, "front-proxy-ca.crt"), frontProxy.PEM)
	clientCert, clientKey := frontProxy.issue(t, pki, "front-proxy-client")

	dataDir := t.TempDir()
	port := freePort(t)
	var log bytes.Buffer
	// As kubeadm writes them, flag=value.
	cmd := exec.Command(filepath.Join(bin, "kapi"),
		"--data-dir="+dataDir, "--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--requestheader-client-ca-file="+filepath.Join(pki, "front-proxy-ca.crt"),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file="+clientCert, "--proxy-client-key-file="+clientKey)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("kapi log:\n%s", log.String())
		}
	})

	kubeconfig = filepath.Join(dataDir, "admin.kubeconfig")
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("kapi exited before it was ready: %v\n%s", err, log.String())
		default:
		}
		if cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig); err == nil {
			if client, err := rest.HTTPClientFor(cfg); err == nil {
				if resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/readyz", port)); err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						return kubeconfig, clientCert, clientKey
					}
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("kapi was not ready in time")
	return "", "", ""
}

// kubectl runs kubectl as the admin, with stdin if not empty, and
// returns its output and error.
func (c *cluster) kubectl(stdin string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(c.kubectlBin, append(c.globalFlags(), args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// try runs kubectl and marks the test failed if it fails.
func (c *cluster) try(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, errOut, err := c.kubectl(stdin, args...)
	if err != nil {
		t.Errorf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// globalFlags are kubectl's flags for the cluster.
func (c *cluster) globalFlags() []string {
	return []string{"--kubeconfig", c.kubeconfig, "--cache-dir", c.cacheDir}
}

// mustKubectl runs kubectl and fails the test if it fails.
func (c *cluster) mustKubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, errOut, err := c.kubectl(stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// tokenKubeconfig writes a kubeconfig for the cluster that authenticates
// with a bearer token, as a pod's service account would.
func (c *cluster) tokenKubeconfig(t *testing.T, path, token string) {
	t.Helper()
	caData := c.config.CAData
	if len(caData) == 0 && c.config.CAFile != "" {
		var err error
		if caData, err = os.ReadFile(c.config.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["cluster"] = &clientcmdapi.Cluster{Server: c.config.Host, CertificateAuthorityData: caData}
	cfg.AuthInfos["extension"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["extension"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: "extension"}
	cfg.CurrentContext = "extension"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}
