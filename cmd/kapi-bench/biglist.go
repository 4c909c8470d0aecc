package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// biglistOptions configures the biglist suite. Its --n, --c and
// --payload-bytes have their own defaults (see parseFlags).
type biglistOptions struct {
	interval time.Duration // between RSS samples
	settle   time.Duration // pause before each list
	// restart, when the bench started the server, restarts it on the same
	// data and returns its new pid; nil for a server given by
	// --kubeconfig.
	restart func(ctx context.Context) (int, error)
}

// biglistKinds are the lists the suite measures, in this order: one whole,
// consistent list of the namespace in each encoding.
var biglistKinds = []struct {
	name string
	kind listKind
}{
	{"json", listKind{media: mediaJSON}},
	{"proto", listKind{media: mediaProtobuf}},
}

// runBiglist runs the biglist suite repeat times: in a fresh namespace,
// create --n small configmaps, then list them all in one request per
// encoding while sampling the server's RSS.
func runBiglist(ctx context.Context, o apiOptions, bo biglistOptions, p *printer) error {
	if o.serverPID <= 0 {
		return errors.New("biglist measures the server's memory: it needs --server-pid, or --kapi-binary without --kubeconfig")
	}
	env, err := connect(o, p)
	if err != nil {
		return err
	}
	defer env.close()
	p.comment("biglist: %d configmaps of %d B payload created by %d workers; one unpaged consistent list per encoding; server VmRSS sampled every %s",
		o.n, o.payloadBytes, o.c, bo.interval)
	if bo.restart != nil {
		p.comment("biglist: the server is restarted on its data before each list, so that each list starts from a fresh heap")
	} else {
		p.comment("biglist: the server is not restarted; memory the Go runtime kept from earlier work can hide growth")
	}
	return env.runRuns(ctx, "biglist", p, func(ctx context.Context, ns string, r *result, p *printer) error {
		return env.biglistRun(ctx, ns, bo, r, p)
	})
}

func (env *apiEnv) biglistRun(ctx context.Context, ns string, bo biglistOptions, r *result, p *printer) error {
	created, _ := env.create(ctx, ns, env.o.n)
	recordPhase(r, p, "biglist_create", "biglist_create_per_s", created)
	if err := ctx.Err(); err != nil {
		return err
	}
	r.addInt("biglist_items", int64(created.ok))
	for _, bk := range biglistKinds {
		if bo.restart != nil {
			// Leave no connection for the server to wait on while it
			// stops.
			env.close()
			pid, err := bo.restart(ctx)
			if err != nil {
				return fmt.Errorf("restarting the server: %w", err)
			}
			env.o.serverPID = pid
		}
		// A first small list in the same encoding sets up what any
		// request would (the connection, TLS, the codecs), so that the
		// measured growth is the big list's own.
		warmURL := env.lister.rest.Get().Namespace(ns).Resource("configmaps").Param("limit", "1").URL().String()
		if _, err := env.lister.fetch(ctx, warmURL, bk.kind.media); err != nil {
			return fmt.Errorf("warm-up list: %w", err)
		}
		if err := pause(ctx, bo.settle); err != nil {
			return err
		}
		if err := env.measureBiglist(ctx, ns, bk.name, bk.kind, created.ok, bo, r, p); err != nil {
			return fmt.Errorf("%s list: %w", bk.name, err)
		}
	}
	return nil
}

// measureBiglist makes one list of kind and records its time and size and
// the server's memory before and during it under biglist_<name>_.
func (env *apiEnv) measureBiglist(ctx context.Context, ns, name string, kind listKind, want int, bo biglistOptions, r *result, p *printer) error {
	key := func(s string) string { return "biglist_" + name + "_" + s }
	pid := env.o.serverPID
	before, err := readMemory(pid)
	if err != nil {
		return err
	}
	hwmReset := resetPeakRSS(pid) == nil
	cpuBefore, cpuErr := readProcessCPU(pid)

	sampler, err := startRSSSampler(pid, bo.interval)
	if err != nil {
		return err
	}
	out, listErr := env.lister.list(ctx, ns, kind)
	peak, samples, sampleErr := sampler.stop()
	cpuAfter, cpuErr2 := readProcessCPU(pid)
	if listErr != nil {
		return listErr
	}
	if sampleErr != nil {
		return fmt.Errorf("sampling the server's RSS: %w", sampleErr)
	}
	if out.items != want {
		return fmt.Errorf("listed %d items, want %d", out.items, want)
	}

	growth := peak.rssKiB - before.rssKiB
	r.addDuration(key("ms"), out.elapsed)
	r.addInt(key("bytes"), out.bytes)
	r.addFloat(key("rss_before_mib"), kibToMiB(before.rssKiB))
	r.addFloat(key("rss_peak_mib"), kibToMiB(peak.rssKiB))
	r.addFloat(key("rss_growth_mib"), kibToMiB(growth))
	r.addFloat(key("growth_over_size"), growthOverSize(growth, out.bytes))
	if hwmReset {
		// The exact peak, which the sampling can only approach.
		r.addFloat(key("hwm_peak_mib"), kibToMiB(peak.hwmKiB))
	}
	if cpuErr == nil && cpuErr2 == nil {
		r.addDuration(key("server_cpu_s"), cpuAfter-cpuBefore)
	}
	p.comment("%s: %d RSS samples over %.0f ms (request to last byte, then client decoding); VmHWM reset before: %v",
		key("rss_peak_mib"), samples, float64(out.elapsed)/float64(time.Millisecond), hwmReset)
	if out.compressed {
		p.comment("%s: gzip-compressed by the server (bytes are uncompressed)", key("bytes"))
	}
	return nil
}
