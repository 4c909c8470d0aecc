package e2e

import (
	"bytes"
	"context"
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
)

// The end-to-end tests of this file run the built binaries: kapi itself,
// the real kubectl (built from k8s.io/kubectl by hack/tools/kubectl) and
// etcd (built from the go.etcd.io/etcd/server/v3 module kapi depends on).
// They are built once per test run.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// repoRoot is the directory of kapi's go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// binaries builds kapi, kubectl and etcd and returns their directory.
func binaries(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root := repoRoot(t)
		binDir, buildErr = os.MkdirTemp("", "kapi-e2e-bin")
		if buildErr != nil {
			return
		}
		// kapi records the commit it is built from, as a release build
		// would (its /version reports it), whatever GOFLAGS say.
		builds := []struct {
			dir, out, pkg string
			flags         []string
		}{
			{root, "kapi", "./cmd/kapi", []string{"-buildvcs=true"}},
			{filepath.Join(root, "hack", "tools", "kubectl"), "kubectl", ".", nil},
			{root, "etcd", "go.etcd.io/etcd/server/v3", nil},
		}
		for _, b := range builds {
			args := append(append([]string{"build"}, b.flags...), "-o", filepath.Join(binDir, b.out), b.pkg)
			cmd := exec.Command("go", args...)
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

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// kapiProcess is a kapi binary running in the background.
type kapiProcess struct {
	cmd        *exec.Cmd
	dataDir    string
	port       int
	kubeconfig string
	log        *bytes.Buffer
	exited     chan error
}

func startKapiBinary(t *testing.T, dataDir string, args ...string) *kapiProcess {
	t.Helper()
	bin := binaries(t)
	port := freePort(t)
	p := &kapiProcess{dataDir: dataDir, port: port, log: &bytes.Buffer{}, exited: make(chan error, 1),
		kubeconfig: filepath.Join(dataDir, "admin.kubeconfig")}
	args = append([]string{"--data-dir", dataDir, "--secure-port", strconv.Itoa(port)}, args...)
	p.cmd = exec.Command(filepath.Join(bin, "kapi"), args...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("kapi log:\n%s", p.log.String())
		}
	})
	p.waitReady(t)
	return p
}

func (p *kapiProcess) restConfig(t *testing.T) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", p.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func (p *kapiProcess) waitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.exited:
			t.Fatalf("kapi exited before it was ready: %v\n%s", err, p.log.String())
		default:
		}
		if _, err := os.Stat(p.kubeconfig); err == nil {
			cfg := p.restConfig(t)
			if client, err := rest.HTTPClientFor(cfg); err == nil {
				if resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/readyz", p.port)); err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						return
					}
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("kapi was not ready in time\n%s", p.log.String())
}

// stop sends SIGTERM and waits for a clean exit.
func (p *kapiProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("kapi exited with %v after SIGTERM\n%s", err, p.log.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("kapi did not stop after SIGTERM")
	}
}

// kubectl runs the real kubectl against p and returns its output.
func (p *kapiProcess) kubectl(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(binaries(t), "kubectl"), append([]string{"--kubeconfig", p.kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mustKubectl is kubectl that fails the test on error.
func (p *kapiProcess) mustKubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := p.kubectl(t, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
