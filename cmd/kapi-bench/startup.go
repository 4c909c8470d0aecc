package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// startupOptions configures the startup suite.
type startupOptions struct {
	binary          string
	extraArgs       []string
	repeat          int
	idle            time.Duration
	poll            time.Duration
	startupTimeout  time.Duration
	shutdownTimeout time.Duration
	workDir         string // parent of the per-run data dirs
}

// lifecycle is what one start of kapi measured.
type lifecycle struct {
	toReady time.Duration
	// cpuToReady is the CPU time kapi used until it was ready: unlike
	// toReady, it does not grow when other processes load the machine.
	cpuToReady time.Duration
	idle       memory
	shutdown   time.Duration
}

// runStartup starts kapi repeat times on a fresh data dir and once more on
// the last run's data dir (a restart, which skips generating certificates
// and finds etcd already initialised), and measures each start: time to
// ready, idle memory, and shutdown time.
func runStartup(ctx context.Context, o startupOptions, p *printer) error {
	p.comment("startup: %s, %d fresh starts + 1 restart; readyz polled every %s; idle RSS read %s after ready; stop with SIGTERM",
		o.binary, o.repeat, o.poll, o.idle)
	var runs []*result
	var lastDataDir string
	var lastPort int
	for run := 1; run <= o.repeat; run++ {
		dataDir := filepath.Join(o.workDir, fmt.Sprintf("startup-%d", run))
		port, err := freePort()
		if err != nil {
			return err
		}
		p.comment("run %d data-dir %s port %d", run, dataDir, port)
		lc, err := measureLifecycle(ctx, o, dataDir, port, fmt.Sprintf("startup-%d.log", run))
		if err != nil {
			return fmt.Errorf("startup run %d: %w", run, err)
		}
		r := &result{}
		r.addDuration("startup_to_readyz_s", lc.toReady)
		r.addDuration("startup_cpu_s", lc.cpuToReady)
		r.addFloat("idle_rss_mib", kibToMiB(lc.idle.rssKiB))
		r.addFloat("idle_anon_mib", kibToMiB(lc.idle.anonKiB))
		r.addFloat("idle_hwm_mib", kibToMiB(lc.idle.hwmKiB))
		r.addDuration("shutdown_s", lc.shutdown)
		p.result(runPrefix(run, o.repeat), r)
		runs = append(runs, r)
		lastDataDir, lastPort = dataDir, port
	}

	// The restart reuses the port as well as the data dir, as restarting a
	// real server would; listeners set SO_REUSEADDR, so the previous
	// instance's closed connections do not block the bind. A failed restart
	// does not invalidate the fresh starts' figures, so they are still
	// printed and the failure is returned as partial.
	p.comment("restart on the data dir of run %d", o.repeat)
	lc, restartErr := measureLifecycle(ctx, o, lastDataDir, lastPort, "restart.log")
	if restartErr == nil {
		restart := &result{}
		restart.addDuration("restart_to_readyz_s", lc.toReady)
		restart.addDuration("restart_cpu_s", lc.cpuToReady)
		restart.addFloat("restart_idle_rss_mib", kibToMiB(lc.idle.rssKiB))
		restart.addFloat("restart_idle_anon_mib", kibToMiB(lc.idle.anonKiB))
		restart.addFloat("restart_idle_hwm_mib", kibToMiB(lc.idle.hwmKiB))
		restart.addDuration("restart_shutdown_s", lc.shutdown)
		p.result("", restart)
	} else {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		first, _, _ := strings.Cut(restartErr.Error(), "\n")
		p.comment("restart failed: %s", first)
		restartErr = &partialError{fmt.Errorf("restart: %w", restartErr)}
	}

	if o.repeat > 1 {
		p.comment("median of %d fresh starts", o.repeat)
		p.result("", medianResult(runs))
	}
	return restartErr
}

// partialError is a failure after which the figures already printed are
// valid and the remaining suites can still run; the bench reports it, and
// exits non-zero, at the end.
type partialError struct{ err error }

func (e *partialError) Error() string { return e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// measureLifecycle starts kapi, waits for /readyz, lets it idle, reads its
// memory and stops it.
func measureLifecycle(ctx context.Context, o startupOptions, dataDir string, port int, logName string) (lifecycle, error) {
	var lc lifecycle
	k, err := startKapi(o.binary, dataDir, port, o.extraArgs, filepath.Join(o.workDir, logName))
	if err != nil {
		return lc, err
	}
	defer k.kill()

	if lc.toReady, err = k.waitReady(ctx, o.poll, o.startupTimeout); err != nil {
		return lc, withLog(err, k)
	}
	if lc.cpuToReady, err = readProcessCPU(k.pid()); err != nil {
		return lc, err
	}
	select {
	case <-time.After(o.idle):
	case <-ctx.Done():
		return lc, ctx.Err()
	case <-k.exited:
		return lc, withLog(fmt.Errorf("kapi exited while idle (%v)", k.waitErr), k)
	}
	if lc.idle, err = readMemory(k.pid()); err != nil {
		return lc, err
	}
	if lc.shutdown, err = k.stop(o.shutdownTimeout); err != nil {
		return lc, withLog(err, k)
	}
	return lc, nil
}

// withLog adds the tail of kapi's log to err: the reason a server did not
// start is almost always in its last lines.
func withLog(err error, k *kapiProcess) error {
	tail := k.logTail()
	if tail == "" {
		return err
	}
	return fmt.Errorf("%w\n--- last lines of %s ---\n%s", err, k.logPath, tail)
}

// makeWorkDir creates the directory for the data dirs and logs of the
// servers the bench starts.
func makeWorkDir(parent string) (string, error) {
	return os.MkdirTemp(parent, "kapi-bench-")
}
