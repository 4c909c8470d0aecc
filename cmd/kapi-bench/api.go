package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// apiOptions configures the api suite.
type apiOptions struct {
	kubeconfig         string
	namespace          string // prefix; run N uses "<namespace>-N"
	n, c               int
	pageSize           int
	payloadBytes       int
	proto              bool
	disableCompression bool
	cleanup            bool
	repeat             int
	serverPID          int
	etcdPID            int
	requestTimeout     time.Duration
	// asBoundUser runs the suite as a service account bound by a
	// RoleBinding, with otherBindings unrelated ones present
	// (bounduser.go).
	asBoundUser   bool
	otherBindings int
}

// apiEnv is what every run of the api suite shares: the options and one
// client, so that all runs go over the same connection setup.
type apiEnv struct {
	o    apiOptions
	cfg  *rest.Config // for clients of their own, e.g. the watchers'
	host string
	cs   *kubernetes.Clientset
	// admin is the kubeconfig's client, which creates and deletes the
	// runs' namespaces; it is cs unless the suite runs as a bound user.
	admin  *kubernetes.Clientset
	lister *lister
	// updates counts the watch suite's updates, to give each a payload
	// of its own.
	updates atomic.Int64
}

// newAPIEnv builds the client from the kubeconfig. Client-side rate
// limiting is switched off (a negative QPS means none in client-go): the
// bench measures the server, not client-go's default 5 QPS token bucket.
func newAPIEnv(o apiOptions) (*apiEnv, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", o.kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.Timeout = o.requestTimeout
	cfg.DisableCompression = o.disableCompression
	// Server-side deprecation warnings would go to stderr once per request.
	cfg.WarningHandler = rest.NoWarnings{}
	if o.proto {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	// One HTTP client for the typed client and the raw list requests, so
	// that lists use the same (HTTP/2) connection as creates and gets.
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	return &apiEnv{
		o:      o,
		cfg:    cfg,
		host:   cfg.Host,
		cs:     cs,
		admin:  cs,
		lister: &lister{http: httpClient, rest: cs.CoreV1().RESTClient(), pageSize: o.pageSize},
	}, nil
}

// runAPI runs the api suite repeat times, each in its own namespace, and
// prints each run's figures and then their medians.
func runAPI(ctx context.Context, o apiOptions, p *printer) error {
	env, err := connect(o, p)
	if err != nil {
		return err
	}
	defer env.close()
	if o.asBoundUser {
		if err := env.actAsBoundUser(ctx, p); err != nil {
			return err
		}
	}
	encoding := "json"
	if o.proto {
		encoding = "protobuf"
	}
	p.comment("api: %d configmaps of %d B payload, %d workers, %s for create/get/update; lists in json and protobuf, whole and paged by %d",
		o.n, o.payloadBytes, o.c, encoding, o.pageSize)
	p.comment("list *_ms: request sent to last body byte read, not decoding; paged: sum over the pages")
	return env.runRuns(ctx, "api", p, env.apiRun)
}

// apiRun runs the suite once in namespace ns: create, get, update, list.
func (env *apiEnv) apiRun(ctx context.Context, ns string, r *result, p *printer) error {
	created, rvs := env.create(ctx, ns, env.o.n)
	recordPhase(r, p, "create", "create_configmaps_per_s", created)
	if err := ctx.Err(); err != nil {
		return err
	}

	got := env.get(ctx, ns)
	recordPhase(r, p, "get", "get_per_s", got)
	if err := ctx.Err(); err != nil {
		return err
	}

	updated := env.update(ctx, ns, rvs)
	recordPhase(r, p, "update", "update_per_s", updated)
	if err := ctx.Err(); err != nil {
		return err
	}

	env.lister.measureAll(ctx, ns, created.ok, r, p)
	return ctx.Err()
}

// createNamespace creates a namespace named name, or, if a previous bench
// left one of that name (possibly still Terminating), name with a random
// suffix, so that runs never share objects.
func (env *apiEnv) createNamespace(ctx context.Context, name string) (string, error) {
	candidate := name
	for attempt := 0; ; attempt++ {
		nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: candidate}}
		_, err := env.admin.CoreV1().Namespaces().Create(ctx, nsObj, metav1.CreateOptions{})
		if err == nil {
			return candidate, nil
		}
		if !apierrors.IsAlreadyExists(err) || attempt == 3 {
			return "", err
		}
		candidate = name + "-" + utilrand.String(5)
	}
}

// configMapName is the name of the i-th configmap of a run.
func configMapName(i int) string { return fmt.Sprintf("cm-%06d", i) }

// payload returns the configmap data of --payload-bytes. Its content does
// not matter to the server, only its size; pattern picks one of two
// contents, so that an update can change every object.
func payload(size, pattern int) string {
	unit := "0123456789abcdef"
	if pattern%2 == 1 {
		unit = "fedcba9876543210"
	}
	return strings.Repeat(unit, size/16+1)[:size]
}

// create creates n configmaps with c workers and returns, besides the
// phase, the resourceVersion of each created object ("" where the create
// failed), for the updates that follow.
func (env *apiEnv) create(ctx context.Context, ns string, n int) (phase, []string) {
	// One payload for all objects, built once to keep client CPU out of
	// the measurement.
	data := payload(env.o.payloadBytes, 0)
	client := env.cs.CoreV1().ConfigMaps(ns)
	rvs := make([]string, n)
	ph := runConcurrent(ctx, n, env.o.c, func(ctx context.Context, i int) error {
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: configMapName(i), Labels: map[string]string{"app": "kapi-bench"}},
			Data:       map[string]string{"payload": data},
		}
		out, err := client.Create(ctx, cm, metav1.CreateOptions{})
		if err == nil {
			// Each index is written by one worker only.
			rvs[i] = out.ResourceVersion
		}
		return err
	})
	return ph, rvs
}

// get reads each configmap once by name with c workers.
func (env *apiEnv) get(ctx context.Context, ns string) phase {
	client := env.cs.CoreV1().ConfigMaps(ns)
	return runConcurrent(ctx, env.o.n, env.o.c, func(ctx context.Context, i int) error {
		_, err := client.Get(ctx, configMapName(i), metav1.GetOptions{})
		return err
	})
}

// phase is the outcome of n requests made by concurrent workers.
type phase struct {
	ok, errors int
	wall       time.Duration
	latencies  []time.Duration // of successful requests, sorted
	firstErr   error
}

// runConcurrent calls op(ctx, i) for i in [0, n) from c workers, each
// taking the next index when done with the previous one (a closed loop: the
// offered load is c requests in flight, whatever the server's speed).
func runConcurrent(ctx context.Context, n, c int, op func(ctx context.Context, i int) error) phase {
	lat := make([]time.Duration, n)
	failed := make([]bool, n)
	done := make([]bool, n)
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				t0 := time.Now()
				err := op(ctx, i)
				// Each index is written by one worker only; wg.Wait
				// orders these writes before the reads below.
				lat[i], done[i] = time.Since(t0), true
				if err != nil {
					failed[i] = true
					errOnce.Do(func() { firstErr = err })
				}
			}
		})
	}
	wg.Wait()
	ph := phase{wall: time.Since(start), firstErr: firstErr}
	for i := range n {
		switch {
		case !done[i]:
		case failed[i]:
			ph.errors++
		default:
			ph.ok++
			ph.latencies = append(ph.latencies, lat[i])
		}
	}
	slices.Sort(ph.latencies)
	return ph
}

// recordPhase adds a phase's throughput, latency percentiles and error
// count under the baseline's key names.
func recordPhase(r *result, p *printer, name, rateKey string, ph phase) {
	r.addFloat(rateKey, perSecond(ph.ok, ph.wall))
	r.addDuration(name+"_p50_ms", percentile(ph.latencies, 50))
	r.addDuration(name+"_p99_ms", percentile(ph.latencies, 99))
	r.addInt(name+"_errors", int64(ph.errors))
	if ph.firstErr != nil {
		p.comment("%s: %d errors, first: %v", name, ph.errors, ph.firstErr)
	}
}

// deleteNamespace removes ns and everything in it without relying on a
// namespace controller, which kapi (and a bare kube-apiserver) does not run:
// it deletes the configmaps, then the namespace, then clears the
// namespace's spec.finalizers through the finalize subresource, which lets
// the server remove the Terminating namespace.
func (env *apiEnv) deleteNamespace(ctx context.Context, ns string) error {
	cms := env.cs.CoreV1().ConfigMaps(ns)
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		// Fall back to one delete per object, for servers without
		// deletecollection.
		fmt.Fprintf(os.Stderr, "kapi-bench: deletecollection in %s failed (%v); deleting one by one\n", ns, err)
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing configmaps to delete: %w", err)
		}
		ph := runConcurrent(ctx, len(list.Items), env.o.c, func(ctx context.Context, i int) error {
			err := cms.Delete(ctx, list.Items[i].Name, metav1.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return err
		})
		if ph.firstErr != nil {
			return fmt.Errorf("deleting configmaps: %d errors, first: %w", ph.errors, ph.firstErr)
		}
	}

	nsClient := env.admin.CoreV1().Namespaces()
	if err := nsClient.Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting namespace: %w", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		obj, err := nsClient.Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("namespace still present after 60s")
		}
		if len(obj.Spec.Finalizers) > 0 {
			obj.Spec.Finalizers = nil
			_, err := nsClient.Finalize(ctx, obj, metav1.UpdateOptions{})
			// A namespace controller, where there is one, may have
			// finalized or removed it in between: both are fine.
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return fmt.Errorf("finalizing namespace: %w", err)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
