// Command kapi-bench measures a Kubernetes API server: kapi, which it can
// start itself from a built binary, or any API server reachable through a
// kubeconfig, so that the two can be compared on the same machine.
//
// Usage:
//
//	kapi-bench [flags] startup   start --kapi-binary repeatedly: time to
//	                             /readyz, idle RSS, shutdown time
//	kapi-bench [flags] api       create, get and list configmaps against
//	                             --kubeconfig
//	kapi-bench [flags] all       startup, then api against a kapi it starts
//
// The output is one "key value" per line with "#" comment lines for context,
// the format (and key names) of the kube-apiserver baseline in
// reference/kube-apiserver-v1.37.1/bench-baseline.txt. Everything runs on
// loopback with bounded request counts; the bench imports no kapi package,
// it treats kapi as an external binary.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

// options are all flags; each suite takes the part it needs.
type options struct {
	mode     string
	startup  startupOptions
	api      apiOptions
	keepWork bool
}

const usageText = `Usage: kapi-bench [flags] startup|api|all

  startup  start --kapi-binary --repeat times on a fresh data dir and once on an
           existing one: time to /readyz, idle RSS, SIGTERM shutdown time
  api      against --kubeconfig: create --n configmaps with --c workers, get
           them, list them (json/protobuf, consistent/rv=0, whole/paged)
  all      startup, then api against a fresh kapi started from --kapi-binary

Output: "key value" lines and "#" comments on stdout; progress on stderr.

Flags:
`

func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := pflag.NewFlagSet("kapi-bench", pflag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, usageText)
		fs.PrintDefaults()
	}
	fs.SortFlags = false

	repeat := fs.Int("repeat", 3, "runs of each suite; per-run keys are prefixed runN., medians are printed without prefix")

	s := &o.startup
	fs.StringVar(&s.binary, "kapi-binary", "", "built kapi binary to start (startup, all)")
	fs.StringArrayVar(&s.extraArgs, "kapi-arg", nil, "extra argument for kapi, after the bench's --data-dir, --bind-address and --secure-port; repeatable")
	fs.DurationVar(&s.idle, "idle", 5*time.Second, "how long kapi idles after /readyz before its RSS is read")
	fs.DurationVar(&s.poll, "poll", 5*time.Millisecond, "interval between GET /readyz probes while kapi starts")
	fs.DurationVar(&s.startupTimeout, "startup-timeout", 60*time.Second, "give up on a start after this long")
	fs.DurationVar(&s.shutdownTimeout, "shutdown-timeout", 60*time.Second, "kill kapi if it has not exited this long after SIGTERM")
	fs.StringVar(&s.workDir, "work-dir", "", "parent of the temporary dir for data dirs and kapi logs (default: the system temp dir)")
	fs.BoolVar(&o.keepWork, "keep-work-dir", false, "keep the data dirs and kapi logs instead of removing them at the end")

	a := &o.api
	fs.StringVar(&a.kubeconfig, "kubeconfig", "", "kubeconfig of the server to measure (api)")
	fs.StringVar(&a.namespace, "namespace", "bench", "prefix of the per-run namespace <prefix>-<run>")
	fs.IntVar(&a.n, "n", 5000, "configmaps to create, then to get")
	fs.IntVar(&a.c, "c", 32, "concurrent workers for create and get")
	fs.IntVar(&a.pageSize, "page-size", 500, "limit of the paged lists")
	fs.IntVar(&a.payloadBytes, "payload-bytes", 1024, "size of each configmap's data")
	fs.BoolVar(&a.proto, "proto", false, "use protobuf for create and get (lists always measure both)")
	fs.BoolVar(&a.disableCompression, "disable-compression", false, "do not accept gzip-compressed responses")
	fs.BoolVar(&a.cleanup, "cleanup", false, "delete each run's configmaps and namespace after the run")
	fs.IntVar(&a.serverPID, "server-pid", 0, "pid of the API server, for its CPU time and RSS (api; all sets it)")
	fs.IntVar(&a.etcdPID, "etcd-pid", 0, "pid of a separate etcd, for its CPU time and RSS")
	fs.DurationVar(&a.requestTimeout, "request-timeout", 60*time.Second, "client timeout of each request")

	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return nil, errors.New("exactly one mode is needed: startup, api or all")
	}
	o.mode = fs.Arg(0)
	s.repeat, a.repeat = *repeat, *repeat

	switch o.mode {
	case "startup", "all":
		if s.binary == "" {
			return nil, fmt.Errorf("%s needs --kapi-binary", o.mode)
		}
	case "api":
		if a.kubeconfig == "" {
			return nil, errors.New("api needs --kubeconfig")
		}
	default:
		fs.Usage()
		return nil, fmt.Errorf("unknown mode %q", o.mode)
	}
	if *repeat < 1 || a.n < 1 || a.c < 1 || a.pageSize < 1 || a.payloadBytes < 0 {
		return nil, errors.New("--repeat, --n, --c and --page-size must be positive, --payload-bytes not negative")
	}
	return o, nil
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if errors.Is(err, pflag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kapi-bench:", err)
		os.Exit(2)
	}
	// Ctrl-C or SIGTERM cancel the suites; their deferred stops then end
	// any kapi the bench started before it exits.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	p := &printer{w: os.Stdout}
	p.comment("bench start %s go=%s GOMAXPROCS=%d cpus=%d args=%q",
		time.Now().UTC().Format(time.RFC3339), runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), os.Args[1:])
	p.comment("machine: %s", machineInfo())

	err = run(ctx, o, p)
	p.comment("bench end %s", time.Now().UTC().Format(time.RFC3339))
	if err == nil {
		err = p.err
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kapi-bench:", err)
		os.Exit(1)
	}
}

// run dispatches to the suites of o.mode.
func run(ctx context.Context, o *options, p *printer) error {
	if o.mode == "api" {
		return runAPI(ctx, o.api, p)
	}

	work, err := makeWorkDir(o.startup.workDir)
	if err != nil {
		return err
	}
	if o.keepWork {
		p.comment("work dir (kept): %s", work)
	} else {
		defer os.RemoveAll(work)
	}
	o.startup.workDir = work

	startupErr := runStartup(ctx, o.startup, p)
	var partial *partialError
	if startupErr != nil && !errors.As(startupErr, &partial) {
		return startupErr
	}
	if o.mode == "startup" {
		return startupErr
	}
	p.blank()
	return errors.Join(startupErr, runAPIOnKapi(ctx, o, p))
}

// runAPIOnKapi starts a fresh kapi and runs the api suite against it with
// its admin kubeconfig, measuring its CPU and memory through its pid, then
// reports how long it takes to stop after the load.
func runAPIOnKapi(ctx context.Context, o *options, p *printer) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	dataDir := filepath.Join(o.startup.workDir, "api")
	k, err := startKapi(o.startup.binary, dataDir, port, o.startup.extraArgs, dataDir+".log")
	if err != nil {
		return err
	}
	defer k.kill()
	if _, err := k.waitReady(ctx, o.startup.poll, o.startup.startupTimeout); err != nil {
		return withLog(err, k)
	}
	if err := k.waitFile(ctx, k.kubeconfig(), o.startup.startupTimeout); err != nil {
		return withLog(err, k)
	}
	p.comment("api server: %s pid %d data-dir %s", o.startup.binary, k.pid(), dataDir)

	a := o.api
	a.kubeconfig, a.serverPID = k.kubeconfig(), k.pid()
	if err := runAPI(ctx, a, p); err != nil {
		return withLog(err, k)
	}

	r := &result{}
	d, err := k.stop(o.startup.shutdownTimeout)
	if err != nil {
		return withLog(err, k)
	}
	r.addDuration("shutdown_after_api_s", d)
	p.result("", r)
	return nil
}
