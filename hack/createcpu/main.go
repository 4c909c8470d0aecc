// Command createcpu measures what one create costs a kapi: it starts the
// given binary on a fresh data dir, creates -n configmaps (1 KiB payload)
// in one namespace with -c workers, and prints the creates' wall time and
// the CPU time the server process used during them (from /proc, Linux
// only), per create.
//
// Throughput on a shared machine follows the machine's other load; the
// server's CPU time per create much less so. To compare two binaries, run
// two createcpu at once, one per binary, so that both see the same load:
//
//	createcpu -bin /tmp/kapi-before & createcpu -bin /tmp/kapi-after; wait
//
// -profile also saves an 8 s CPU profile of the server taken during the
// creates.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	bin := flag.String("bin", "", "kapi binary to start")
	n := flag.Int("n", 5000, "configmaps to create")
	c := flag.Int("c", 32, "concurrent workers")
	profile := flag.String("profile", "", "file to save a CPU profile of the server to")
	flag.Parse()
	if err := run(*bin, *n, *c, *profile); err != nil {
		log.Fatal(err)
	}
}

func run(bin string, n, workers int, profile string) error {
	dir, err := os.MkdirTemp("", "createcpu")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "--data-dir", dir, "--secure-port", strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	ctx := context.Background()
	client, err := waitReady(ctx, filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		return err
	}
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "createcpu"}}, metav1.CreateOptions{}); err != nil {
		return err
	}

	payload := strings.Repeat("x", 1024)
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	cpu0, err := cpuTime(cmd.Process.Pid)
	if err != nil {
		return err
	}
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"p": payload}}
				if _, err := client.CoreV1().ConfigMaps("createcpu").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	if profile != "" {
		data, err := client.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").Param("seconds", "8").DoRaw(ctx)
		if err != nil {
			return err
		}
		if err := os.WriteFile(profile, data, 0o644); err != nil {
			return err
		}
	}
	wg.Wait()
	wall := time.Since(start)
	cpu1, err := cpuTime(cmd.Process.Pid)
	if err != nil {
		return err
	}
	cpu := cpu1 - cpu0
	fmt.Printf("%s creates=%d errors=%d wall_s=%.2f per_s=%.0f server_cpu_s=%.2f server_cpu_us_per_create=%.0f\n",
		filepath.Base(bin), n, failed.Load(), wall.Seconds(), float64(n)/wall.Seconds(), cpu.Seconds(), float64(cpu.Microseconds())/float64(n))
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady returns an admin client once the server answers.
func waitReady(ctx context.Context, kubeconfig string) (*kubernetes.Clientset, error) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			continue
		}
		cfg.QPS = -1 // no client-side throttling
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		if body, err := client.RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err == nil && string(body) == "ok" {
			return client, nil
		}
	}
	return nil, fmt.Errorf("kapi was not ready within a minute")
}

// cpuTime is the user and system CPU time of a process so far.
func cpuTime(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which may hold spaces, in brackets.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, err := strconv.ParseInt(fields[11], 10, 64)
	if err != nil {
		return 0, err
	}
	stime, err := strconv.ParseInt(fields[12], 10, 64)
	if err != nil {
		return 0, err
	}
	const ticksPerSecond = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / ticksPerSecond, nil
}
