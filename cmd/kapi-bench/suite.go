package main

import (
	"context"
	"fmt"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// connect checks the pids to measure, builds the client and prints which
// server it reached: what every suite that talks to the API does first.
func connect(o apiOptions, p *printer) (*apiEnv, error) {
	// A wrong pid would silently drop the server's figures from every run:
	// fail before the suite instead.
	for _, pid := range []int{o.serverPID, o.etcdPID} {
		if pid <= 0 {
			continue
		}
		if _, err := readProcessCPU(pid); err != nil {
			return nil, fmt.Errorf("cannot measure pid %d: %w", pid, err)
		}
	}
	env, err := newAPIEnv(o)
	if err != nil {
		return nil, err
	}
	v, err := env.cs.Discovery().ServerVersion()
	if err != nil {
		env.close()
		return nil, fmt.Errorf("server %s not reachable: %w", env.host, err)
	}
	p.comment("server: %s %s (%s)", env.host, v.GitVersion, v.GoVersion)
	return env, nil
}

// close closes the client's idle connections, so that a server stopped
// after the suite is not waiting on a client that has left. client-go wraps
// the transport in round trippers that do not pass CloseIdleConnections
// on; this helper unwraps them.
func (env *apiEnv) close() {
	utilnet.CloseIdleConnectionsFor(env.lister.http.Transport)
}

// runFunc measures one run of a suite in the fresh namespace ns, adding its
// figures to r.
type runFunc func(ctx context.Context, ns string, r *result, p *printer) error

// runRuns runs a suite --repeat times, each in a fresh namespace
// "<namespace>-<run>": it adds the run's wall time and the CPU and memory
// used during it to the run's figures, prints them, cleans up with
// --cleanup, and prints the medians at the end.
func (env *apiEnv) runRuns(ctx context.Context, suite string, p *printer, body runFunc) error {
	o := env.o
	var runs []*result
	for run := 1; run <= o.repeat; run++ {
		ns, err := env.createNamespace(ctx, fmt.Sprintf("%s-%d", o.namespace, run))
		if err != nil {
			return fmt.Errorf("%s run %d: creating namespace: %w", suite, run, err)
		}
		p.comment("run %d namespace %s", run, ns)
		if o.asBoundUser {
			if err := env.bindInNamespace(ctx, ns); err != nil {
				return fmt.Errorf("%s run %d: %w", suite, run, err)
			}
		}

		serverPID := env.o.serverPID
		before := takeSample(serverPID, o.etcdPID)
		start := time.Now()
		r := &result{}
		if err := body(ctx, ns, r, p); err != nil {
			return fmt.Errorf("%s run %d: %w", suite, run, err)
		}
		wall := time.Since(start)
		if env.o.serverPID != serverPID {
			// The suite restarted the server: the CPU time of a
			// process that is gone cannot be read any more.
			serverPID = 0
		}
		after := takeSample(serverPID, o.etcdPID)
		r.addDuration("suite_wall_s", wall)
		recordUsage(r, p, before, after, serverPID, o.etcdPID)

		p.result(runPrefix(run, o.repeat), r)
		runs = append(runs, r)

		if o.cleanup {
			t0 := time.Now()
			if err := env.deleteNamespace(ctx, ns); err != nil {
				p.comment("cleanup %s: failed after %.1fs: %v", ns, time.Since(t0).Seconds(), err)
			} else {
				p.comment("cleanup %s: done in %.1fs", ns, time.Since(t0).Seconds())
			}
		}
	}
	if o.repeat > 1 {
		p.comment("median of %d runs", o.repeat)
		p.result("", medianResult(runs))
	}
	return nil
}

// measureUsage runs fn and returns, besides its error, the CPU the client,
// server and machine used during it and the server's memory right after,
// under recordUsage's keys with prefix before each. It is for phases whose
// cost matters on its own, e.g. one fan-out or one big list.
func (env *apiEnv) measureUsage(prefix string, p *printer, fn func() error) (*result, error) {
	before := takeSample(env.o.serverPID, env.o.etcdPID)
	err := fn()
	after := takeSample(env.o.serverPID, env.o.etcdPID)
	u := &result{}
	recordUsage(u, p, before, after, env.o.serverPID, env.o.etcdPID)
	return u.withPrefix(prefix), err
}

// withPrefix returns r's figures with prefix before each key.
func (r *result) withPrefix(prefix string) *result {
	out := &result{metrics: make([]metric, len(r.metrics))}
	for i, m := range r.metrics {
		out.metrics[i] = metric{prefix + m.key, m.val}
	}
	return out
}

// add appends all of other's figures to r.
func (r *result) add(other *result) {
	r.metrics = append(r.metrics, other.metrics...)
}
