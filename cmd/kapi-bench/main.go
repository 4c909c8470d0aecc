// Command kapi-bench measures a Kubernetes API server: kapi, which it can
// start itself from a built binary, or any API server reachable through a
// kubeconfig, so that the two can be compared on the same machine.
//
// Usage:
//
//	kapi-bench [flags] startup   start --kapi-binary repeatedly: time to
//	                             /readyz, idle RSS, shutdown time
//	kapi-bench [flags] api       create, get, update and list configmaps
//	kapi-bench [flags] watch     watch fan-out: W watchers, E updates,
//	                             time until all are delivered
//	kapi-bench [flags] biglist   the server's peak RSS during one unpaged
//	                             list of many configmaps
//	kapi-bench [flags] crd       CustomResourceDefinitions: time until
//	                             served, restart and discovery with many
//	                             installed, custom resource throughput
//	kapi-bench [flags] admission pod creates through admission: the
//	                             server's plugins, webhooks, policies
//	kapi-bench [flags] apf       API priority and fairness: get and create
//	                             throughput, a well-behaved user's latency
//	                             during another user's flood
//	kapi-bench [flags] all       startup, then api against a kapi it starts
//
// api, watch and biglist measure the server of --kubeconfig or, without
// one, a fresh kapi they start from --kapi-binary.
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
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/pflag"
)

// options are all flags; each suite takes the part it needs.
type options struct {
	mode       string
	cpuProfile string
	startup    startupOptions
	api        apiOptions
	watch      watchOptions
	biglist    biglistOptions
	crd        crdOptions
	admission  admissionOptions
	apf        apfOptions
	keepWork   bool
}

const usageText = `Usage: kapi-bench [flags] startup|api|watch|biglist|crd|admission|apf|all

  startup  start --kapi-binary --repeat times on a fresh data dir and once on an
           existing one: time to /readyz, idle RSS, SIGTERM shutdown time
  api      create --n configmaps with --c workers, get them, update them, list
           them (json/protobuf, consistent/rv=0, whole/paged)
  watch    for each --watchers W: W watches from the current resourceVersion,
           then --events updates by --writers writers; time until every
           watcher has every event, delivery latency, failed watchers
  biglist  create --n (default 50000) small configmaps, then the server's peak
           RSS during one unpaged list of them all, in json and protobuf
  crd      against kapis it starts from --kapi-binary on one data dir: time from
           creating a CRD to its resources being served; --crds CRDs installed,
           then a restart: time to /readyz, idle RSS, discovery of /apis, one
           more CRD until discovery and OpenAPI show it; create and list of
           --n custom resources beside --n configmaps
  admission create --pods pods with --c workers in each run's namespace, through
           the server's admission plugins and --webhooks validating webhooks
           served by the bench, or --policies ValidatingAdmissionPolicies
  apf      create and get --n configmaps as in api, then a well-behaved user's gets
           at --steady-rate, alone and beside a flood of --flood-c workers of
           another user, each user in a FlowSchema and priority level of its own:
           the well-behaved user's p50/p99 and the flood's 429s (run against a
           server with and without --enable-priority-and-fairness)
  all      startup, then api against a fresh kapi started from --kapi-binary

api, watch, biglist, admission and apf run against --kubeconfig, or, without it, against a
fresh kapi they start from --kapi-binary (and restart, for biglist).

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
	fs.StringVar(&s.binary, "kapi-binary", "", "built kapi binary to start (startup, all; api, watch and biglist without --kubeconfig)")
	fs.StringArrayVar(&s.extraArgs, "kapi-arg", nil, "extra argument for kapi, after the bench's --data-dir, --bind-address and --secure-port; repeatable")
	fs.DurationVar(&s.idle, "idle", 5*time.Second, "how long kapi idles after /readyz before its RSS is read")
	fs.DurationVar(&s.poll, "poll", 5*time.Millisecond, "interval between GET /readyz probes while kapi starts (crd: and between the polls of a CRD's state)")
	fs.DurationVar(&s.startupTimeout, "startup-timeout", 60*time.Second, "give up on a start after this long")
	fs.DurationVar(&s.shutdownTimeout, "shutdown-timeout", 60*time.Second, "kill kapi if it has not exited this long after SIGTERM")
	fs.StringVar(&s.workDir, "work-dir", "", "parent of the temporary dir for data dirs and kapi logs (default: the system temp dir)")
	fs.BoolVar(&o.keepWork, "keep-work-dir", false, "keep the data dirs and kapi logs instead of removing them at the end")
	fs.StringVar(&o.cpuProfile, "client-cpu-profile", "", "write the bench's own CPU profile to this file, to check what the client spends")

	a := &o.api
	fs.StringVar(&a.kubeconfig, "kubeconfig", "", "kubeconfig of the server to measure (api, watch, biglist)")
	fs.StringVar(&a.namespace, "namespace", "bench", "prefix of the per-run namespace <prefix>-<run>")
	fs.IntVar(&a.n, "n", 5000, "configmaps to create, then to get and update (biglist: default 50000)")
	fs.IntVar(&a.c, "c", 32, "concurrent workers for create, get and update (biglist: default 64)")
	fs.IntVar(&a.pageSize, "page-size", 500, "limit of the paged lists")
	fs.IntVar(&a.payloadBytes, "payload-bytes", 1024, "size of each configmap's data (biglist: default 64)")
	fs.BoolVar(&a.proto, "proto", false, "use protobuf for create, get, update and the watch's writes (lists always measure both)")
	fs.BoolVar(&a.disableCompression, "disable-compression", false, "do not accept gzip-compressed responses")
	fs.BoolVar(&a.cleanup, "cleanup", false, "delete each run's configmaps and namespace after the run")
	fs.IntVar(&a.serverPID, "server-pid", 0, "pid of the API server, for its CPU time and RSS (api, watch, biglist; set when the bench starts kapi)")
	fs.IntVar(&a.etcdPID, "etcd-pid", 0, "pid of a separate etcd, for its CPU time and RSS")
	fs.DurationVar(&a.requestTimeout, "request-timeout", 60*time.Second, "client timeout of each request")
	fs.BoolVar(&a.asBoundUser, "as-bound-user", false, "api: run as a service account that a RoleBinding to ClusterRole edit allows in each run's namespace, instead of as the kubeconfig's user")
	fs.IntVar(&a.otherBindings, "other-bindings", 1000, "api --as-bound-user: unrelated Roles and RoleBindings to create first")

	w := &o.watch
	fs.IntSliceVar(&w.watchers, "watchers", []int{100, 1000}, "watch: one fan-out per value, with that many watchers; a list (100,1000) or repeated")
	fs.IntVar(&w.events, "events", 1000, "watch: updates, so events per watcher, of each fan-out")
	fs.IntVar(&w.writers, "writers", 4, "watch: concurrent writers making the updates")
	fs.Float64Var(&w.writeRate, "write-rate", 0, "watch: updates per second of all writers together; 0 for as fast as they go")
	fs.IntVar(&w.objects, "watch-objects", 100, "watch: configmaps the updates go to in turn")
	fs.IntVar(&w.perClient, "watchers-per-connection", 100, "watch: watchers sharing one HTTP/2 connection (Go servers allow 250 streams per connection)")
	fs.DurationVar(&w.timeout, "watch-timeout", 2*time.Minute, "watch: give up waiting for delivery this long after the last update")

	b := &o.biglist
	fs.DurationVar(&b.interval, "rss-interval", 5*time.Millisecond, "biglist: interval between samples of the server's VmRSS")
	addCRDFlags(fs, &o.crd)
	addAdmissionFlags(fs, &o.admission)
	addAPFFlags(fs, &o.apf)
	settle := fs.Duration("settle", 2*time.Second, "watch, biglist: pause before each fan-out and each big list, for the server to finish earlier work")

	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return nil, errors.New("exactly one mode is needed: startup, api, watch, biglist, crd, admission, apf or all")
	}
	o.mode = fs.Arg(0)
	s.repeat, a.repeat = *repeat, *repeat
	w.settle = *settle
	b.settle = *settle

	switch o.mode {
	case "startup", "all", "crd":
		if s.binary == "" {
			return nil, fmt.Errorf("%s needs --kapi-binary", o.mode)
		}
	case "api", "watch", "biglist", "admission", "apf":
		if a.kubeconfig == "" && s.binary == "" {
			return nil, fmt.Errorf("%s needs --kubeconfig, or --kapi-binary to start a kapi of its own", o.mode)
		}
	default:
		fs.Usage()
		return nil, fmt.Errorf("unknown mode %q", o.mode)
	}
	if o.mode == "biglist" {
		if a.kubeconfig != "" && a.serverPID <= 0 {
			return nil, errors.New("biglist measures the server's memory: with --kubeconfig it needs --server-pid")
		}
		// A big list of small objects, created fast.
		if !fs.Changed("n") {
			a.n = 50000
		}
		if !fs.Changed("c") {
			a.c = 64
		}
		if !fs.Changed("payload-bytes") {
			a.payloadBytes = 64
		}
	}
	if *repeat < 1 || a.n < 1 || a.c < 1 || a.pageSize < 1 || a.payloadBytes < 0 {
		return nil, errors.New("--repeat, --n, --c and --page-size must be positive, --payload-bytes not negative")
	}
	if len(w.watchers) == 0 || slices.Min(w.watchers) < 1 || w.events < 1 || w.writers < 1 || w.objects < 1 || w.perClient < 1 {
		return nil, errors.New("--watchers, --events, --writers, --watch-objects and --watchers-per-connection must be positive")
	}
	if w.writeRate < 0 {
		return nil, errors.New("--write-rate must not be negative")
	}
	if o.mode == "crd" {
		// Memory settles slower after a thousand CRDs than after a start.
		if !fs.Changed("idle") {
			s.idle = 10 * time.Second
		}
		if err := o.crd.validate(); err != nil {
			return nil, err
		}
	}
	if b.interval <= 0 {
		return nil, errors.New("--rss-interval must be positive")
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

	stopProfile := func() {}
	if o.cpuProfile != "" {
		if stopProfile, err = startCPUProfile(o.cpuProfile); err != nil {
			fmt.Fprintln(os.Stderr, "kapi-bench:", err)
			os.Exit(2)
		}
	}
	err = run(ctx, o, p)
	stopProfile()
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
	serverMode := o.mode == "api" || o.mode == "watch" || o.mode == "biglist" || o.mode == "admission" || o.mode == "apf"
	if serverMode && o.api.kubeconfig != "" {
		return runServerSuite(ctx, o, p)
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
	if o.mode == "crd" {
		return runCRD(ctx, o, p)
	}
	if serverMode {
		return runOnKapi(ctx, o, p)
	}

	startupErr := runStartup(ctx, o.startup, p)
	var partial *partialError
	if startupErr != nil && !errors.As(startupErr, &partial) {
		return startupErr
	}
	if o.mode == "startup" {
		return startupErr
	}
	p.blank()
	return errors.Join(startupErr, runOnKapi(ctx, o, p))
}

// runServerSuite runs the suite of a mode that talks to the API (api,
// watch or biglist) against o.api.kubeconfig.
func runServerSuite(ctx context.Context, o *options, p *printer) error {
	switch o.mode {
	case "watch":
		return runWatch(ctx, o.api, o.watch, p)
	case "biglist":
		return runBiglist(ctx, o.api, o.biglist, p)
	case "admission":
		return runAdmission(ctx, o.api, o.admission, p)
	case "apf":
		return runAPF(ctx, o.api, o.apf, p)
	default:
		return runAPI(ctx, o.api, p)
	}
}

// runOnKapi starts a fresh kapi and runs the suite of o.mode against it
// with its admin kubeconfig, measuring its CPU and memory through its pid,
// then reports how long it takes to stop after the load
// (shutdown_after_<mode>_s; "all" runs the api suite).
func runOnKapi(ctx context.Context, o *options, p *printer) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	dataDir := filepath.Join(o.startup.workDir, "api")
	start := func(ctx context.Context, logName string) (*kapiProcess, error) {
		k, err := startKapi(o.startup.binary, dataDir, port, o.startup.extraArgs, filepath.Join(o.startup.workDir, logName))
		if err != nil {
			return nil, err
		}
		if _, err := k.waitReady(ctx, o.startup.poll, o.startup.startupTimeout); err != nil {
			k.kill()
			return nil, withLog(err, k)
		}
		if err := k.waitFile(ctx, k.kubeconfig(), o.startup.startupTimeout); err != nil {
			k.kill()
			return nil, withLog(err, k)
		}
		return k, nil
	}
	k, err := start(ctx, "api.log")
	if err != nil {
		return err
	}
	// k changes on a restart: the deferred kill must see the last one.
	defer func() { k.kill() }()
	p.comment("api server: %s pid %d data-dir %s", o.startup.binary, k.pid(), dataDir)

	restarts := 0
	o.biglist.restart = func(ctx context.Context) (int, error) {
		d, err := k.stop(o.startup.shutdownTimeout)
		if err != nil {
			return 0, withLog(err, k)
		}
		restarts++
		next, err := start(ctx, fmt.Sprintf("api-restart-%d.log", restarts))
		if err != nil {
			return 0, err
		}
		k = next
		p.comment("server restarted: stopped in %.3fs, pid %d ready %.3fs after start", d.Seconds(), k.pid(), time.Since(k.started).Seconds())
		return k.pid(), nil
	}
	o.api.kubeconfig, o.api.serverPID = k.kubeconfig(), k.pid()
	mode := o.mode
	if mode == "all" {
		mode = "api"
	}
	if err := runServerSuite(ctx, o, p); err != nil {
		return withLog(err, k)
	}

	r := &result{}
	d, err := k.stop(o.startup.shutdownTimeout)
	if err != nil {
		return withLog(err, k)
	}
	r.addDuration("shutdown_after_"+mode+"_s", d)
	p.result("", r)
	return nil
}

// startCPUProfile profiles the bench itself into path until the returned
// function is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
