package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// The apf suite measures API priority and fairness: what it costs the
// get and create throughput of the api suite (run it against a server
// with and without --enable-priority-and-fairness), and what it is for:
// a flood from one user, classified by a FlowSchema of its own into a
// small priority level, beside a well-behaved user at another level
// making steady requests. It reports the well-behaved user's latency
// alone and during the flood, and how many of the flood's requests were
// rejected with 429. The same objects exist on a server with APF off,
// where they classify nothing.
//
// Both users are service accounts with tokens from the TokenRequest API,
// allowed to get and list configmaps in each run's namespace: real identities, as
// a FlowSchema matches them, whatever the server does with impersonation.

// apfOptions configures the apf suite.
type apfOptions struct {
	floodWorkers int
	floodLimit   int
	steadyRate   float64
	phase        time.Duration
	floodShares  int32
	steadyShares int32
	// floodRetryAfter makes the flood wait as a 429's Retry-After says,
	// as client-go does; without it a rejected request is retried at
	// once.
	floodRetryAfter bool
}

func addAPFFlags(fs interface {
	BoolVar(*bool, string, bool, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
	DurationVar(*time.Duration, string, time.Duration, string)
	Int32Var(*int32, string, int32, string)
}, o *apfOptions) {
	fs.IntVar(&o.floodWorkers, "flood-c", 200, "apf: concurrent workers of the flooding user, each listing as fast as it can")
	fs.IntVar(&o.floodLimit, "flood-list-limit", 100, "apf: limit of the flooding user's lists of the run's configmaps")
	fs.Float64Var(&o.steadyRate, "steady-rate", 20, "apf: gets per second of the well-behaved user, at a fixed rate")
	fs.DurationVar(&o.phase, "apf-phase", 15*time.Second, "apf: how long the well-behaved user is measured alone, then during the flood")
	fs.Int32Var(&o.floodShares, "flood-shares", 1, "apf: nominalConcurrencyShares of the flooding user's priority level (no lending, no borrowing)")
	fs.BoolVar(&o.floodRetryAfter, "flood-retry-after", true, "apf: the flood waits as a 429's Retry-After says, as client-go does; false retries at once")
	fs.Int32Var(&o.steadyShares, "steady-shares", 20, "apf: nominalConcurrencyShares of the well-behaved user's priority level")
}

// The queuing of both priority levels: one flow (a user) has 4 queues of
// 25, so that a flood of more than 100 requests at once is partly
// rejected.
const (
	apfQueues      = 16
	apfHandSize    = 4
	apfQueueLength = 25
)

// Names of what the suite creates; kapi-bench- prefixed, removed at the end.
const (
	apfNamespace = "kapi-bench-apf"
	apfFlood     = "kapi-bench-flood"
	apfSteady    = "kapi-bench-steady"
)

// apfUser is one of the two users: its client and the UID of its
// priority level, which the server's response headers name when APF
// classified the request.
type apfUser struct {
	name    string
	http    *http.Client
	levelID types.UID
}

func runAPF(ctx context.Context, o apiOptions, ao apfOptions, p *printer) error {
	env, err := connect(o, p)
	if err != nil {
		return err
	}
	defer env.close()
	p.comment("apf: %d configmaps of %d B payload, %d workers for create/get (as the kubeconfig's user); then a well-behaved user getting one configmap %.0f times a second for %s alone and %s during a flood of %d workers listing %d configmaps",
		o.n, o.payloadBytes, o.c, ao.steadyRate, ao.phase, ao.phase, ao.floodWorkers, ao.floodLimit)
	p.comment("apf: priority levels %s (shares %d) and %s (shares %d), no lending or borrowing, %d queues, hand %d, length %d; the flood honours Retry-After: %v",
		apfFlood, ao.floodShares, apfSteady, ao.steadyShares, apfQueues, apfHandSize, apfQueueLength, ao.floodRetryAfter)
	flood, steady, err := env.apfSetup(ctx, ao)
	if err != nil {
		return err
	}
	defer env.apfTeardown(p)
	return env.runRuns(ctx, "apf", p, func(ctx context.Context, ns string, r *result, p *printer) error {
		return env.apfRun(ctx, ns, ao, flood, steady, r, p)
	})
}

// apfSetup creates the two users, their priority levels and FlowSchemas.
func (env *apiEnv) apfSetup(ctx context.Context, ao apfOptions) (flood, steady *apfUser, err error) {
	admin := env.admin
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: apfNamespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, nil, err
	}
	user := func(name string, shares int32, precedence int32) (*apfUser, error) {
		if _, err := admin.CoreV1().ServiceAccounts(apfNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, err
		}
		zero := int32(0)
		pl := &flowcontrolv1.PriorityLevelConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
				Type: flowcontrolv1.PriorityLevelEnablementLimited,
				Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
					NominalConcurrencyShares: &shares,
					LendablePercent:          &zero,
					BorrowingLimitPercent:    &zero,
					LimitResponse: flowcontrolv1.LimitResponse{
						Type:    flowcontrolv1.LimitResponseTypeQueue,
						Queuing: &flowcontrolv1.QueuingConfiguration{Queues: apfQueues, HandSize: apfHandSize, QueueLengthLimit: apfQueueLength},
					},
				},
			},
		}
		pls := admin.FlowcontrolV1().PriorityLevelConfigurations()
		_ = pls.Delete(ctx, name, metav1.DeleteOptions{})
		created, err := pls.Create(ctx, pl, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("priority level %s: %w", name, err)
		}
		fs := &flowcontrolv1.FlowSchema{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: flowcontrolv1.FlowSchemaSpec{
				PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: name},
				MatchingPrecedence:         precedence,
				DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
				Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
					Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: apfNamespace, Name: name}}},
					ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
						Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true,
					}},
				}},
			},
		}
		fss := admin.FlowcontrolV1().FlowSchemas()
		_ = fss.Delete(ctx, name, metav1.DeleteOptions{})
		if _, err := fss.Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("flow schema %s: %w", name, err)
		}
		expiration := int64(3600)
		tr, err := admin.CoreV1().ServiceAccounts(apfNamespace).CreateToken(ctx, name,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiration}}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("token for %s/%s: %w", apfNamespace, name, err)
		}
		cfg := rest.AnonymousClientConfig(env.cfg)
		cfg.BearerToken = tr.Status.Token
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			return nil, err
		}
		return &apfUser{name: name, http: hc, levelID: created.UID}, nil
	}
	// Below the suggested schemas' precedences (global-default is 9900,
	// service-accounts 9000), above none of the mandatory ones.
	if flood, err = user(apfFlood, ao.floodShares, 500); err != nil {
		return nil, nil, err
	}
	if steady, err = user(apfSteady, ao.steadyShares, 501); err != nil {
		return nil, nil, err
	}
	return flood, steady, nil
}

// apfTeardown removes the FlowSchemas and priority levels (the service
// accounts stay, in their namespace).
func (env *apiEnv) apfTeardown(p *printer) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, name := range []string{apfFlood, apfSteady} {
		if err := env.admin.FlowcontrolV1().FlowSchemas().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			p.comment("apf teardown: flow schema %s: %v", name, err)
		}
		if err := env.admin.FlowcontrolV1().PriorityLevelConfigurations().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			p.comment("apf teardown: priority level %s: %v", name, err)
		}
	}
}

// apfRun measures one run in namespace ns.
func (env *apiEnv) apfRun(ctx context.Context, ns string, ao apfOptions, flood, steady *apfUser, r *result, p *printer) error {
	created, _ := env.create(ctx, ns, env.o.n)
	recordPhase(r, p, "create", "create_configmaps_per_s", created)
	got := env.get(ctx, ns)
	recordPhase(r, p, "get", "get_per_s", got)
	if err := ctx.Err(); err != nil {
		return err
	}

	// A Role of its own: the aggregated ClusterRoles (edit, view) have
	// no rules on a kube-apiserver without its controller manager.
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: apfNamespace}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}},
	}}
	if _, err := env.admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	for _, u := range []*apfUser{flood, steady} {
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: u.name},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: apfNamespace},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: u.name, Namespace: apfNamespace}}}
		if _, err := env.admin.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	steadyURL := fmt.Sprintf("%s/api/v1/namespaces/%s/configmaps/%s", env.host, ns, configMapName(0))
	floodURL := fmt.Sprintf("%s/api/v1/namespaces/%s/configmaps?limit=%d", env.host, ns, ao.floodLimit)
	// Wait until both users are allowed (RBAC reads bindings from a
	// cache) and see whether APF classified them.
	classified := int64(1)
	for _, c := range []struct {
		u   *apfUser
		url string
	}{{steady, steadyURL}, {flood, floodURL}} {
		header, err := waitAllowed(ctx, c.u, c.url)
		if err != nil {
			return err
		}
		if header.Get("X-Kubernetes-PF-PriorityLevel-UID") != string(c.u.levelID) {
			classified = 0
		}
	}
	r.addInt("apf_classified", classified)
	if classified == 0 {
		p.comment("apf: the responses do not name the bench's priority levels: APF is off (or not classifying)")
	}

	alone := steadyLoad(ctx, steady, steadyURL, ao.steadyRate, ao.phase)
	recordSteady(r, "steady_alone", alone)

	floodCtx, stopFlood := context.WithCancel(ctx)
	var fl floodCounts
	var wg sync.WaitGroup
	for range ao.floodWorkers {
		wg.Go(func() { fl.run(floodCtx, flood, floodURL, ao.floodRetryAfter) })
	}
	// Let the flood build up before measuring beside it.
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
	t0 := time.Now()
	fl.reset()
	during := steadyLoad(ctx, steady, steadyURL, ao.steadyRate, ao.phase)
	floodWall := time.Since(t0)
	ok, throttled, failed := fl.snapshot()
	stopFlood()
	wg.Wait()
	recordSteady(r, "steady_flood", during)
	if a := percentile(alone.latencies, 99); a > 0 {
		r.addFloat("steady_p99_ratio", float64(percentile(during.latencies, 99))/float64(a))
	}
	r.addFloat("flood_per_s", perSecond(int(ok), floodWall))
	r.addInt("flood_ok", ok)
	r.addInt("flood_429", throttled)
	r.addInt("flood_errors", failed)
	if e := fl.firstErr.Load(); e != nil {
		p.comment("flood: first error: %s", *e)
	}
	return ctx.Err()
}

// waitAllowed gets url as u until it is not forbidden, and returns the
// response's headers.
func waitAllowed(ctx context.Context, u *apfUser, url string) (http.Header, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, header, err := apfGet(ctx, u, url)
		if err == nil && code == http.StatusOK {
			return header, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s cannot get %s: status %d, %v", u.name, url, code, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// apfGet gets url as u and reads the body through; it returns the status.
func apfGet(ctx context.Context, u *apfUser, url string) (int, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := u.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header, err
}

// steadyResult is what the well-behaved user saw.
type steadyResult struct {
	latencies          []time.Duration // of 200s, sorted
	throttled, errored int
}

// steadyLoad gets url as u rate times a second for d, each request on
// its own goroutine so that a slow one does not delay the next (an open
// loop: the offered load does not depend on the server's speed).
func steadyLoad(ctx context.Context, u *apfUser, url string, rate float64, d time.Duration) steadyResult {
	var mu sync.Mutex
	var res steadyResult
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	end := time.After(d)
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-end:
			break loop
		case <-tick.C:
			wg.Go(func() {
				t0 := time.Now()
				code, _, err := apfGet(ctx, u, url)
				lat := time.Since(t0)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && code == http.StatusOK:
					res.latencies = append(res.latencies, lat)
				case code == http.StatusTooManyRequests:
					res.throttled++
				default:
					res.errored++
				}
			})
		}
	}
	wg.Wait()
	slices.Sort(res.latencies)
	return res
}

func recordSteady(r *result, prefix string, s steadyResult) {
	r.addDuration(prefix+"_p50_ms", percentile(s.latencies, 50))
	r.addDuration(prefix+"_p99_ms", percentile(s.latencies, 99))
	r.addInt(prefix+"_429", int64(s.throttled))
	r.addInt(prefix+"_errors", int64(s.errored))
}

// floodCounts counts the flood's outcomes.
type floodCounts struct {
	ok, throttled, failed atomic.Int64
	firstErr              atomic.Pointer[string]
}

// run lists url as u as fast as it can until ctx ends (a closed loop),
// waiting after a 429 as its Retry-After says if retryAfter.
func (f *floodCounts) run(ctx context.Context, u *apfUser, url string, retryAfter bool) {
	for ctx.Err() == nil {
		code, header, err := apfGet(ctx, u, url)
		if ctx.Err() != nil {
			return
		}
		switch {
		case err == nil && code == http.StatusOK:
			f.ok.Add(1)
		case code == http.StatusTooManyRequests:
			f.throttled.Add(1)
			if secs, err := strconv.Atoi(header.Get("Retry-After")); retryAfter && err == nil && secs > 0 {
				select {
				case <-ctx.Done():
				case <-time.After(time.Duration(secs) * time.Second):
				}
			}
		default:
			f.failed.Add(1)
			msg := fmt.Sprintf("status %d: %v", code, err)
			f.firstErr.CompareAndSwap(nil, &msg)
		}
	}
}

func (f *floodCounts) reset() {
	f.ok.Store(0)
	f.throttled.Store(0)
	f.failed.Store(0)
}

func (f *floodCounts) snapshot() (ok, throttled, failed int64) {
	return f.ok.Load(), f.throttled.Load(), f.failed.Load()
}
