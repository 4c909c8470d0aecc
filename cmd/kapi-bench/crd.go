package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// crdOptions configures the crd suite. It also uses the startup options
// (--kapi-binary, --poll, --idle...) and the api options (--n, --c,
// --payload-bytes, --namespace) for its throughput phase.
type crdOptions struct {
	crds      int           // CRDs installed before the restart
	latency   int           // the first of them, created one at a time and timed until served
	workers   int           // concurrent creators of the others
	perGroup  int           // CRDs per API group
	discovery int           // requests of each discovery measurement
	timeout   time.Duration // give up on one condition (served, established, discovered) after this
}

func addCRDFlags(fs *pflag.FlagSet, c *crdOptions) {
	fs.IntVar(&c.crds, "crds", 1000, "crd: CRDs installed before the restart, discovery and throughput phases")
	fs.IntVar(&c.latency, "crd-latency", 20, "crd: the first CRDs, created one at a time on an empty server, each timed until its resources are served")
	fs.IntVar(&c.workers, "crd-workers", 4, "crd: concurrent workers creating the other CRDs")
	fs.IntVar(&c.perGroup, "crds-per-group", 1, "crd: CRDs sharing one API group (1: a group per CRD, the most discovery entries)")
	fs.IntVar(&c.discovery, "discovery-requests", 200, "crd: sequential GETs of /apis per discovery form")
	fs.DurationVar(&c.timeout, "crd-timeout", 60*time.Second, "crd: give up waiting for a CRD to be served, established or (un)published after this long")
}

func (c crdOptions) validate() error {
	if c.crds < 1 || c.latency < 1 || c.latency > c.crds || c.workers < 1 || c.perGroup < 1 || c.discovery < 1 || c.timeout <= 0 {
		return errors.New("--crds, --crd-workers, --crds-per-group, --discovery-requests and --crd-timeout must be positive, --crd-latency between 1 and --crds")
	}
	return nil
}

// crdBench is one run of the crd suite against kapis it starts, one after
// the other, on the same data dir.
type crdBench struct {
	o       crdOptions
	s       startupOptions
	api     apiOptions
	p       *printer
	dataDir string
	port    int
	logs    []string // of every kapi started, scanned for problems at the end
}

// runCRD runs the crd suite:
//
//  1. a fresh kapi, stopped, then restarted on its empty data dir: time to
//     ready and idle RSS without CRDs;
//  2. --crd-latency CRDs created one at a time: time until each one's
//     custom resources are served, and until it is Established;
//  3. the other CRDs up to --crds created by --crd-workers: how long until
//     all are established, and RSS before and after;
//  4. a restart with every CRD: time to ready, whether the last CRD is
//     served right then, idle RSS, aggregated and legacy discovery of /apis,
//     one more CRD created and deleted (time until discovery and OpenAPI
//     show it, then stop showing it), and create and list throughput of
//     custom resources beside configmaps.
func runCRD(ctx context.Context, o *options, p *printer) error {
	b := &crdBench{o: o.crd, s: o.startup, api: o.api, p: p, dataDir: filepath.Join(o.startup.workDir, "crd")}
	var err error
	if b.port, err = freePort(); err != nil {
		return err
	}
	p.comment("crd: %s, data-dir %s port %d; %d CRDs (%d per group), the first %d timed one at a time, the rest by %d workers; polls every %s; idle RSS read %s after ready",
		b.s.binary, b.dataDir, b.port, b.o.crds, b.o.perGroup, b.o.latency, b.o.workers, b.s.poll, b.s.idle)
	p.comment("crd: throughput: %d configmaps and %d custom resources of %d B payload, %d workers, then one consistent JSON list of each",
		b.api.n, b.api.n, b.api.payloadBytes, b.api.c)
	load := &result{}
	b.recordLoad(load, "before")
	p.result("", load)

	runErr := b.run(ctx)

	load = &result{}
	b.recordLoad(load, "after")
	b.scanLogs(load)
	p.result("", load)
	return runErr
}

// recordLoad adds the 1-minute load average of the machine: other engineers
// share the two cores, and this is the simplest sign of how much.
func (b *crdBench) recordLoad(r *result, when string) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		b.p.comment("loadavg %s: %v", when, err)
		return
	}
	load1, line, err := parseLoadavg(data)
	if err != nil {
		b.p.comment("loadavg %s: %v", when, err)
		return
	}
	b.p.comment("loadavg %s: %s", when, line)
	r.addFloat("loadavg1_"+when, load1)
}

// scanLogs counts the warnings and errors in the logs of every kapi the
// suite started, and shows the first few.
func (b *crdBench) scanLogs(r *result) {
	var problems int64
	var shown int
	for _, path := range b.logs {
		f, err := os.Open(path)
		if err != nil {
			b.p.comment("kapi log %s: %v", path, err)
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if !isLogProblem(sc.Text()) {
				continue
			}
			problems++
			if shown < 10 {
				b.p.comment("%s: %s", filepath.Base(path), truncate(sc.Text(), 300))
				shown++
			}
		}
		f.Close()
	}
	r.addInt("kapi_log_problem_lines", problems)
}

// start starts kapi on the suite's data dir and port and waits until it is
// ready and has written its kubeconfig.
func (b *crdBench) start(ctx context.Context, logName string) (*kapiProcess, time.Duration, error) {
	logPath := filepath.Join(b.s.workDir, logName)
	b.logs = append(b.logs, logPath)
	k, err := startKapi(b.s.binary, b.dataDir, b.port, b.s.extraArgs, logPath)
	if err != nil {
		return nil, 0, err
	}
	ready, err := k.waitReady(ctx, b.s.poll, b.s.startupTimeout)
	if err == nil {
		err = k.waitFile(ctx, k.kubeconfig(), b.s.startupTimeout)
	}
	if err != nil {
		k.kill()
		return nil, 0, withLog(err, k)
	}
	return k, ready, nil
}

// env builds a client of k without sending a request.
func (b *crdBench) env(k *kapiProcess) (*apiEnv, error) {
	o := b.api
	o.kubeconfig, o.serverPID = k.kubeconfig(), k.pid()
	return newAPIEnv(o)
}

// idle waits --idle and adds k's memory then, and the CPU it used while
// "idle", under prefix: a server still working through CRDs long after
// /readyz shows there.
func (b *crdBench) idle(ctx context.Context, k *kapiProcess, r *result, prefix string) error {
	cpuBefore, cpuErr := readProcessCPU(k.pid())
	select {
	case <-time.After(b.s.idle):
	case <-ctx.Done():
		return ctx.Err()
	case <-k.exited:
		return withLog(fmt.Errorf("kapi exited while idle (%v)", k.waitErr), k)
	}
	cpuAfter, cpuErr2 := readProcessCPU(k.pid())
	m, err := readMemory(k.pid())
	if err != nil {
		return err
	}
	r.addFloat(prefix+"idle_rss_mib", kibToMiB(m.rssKiB))
	r.addFloat(prefix+"idle_hwm_mib", kibToMiB(m.hwmKiB))
	if cpuErr == nil && cpuErr2 == nil {
		r.addDuration(prefix+"idle_server_cpu_s", cpuAfter-cpuBefore)
	}
	return nil
}

func (b *crdBench) run(ctx context.Context) error {
	p := b.p

	// 1. Without CRDs, for comparison.
	k, ready, err := b.start(ctx, "crd-fresh.log")
	if err != nil {
		return err
	}
	r := &result{}
	r.addDuration("startup_to_readyz_s", ready)
	if _, err := k.stop(b.s.shutdownTimeout); err != nil {
		return withLog(err, k)
	}
	if k, ready, err = b.start(ctx, "crd-empty-restart.log"); err != nil {
		return err
	}
	defer func() { k.kill() }()
	r.addDuration("nocrd_restart_to_readyz_s", ready)
	if err := b.idle(ctx, k, r, "nocrd_"); err != nil {
		return err
	}
	p.result("", r)

	env, err := b.env(k)
	if err != nil {
		return err
	}

	// 2. CRDs one at a time.
	r = &result{}
	if err := b.measureCreateLatency(ctx, env, r); err != nil {
		p.result("", r)
		return err
	}
	p.result("", r)

	// 3. The others, concurrently. CRDs that are slow to be established
	// are a finding, not a reason to skip the restart: every CRD is stored
	// by then, and the restart must serve them all.
	r = &result{}
	installErr := b.install(ctx, env, r)
	p.result("", r)
	var partial *partialError
	if installErr != nil && !errors.As(installErr, &partial) {
		return withLog(installErr, k)
	}
	r = &result{}
	m, err := readMemory(k.pid())
	if err != nil {
		return err
	}
	r.addFloat("crd_installed_rss_mib", kibToMiB(m.rssKiB))
	r.addFloat("crd_installed_hwm_mib", kibToMiB(m.hwmKiB))
	if err := b.idle(ctx, k, r, "crd_installed_"); err != nil {
		return err
	}
	env.close()
	d, err := k.stop(b.s.shutdownTimeout)
	if err != nil {
		return withLog(err, k)
	}
	r.addDuration("crd_shutdown_s", d)
	p.result("", r)

	// 4. Restart with every CRD.
	restarted, ready, err := b.start(ctx, "crd-restart.log")
	if err != nil {
		return err
	}
	k = restarted
	r = &result{}
	r.addDuration("crd_restart_to_readyz_s", ready)
	if env, err = b.env(k); err != nil {
		return err
	}
	defer env.close()
	// /readyz must wait for every stored CRD to be served: the last one
	// created, listed as soon as ready, must answer 200, not 404.
	last := benchCRDNames(b.o.crds-1, b.o.perGroup)
	resp, err := b.get(ctx, env, last.resourcePath("default"), mediaJSON)
	if err != nil {
		return err
	}
	r.addInt("crd_last_list_after_ready_status", int64(resp.status))
	r.addDuration("crd_last_list_after_ready_ms", time.Since(k.started)-ready)
	if resp.status != http.StatusOK {
		p.comment("crd_last_list_after_ready_status: GET %s: %s", last.resourcePath("default"), truncate(string(resp.body), 300))
	}
	if err := b.idle(ctx, k, r, "crd_restart_"); err != nil {
		return err
	}
	p.result("", r)

	r = &result{}
	discErr := errors.Join(
		b.measureDiscovery(ctx, env, "discovery_aggregated", mediaAggregatedDiscovery, r),
		b.measureDiscovery(ctx, env, "discovery_legacy", mediaJSON, r))
	p.result("", r)
	if discErr != nil {
		return withLog(discErr, k)
	}

	r = &result{}
	err = b.measureAddDelete(ctx, env, r)
	p.result("", r)
	if err != nil {
		return withLog(err, k)
	}

	r = &result{}
	err = b.measureThroughput(ctx, env, r)
	p.result("", r)
	if err != nil {
		return withLog(err, k)
	}

	env.close()
	r = &result{}
	if d, err = k.stop(b.s.shutdownTimeout); err != nil {
		return withLog(err, k)
	}
	r.addDuration("crd_final_shutdown_s", d)
	p.result("", r)
	return installErr
}

// rawResponse is one response read whole.
type rawResponse struct {
	status      int
	body        []byte
	contentType string
	compressed  bool
	elapsed     time.Duration // request sent to last body byte read
	done        time.Time     // when the last body byte was read
}

// do sends one request through the client of env (its TLS and credentials)
// and reads the whole answer.
func (b *crdBench) do(ctx context.Context, env *apiEnv, method, path, accept string, body []byte) (rawResponse, error) {
	var out rawResponse
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(env.host, "/")+path, rd)
	if err != nil {
		return out, err
	}
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", mediaJSON)
	}
	t0 := time.Now()
	resp, err := env.lister.http.Do(req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	out.body, err = io.ReadAll(resp.Body)
	out.done = time.Now()
	out.elapsed = out.done.Sub(t0)
	if err != nil {
		return out, fmt.Errorf("%s %s: reading body: %w", method, path, err)
	}
	out.status = resp.StatusCode
	out.contentType = resp.Header.Get("Content-Type")
	out.compressed = resp.Uncompressed
	return out, nil
}

func (b *crdBench) get(ctx context.Context, env *apiEnv, path, accept string) (rawResponse, error) {
	return b.do(ctx, env, http.MethodGet, path, accept, nil)
}

// createCRD POSTs the CRD of names and fails unless it is created.
func (b *crdBench) createCRD(ctx context.Context, env *apiEnv, names crdNames) error {
	body, err := json.Marshal(newBenchCRD(names))
	if err != nil {
		return err
	}
	resp, err := b.do(ctx, env, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", mediaJSON, body)
	if err != nil {
		return err
	}
	if resp.status != http.StatusCreated {
		return fmt.Errorf("creating CRD %s: status %d: %s", names.name(), resp.status, truncate(string(resp.body), 300))
	}
	return nil
}

// probe is a condition on the answer to a GET, polled until it holds.
type probe struct {
	name   string
	path   string
	accept string
	holds  func(status int, body []byte) (bool, error)
}

// probeResult is when a probe first held, since the action began.
type probeResult struct {
	after time.Duration
	err   error // it did not hold within the timeout, or the poll failed
}

// timeAction starts polling every probe, each every --poll, concurrently
// with action, and returns how long action took and, for each probe, the
// time from the start of action until the response that first satisfied
// it was read. The polls start with the action, not after it: a server may
// publish a CRD before it answers the request that created it.
func (b *crdBench) timeAction(ctx context.Context, env *apiEnv, action func(ctx context.Context) error, probes []probe) (time.Duration, []probeResult, error) {
	ctx, cancel := context.WithTimeout(ctx, b.o.timeout)
	defer cancel()
	results := make([]probeResult, len(probes))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, pr := range probes {
		wg.Go(func() {
			results[i] = b.poll(ctx, env, t0, pr)
		})
	}
	actionErr := action(ctx)
	took := time.Since(t0)
	if actionErr != nil {
		cancel()
	}
	wg.Wait()
	return took, results, actionErr
}

// poll GETs pr.path every --poll until pr holds or ctx ends.
func (b *crdBench) poll(ctx context.Context, env *apiEnv, t0 time.Time, pr probe) probeResult {
	last := "no answer"
	for {
		resp, err := b.get(ctx, env, pr.path, pr.accept)
		if err == nil {
			ok, herr := pr.holds(resp.status, resp.body)
			if herr != nil {
				return probeResult{err: fmt.Errorf("%s: %w", pr.name, herr)}
			}
			if ok {
				return probeResult{after: resp.done.Sub(t0)}
			}
			last = fmt.Sprintf("status %d", resp.status)
		} else if ctx.Err() == nil {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return probeResult{err: fmt.Errorf("%s: not after %s (last: %s)", pr.name, time.Since(t0).Round(time.Millisecond), last)}
		case <-time.After(b.s.poll):
		}
	}
}

// Probes of a CRD's life.

func servedProbe(n crdNames) probe {
	return probe{name: "served", path: n.resourcePath("default"), accept: mediaJSON,
		holds: func(status int, _ []byte) (bool, error) { return status == http.StatusOK, nil }}
}

func establishedProbe(n crdNames) probe {
	return probe{name: "established", path: n.crdPath(), accept: mediaJSON,
		holds: func(status int, body []byte) (bool, error) {
			if status != http.StatusOK {
				return false, nil
			}
			return crdEstablished(body)
		}}
}

func goneProbe(n crdNames) probe {
	return probe{name: "gone", path: n.crdPath(), accept: mediaJSON,
		holds: func(status int, _ []byte) (bool, error) { return status == http.StatusNotFound, nil }}
}

func discoveryProbe(n crdNames, want bool) probe {
	return probe{name: "discovery", path: "/apis", accept: mediaAggregatedDiscovery,
		holds: func(status int, body []byte) (bool, error) {
			if status != http.StatusOK {
				return false, fmt.Errorf("GET /apis: status %d", status)
			}
			has, err := hasAggregatedGroup(body, n.group)
			return has == want, err
		}}
}

func openAPIProbe(n crdNames, want bool) probe {
	return probe{name: "openapi_v3", path: "/openapi/v3", accept: mediaJSON,
		holds: func(status int, body []byte) (bool, error) {
			if status != http.StatusOK {
				return false, fmt.Errorf("GET /openapi/v3: status %d", status)
			}
			has, err := openAPIV3HasPath(body, n.openAPIV3Path())
			return has == want, err
		}}
}

// measureCreateLatency creates the first --crd-latency CRDs one at a time
// and times, for each, the POST and how long until its custom resources
// are listed (200) and until it is Established.
func (b *crdBench) measureCreateLatency(ctx context.Context, env *apiEnv, r *result) error {
	var post, served, established []time.Duration
	var failures int64
	for i := range b.o.latency {
		names := benchCRDNames(i, b.o.perGroup)
		took, res, err := b.timeAction(ctx, env, func(ctx context.Context) error { return b.createCRD(ctx, env, names) },
			[]probe{servedProbe(names), establishedProbe(names)})
		if err != nil {
			return fmt.Errorf("CRD %d of the latency phase: %w", i, err)
		}
		post = append(post, took)
		for j, pr := range res {
			if pr.err != nil {
				failures++
				b.p.comment("crd %s: %v", names.name(), pr.err)
				continue
			}
			if j == 0 {
				served = append(served, pr.after)
			} else {
				established = append(established, pr.after)
			}
		}
	}
	r.addInt("crd_latency_crds", int64(b.o.latency))
	addPercentiles(r, "crd_create_post", post)
	addPercentiles(r, "crd_create_to_served", served)
	addPercentiles(r, "crd_create_to_established", established)
	r.addInt("crd_create_latency_failures", failures)
	return nil
}

// addPercentiles adds p50, p99 and max of ds under prefix.
func addPercentiles(r *result, prefix string, ds []time.Duration) {
	s := slices.Clone(ds)
	slices.Sort(s)
	r.addDuration(prefix+"_p50_ms", percentile(s, 50))
	r.addDuration(prefix+"_p99_ms", percentile(s, 99))
	if len(s) > 0 {
		r.addDuration(prefix+"_max_ms", s[len(s)-1])
	}
}

// install creates the CRDs after the latency phase's up to --crds with
// --crd-workers, then waits until every bench CRD is established. Not all
// established within --crd-timeout is a partialError: the figures so far
// are recorded and the suite goes on.
func (b *crdBench) install(ctx context.Context, env *apiEnv, r *result) error {
	n := b.o.crds - b.o.latency
	start := time.Now()
	ph := runConcurrent(ctx, n, b.o.workers, func(ctx context.Context, i int) error {
		return b.createCRD(ctx, env, benchCRDNames(b.o.latency+i, b.o.perGroup))
	})
	recordPhase(r, b.p, "crd_install_create", "crd_install_create_per_s", ph)
	r.addDuration("crd_install_create_s", ph.wall)
	if ph.errors > 0 {
		return fmt.Errorf("installing %d CRDs: %d failed, first: %w", n, ph.errors, ph.firstErr)
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// One list of all bench CRDs per poll: cheaper for both sides than a
	// GET each, and the condition is only read.
	path := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?labelSelector=" + crdLabel + "%3Dcrd"
	deadline := time.Now().Add(b.o.timeout)
	nextProgress := time.Now().Add(10 * time.Second)
	for {
		resp, err := b.get(ctx, env, path, mediaJSON)
		if err != nil {
			return err
		}
		if resp.status != http.StatusOK {
			return fmt.Errorf("listing CRDs: status %d: %s", resp.status, truncate(string(resp.body), 300))
		}
		total, established, err := countEstablished(resp.body)
		if err != nil {
			return fmt.Errorf("listing CRDs: %w", err)
		}
		if established == b.o.crds {
			r.addDuration("crd_install_established_s", resp.done.Sub(start))
			r.addInt("crd_installed", int64(total))
			r.addInt("crd_list_bytes", int64(len(resp.body)))
			return nil
		}
		if time.Now().After(deadline) {
			r.addInt("crd_install_established_at_timeout", int64(established))
			return &partialError{fmt.Errorf("%d of %d CRDs established %s after the first create (%d listed)", established, b.o.crds, time.Since(start).Round(time.Millisecond), total)}
		}
		if now := time.Now(); now.After(nextProgress) {
			// How establishing progresses tells a constant cost per
			// CRD from one that grows with the number installed.
			b.p.comment("crd install: %d of %d established %.1fs after the first create", established, b.o.crds, now.Sub(start).Seconds())
			nextProgress = now.Add(10 * time.Second)
		}
		if err := pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// measureDiscovery GETs /apis --discovery-requests times, one after the
// other, accepting media, and records the latency, the size and the number
// of groups under key.
func (b *crdBench) measureDiscovery(ctx context.Context, env *apiEnv, key, media string, r *result) error {
	wantMedia, wantParams, err := mime.ParseMediaType(media)
	if err != nil {
		return err
	}
	var lat []time.Duration
	var last rawResponse
	for range b.o.discovery {
		resp, err := b.get(ctx, env, "/apis", media)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if resp.status != http.StatusOK {
			return fmt.Errorf("%s: status %d: %s", key, resp.status, truncate(string(resp.body), 300))
		}
		lat = append(lat, resp.elapsed)
		last = resp
	}
	// A server that answers with the other form would make one figure
	// the other's under the wrong name.
	got, params, err := mime.ParseMediaType(last.contentType)
	if err != nil || got != wantMedia || params["as"] != wantParams["as"] || params["v"] != wantParams["v"] {
		return fmt.Errorf("%s: asked for %s, got Content-Type %q", key, media, last.contentType)
	}
	_, groups, err := discoveryGroups(last.body)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	slices.Sort(lat)
	r.addDuration(key+"_p50_ms", percentile(lat, 50))
	r.addDuration(key+"_p99_ms", percentile(lat, 99))
	r.addInt(key+"_bytes", int64(len(last.body)))
	r.addInt(key+"_groups", int64(len(groups)))
	if last.compressed {
		b.p.comment("%s: gzip-compressed by the server (bytes are uncompressed, times include compression)", key)
	}
	return nil
}

// measureAddDelete creates one more CRD, in a group of its own, with every
// other CRD installed, and times until it is served, established, in
// aggregated discovery and in the OpenAPI v3 index; then deletes it and
// times until it is gone, and gone from discovery and OpenAPI.
func (b *crdBench) measureAddDelete(ctx context.Context, env *apiEnv, r *result) error {
	names := benchCRDNames(b.o.crds, 1)
	names.group = "extra" + crdGroupSuffix

	took, res, err := b.timeAction(ctx, env, func(ctx context.Context) error { return b.createCRD(ctx, env, names) },
		[]probe{servedProbe(names), establishedProbe(names), discoveryProbe(names, true), openAPIProbe(names, true)})
	if err != nil {
		return fmt.Errorf("creating the extra CRD: %w", err)
	}
	r.addDuration("crd_add_post_ms", took)
	b.recordProbes(r, "crd_add_", []string{"served", "established", "discovery", "openapi_v3"}, res)

	took, res, err = b.timeAction(ctx, env, func(ctx context.Context) error {
		resp, err := b.do(ctx, env, http.MethodDelete, names.crdPath(), mediaJSON, nil)
		if err != nil {
			return err
		}
		if resp.status != http.StatusOK && resp.status != http.StatusAccepted {
			return fmt.Errorf("status %d: %s", resp.status, truncate(string(resp.body), 300))
		}
		return nil
	}, []probe{goneProbe(names), discoveryProbe(names, false), openAPIProbe(names, false)})
	if err != nil {
		return fmt.Errorf("deleting the extra CRD: %w", err)
	}
	r.addDuration("crd_delete_request_ms", took)
	b.recordProbes(r, "crd_delete_", []string{"gone", "discovery", "openapi_v3"}, res)
	return nil
}

// recordProbes adds each probe's time as <prefix><name>_ms, and comments
// on those that failed, which get no figure.
func (b *crdBench) recordProbes(r *result, prefix string, names []string, res []probeResult) {
	var failures int64
	for i, pr := range res {
		if pr.err != nil {
			failures++
			b.p.comment("%s%s: %v", prefix, names[i], pr.err)
			continue
		}
		r.addDuration(prefix+names[i]+"_ms", pr.after)
	}
	r.addInt(prefix+"failures", failures)
}

// measureThroughput creates --n configmaps, then --n custom resources of
// the first bench CRD, of the same payload and with the same workers, in
// one fresh namespace, and lists each kind once (consistent, JSON).
func (b *crdBench) measureThroughput(ctx context.Context, env *apiEnv, r *result) error {
	ns, err := env.createNamespace(ctx, b.api.namespace+"-crd")
	if err != nil {
		return fmt.Errorf("creating namespace: %w", err)
	}
	b.p.comment("throughput namespace %s; custom resources of %s", ns, benchCRDNames(0, b.o.perGroup).name())
	usage, err := env.measureUsage("throughput_", b.p, func() error {
		created, _ := env.create(ctx, ns, b.api.n)
		recordPhase(r, b.p, "cm_create", "cm_create_per_s", created)
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := env.lister.list(ctx, ns, listKind{media: mediaJSON})
		if err != nil {
			return fmt.Errorf("listing configmaps: %w", err)
		}
		r.addInt("cm_list_items", int64(out.items))
		r.addDuration("cm_list_json_ms", out.elapsed)
		r.addInt("cm_list_json_bytes", out.bytes)

		names := benchCRDNames(0, b.o.perGroup)
		crCreated, err := b.createCRs(ctx, env, names, ns)
		if err != nil {
			return err
		}
		recordPhase(r, b.p, "cr_create", "cr_create_per_s", crCreated)
		if err := ctx.Err(); err != nil {
			return err
		}
		page, err := env.lister.fetch(ctx, strings.TrimSuffix(env.host, "/")+names.resourcePath(ns), mediaJSON)
		if err != nil {
			return fmt.Errorf("listing custom resources: %w", err)
		}
		items, err := countItems(env.lister.buf.Bytes())
		if err != nil {
			return fmt.Errorf("listing custom resources: %w", err)
		}
		r.addInt("cr_list_items", int64(items))
		r.addDuration("cr_list_json_ms", page.elapsed)
		r.addInt("cr_list_json_bytes", page.bytes)
		if page.compressed || out.compressed {
			b.p.comment("a list was gzip-compressed by the server (cm: %v, cr: %v)", out.compressed, page.compressed)
		}
		if out.items != created.ok || items != crCreated.ok {
			b.p.comment("lists returned %d configmaps and %d custom resources; %d and %d were created", out.items, items, created.ok, crCreated.ok)
		}
		return nil
	})
	r.add(usage)
	return err
}

// createCRs creates --n custom resources of names in ns with --c workers,
// through client-go's dynamic client: JSON, as the configmaps' typed
// client sends them by default.
func (b *crdBench) createCRs(ctx context.Context, env *apiEnv, names crdNames, ns string) (phase, error) {
	dyn, err := dynamic.NewForConfigAndClient(env.cfg, env.lister.http)
	if err != nil {
		return phase{}, err
	}
	client := dyn.Resource(schema.GroupVersionResource{Group: names.group, Version: crdVersion, Resource: names.plural}).Namespace(ns)
	data := payload(b.api.payloadBytes, 0)
	return runConcurrent(ctx, b.api.n, b.api.c, func(ctx context.Context, i int) error {
		obj := &unstructured.Unstructured{Object: newBenchCR(names, fmt.Sprintf("cr-%06d", i), data)}
		_, err := client.Create(ctx, obj, metav1.CreateOptions{})
		return err
	}), nil
}
