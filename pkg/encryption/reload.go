package encryption

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// ReloadHookName is the post-start hook kube-apiserver starts the reload
// controller in; it shows in /healthz and /readyz.
const ReloadHookName = "start-encryption-provider-config-automatic-reload"

// DefaultReloadInterval is how often kube-apiserver reads the file again.
const DefaultReloadInterval = time.Minute

// ReloadResult is what one look at the file did.
type ReloadResult struct {
	// Changed is true when the file's content differed from the
	// configuration in use.
	Changed bool
	// Err is why a changed file was not applied; the previous
	// configuration stays in use.
	Err error
}

// Reload reads the file once: unchanged content does nothing; a valid new
// configuration whose KMS plugins are healthy replaces the current one
// atomically (and the KMS connections of the old one are closed); an
// invalid one is reported and changes nothing, and is tried again at the
// next look. Each result with Changed is counted in the reload metrics,
// a success or a failure, as kube-apiserver counts its automatic
// reloads. ctx bounds the new KMS connections.
func (t *Transformers) Reload(ctx context.Context) ReloadResult {
	t.reloadMu.Lock()
	defer t.reloadMu.Unlock()
	r, g := t.reload(ctx)
	switch {
	case r.Err != nil:
		t.opts.Reloads.ReloadFailed()
	case r.Changed:
		t.opts.Reloads.Reloaded(g.contentHash)
	}
	return r
}

func (t *Transformers) reload(ctx context.Context) (ReloadResult, *generation) {
	_, hash, err := readFile(t.opts.ConfigFile)
	if err != nil {
		return ReloadResult{Changed: true, Err: err}, nil
	}
	if hash == t.hash {
		return ReloadResult{}, nil
	}
	g, hash, err := load(ctx, t.opts)
	if err != nil {
		return ReloadResult{Changed: true, Err: err}, nil
	}
	// A new configuration whose plugins do not answer would make every
	// write fail: kube-apiserver waits for them and keeps the old one.
	if err := g.healthy(ctx); err != nil {
		g.cancel()
		return ReloadResult{Changed: true, Err: fmt.Errorf("health check for new transformers failed: %w", err)}, nil
	}
	old := t.current.Swap(g)
	t.hash = hash
	// Requests in flight may still use the old transformers for a
	// moment; their KMS connections close after the calls' timeout.
	go func() {
		time.Sleep(2 * DefaultKMSTimeout)
		old.cancel()
	}()
	return ReloadResult{Changed: true}, g
}

// healthy polls the generation's KMS checks until they pass, for at most
// kube-apiserver's grace period.
func (g *generation) healthy(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		var err error
		for _, c := range g.b.kms {
			if err = c.check(ctx); err != nil {
				err = fmt.Errorf("%s: %w", c.name, err)
				break
			}
		}
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// The retries of a failed reload: kube-apiserver puts its controller's
// work item back on a rate-limited queue (client-go's default controller
// rate limiter: 5 ms, doubling with each failure, at most 1000 s), and
// never forgets the item's failures, so the delays go on growing across
// successes for the life of the process.
const (
	reloadRetryBase = 5 * time.Millisecond
	reloadRetryMax  = 1000 * time.Second
)

// reloadRetryDelay is the wait before the retry of the failure that
// follows failures earlier ones.
func reloadRetryDelay(failures int) time.Duration {
	if failures >= 30 { // 5ms<<30 is far past the cap
		return reloadRetryMax
	}
	return min(reloadRetryBase<<failures, reloadRetryMax)
}

// RunReload reads the file when it starts, every interval, and after a
// failure on kube-apiserver's backoff (reloadRetryDelay), until ctx ends,
// logging what it does; it is the automatic reload controller. So an
// invalid file is counted as kube-apiserver counts it: a burst of failures
// once it is found (14 in the following 41 s), then fewer as the retries
// space out, besides the look every interval. A look due while a retry waits does not cancel it;
// of two retries the earlier is kept, as the queue keeps one.
func (t *Transformers) RunReload(ctx context.Context, interval time.Duration, log *slog.Logger) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var (
		retry    *time.Timer
		retryC   <-chan time.Time
		retryAt  time.Time
		failures int
	)
	defer func() {
		if retry != nil {
			retry.Stop()
		}
	}()
	for {
		r := t.Reload(ctx)
		switch {
		case r.Err != nil:
			// kube-apiserver's words; the old configuration stays.
			log.Error(fmt.Sprintf("error processing encryption config file %s: %v", t.opts.ConfigFile, r.Err))
			at := time.Now().Add(reloadRetryDelay(failures))
			failures++
			if retryC == nil || at.Before(retryAt) {
				if retry != nil {
					retry.Stop()
				}
				retry = time.NewTimer(time.Until(at))
				retryC, retryAt = retry.C, at
			}
		case r.Changed:
			log.Info("loaded new encryption config content", "path", t.opts.ConfigFile)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-retryC:
			retryC = nil
		}
	}
}
