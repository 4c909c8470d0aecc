package filters

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	"github.com/kapi-dev/kapi/pkg/flowcontrol"
	fcrequest "github.com/kapi-dev/kapi/pkg/flowcontrol/request"
	"github.com/kapi-dev/kapi/pkg/metrics"
)

// oneSeatController is a controller whose level "one-seat" admits one
// request at a time and rejects the others (limitResponse Reject, no
// lending, no borrowing), for the requests of the user "flooder". Of a
// server's 6 seats it gets ceil(6 * 1/6) = 1; catch-all gets the rest.
func oneSeatController(t *testing.T) *flowcontrol.Controller { return oneSeatControllerTB(t) }

func oneSeatControllerTB(t testing.TB) *flowcontrol.Controller {
	t.Helper()
	ctl := flowcontrol.New(flowcontrol.Config{ServerConcurrencyLimit: 6})
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "one-seat", UID: "uid-of-level-one-seat"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](1),
				LendablePercent:          ptr.To[int32](0),
				BorrowingLimitPercent:    ptr.To[int32](0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	fs := flooderSchema()
	ctl.Configure([]*flowcontrolv1.FlowSchema{fs}, []*flowcontrolv1.PriorityLevelConfiguration{pl})
	return ctl
}

// flooderSchema sends the requests of flooder to one-seat.
func flooderSchema() *flowcontrolv1.FlowSchema {
	return &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "flooder", UID: "uid-of-schema-flooder"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "one-seat"},
			MatchingPrecedence:         100,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects:         []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "flooder"}}},
				ResourceRules:    []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
			}},
		},
	}
}

// heldHandler tells entered of every request, and holds those with the
// query parameter hold until release is closed; watches start their
// response first, unless asked to hold before.
type heldHandler struct {
	entered chan string
	release chan struct{}
}

func newHeldHandler() *heldHandler {
	return &heldHandler{entered: make(chan string, 100), release: make(chan struct{})}
}

func (h *heldHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info, _ := request.RequestInfoFrom(r.Context())
	if info.Verb == "watch" && r.URL.Query().Get("holdBeforeResponse") == "" {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
	}
	h.entered <- r.URL.Path
	if r.URL.Query().Get("hold") != "" {
		<-h.release
	}
}

func pfRequest(t *testing.T, method, url, userName string, groups ...string) *http.Request {
	return asUser(newRequest(t, method, url, nil), userName, append(groups, "system:authenticated")...)
}

// oracle429 is testdata/apf-429-oracle.txt: the header and body of
// kube-apiserver's answer to a request its level rejected.
func oracle429(t *testing.T) (http.Header, string) {
	t.Helper()
	data, err := os.ReadFile("testdata/apf-429-oracle.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	text := strings.Join(lines, "\n")
	head, body, _ := strings.Cut(text, "\n\n")
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(strings.Replace(head, "HTTP/2 429", "HTTP/1.1 429 Too Many Requests", 1)+"\n\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header, body
}

// TestPriorityAndFairnessRejectsAsKubeAPIServer fills the one seat of a
// level and expects the next request of the level to be answered as
// kube-apiserver answered one: 429, its plain-text message, nosniff,
// Retry-After and the classification headers.
func TestPriorityAndFairnessRejectsAsKubeAPIServer(t *testing.T) {
	ctl := oneSeatController(t)
	h := newHeldHandler()
	reg := metrics.NewRegistry()
	chain := WithPriorityAndFairness(h, ctl, nil, request.IsLongRunning, 0, reg)

	first := httptest.NewRecorder()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		chain.ServeHTTP(first, pfRequest(t, "GET", "/api/v1/namespaces/default/pods?hold=1", "flooder"))
	}()
	<-h.entered

	second := httptest.NewRecorder()
	chain.ServeHTTP(second, pfRequest(t, "GET", "/api/v1/namespaces/default/pods", "flooder"))
	close(h.release)
	wg.Wait()

	wantHeader, wantBody := oracle429(t)
	if second.Code != http.StatusTooManyRequests {
		t.Fatalf("second request: %d, want 429", second.Code)
	}
	if got := second.Body.String(); got != wantBody {
		t.Errorf("body %q, kube-apiserver's %q", got, wantBody)
	}
	for _, name := range []string{"Content-Type", "X-Content-Type-Options", "Retry-After"} {
		if got, want := second.Header().Get(name), wantHeader.Get(name); got != want {
			t.Errorf("%s: %q, kube-apiserver's %q", name, got, want)
		}
	}
	for name, want := range map[string]string{
		flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID:                 "uid-of-schema-flooder",
		flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID: "uid-of-level-one-seat",
	} {
		if wantHeader.Get(name) == "" {
			t.Fatalf("kube-apiserver's answer has no %s", name)
		}
		if got := second.Header().Get(name); got != want {
			t.Errorf("rejected: %s = %q, want %q", name, got, want)
		}
		if got := first.Header().Get(name); got != want {
			t.Errorf("admitted: %s = %q, want %q", name, got, want)
		}
	}
	if first.Code != http.StatusOK {
		t.Errorf("first request: %d, want 200", first.Code)
	}
	// Counted as kube-apiserver counts a dropped request.
	labels := map[string]string{"verb": "LIST", "resource": "pods", "scope": "namespace", "code": "429"}
	for _, name := range []string{"apiserver_request_total", "apiserver_request_terminations_total"} {
		if got := metricValue(t, reg, name, labels); got != 1 {
			t.Errorf("%s{code=429} = %v, want 1", name, got)
		}
	}
}

// TestPriorityAndFairnessExemptsSystemMasters sends many requests at once
// as a member of system:masters while they all execute: none is rejected,
// and they are classified exempt (whose imagined objects have no UID).
func TestPriorityAndFairnessExemptsSystemMasters(t *testing.T) {
	ctl := oneSeatController(t)
	h := newHeldHandler()
	chain := WithPriorityAndFairness(h, ctl, nil, request.IsLongRunning, 0, nil)
	const n = 20
	recs := make([]*httptest.ResponseRecorder, n)
	var wg sync.WaitGroup
	for i := range recs {
		recs[i] = httptest.NewRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			chain.ServeHTTP(recs[i], pfRequest(t, "POST", "/api/v1/namespaces/default/configmaps?hold=1", "admin", "system:masters"))
		}()
	}
	for range n {
		<-h.entered
	}
	close(h.release)
	wg.Wait()
	for i, rec := range recs {
		if rec.Code != http.StatusOK {
			t.Errorf("request %d: %d, want 200", i, rec.Code)
		}
		if _, ok := rec.Header()[http.CanonicalHeaderKey(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)]; !ok {
			t.Errorf("request %d: no %s header", i, flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)
		}
	}
	if got := ctl.Classify(flowcontrol.Digest{Info: &request.RequestInfo{Verb: "get", Path: "/"}, User: asUserInfo("admin", "system:masters")}); got.FlowSchema != "exempt" || !got.Exempt {
		t.Errorf("system:masters classified %+v, want the exempt schema", got)
	}
}

// TestPriorityAndFairnessLeavesLongRunningRequestsAlone: while the level's
// seat is taken, an exec of the same user is served, unclassified (no
// headers), as kube-apiserver serves it.
func TestPriorityAndFairnessLeavesLongRunningRequestsAlone(t *testing.T) {
	ctl := oneSeatController(t)
	h := newHeldHandler()
	chain := WithPriorityAndFairness(h, ctl, nil, request.IsLongRunning, 0, nil)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		chain.ServeHTTP(httptest.NewRecorder(), pfRequest(t, "GET", "/api/v1/namespaces/default/pods?hold=1", "flooder"))
	}()
	<-h.entered
	exec := httptest.NewRecorder()
	go func() {
		defer wg.Done()
		chain.ServeHTTP(exec, pfRequest(t, "POST", "/api/v1/namespaces/default/pods/p/exec?hold=1", "flooder"))
	}()
	if got := <-h.entered; got != "/api/v1/namespaces/default/pods/p/exec" {
		t.Fatalf("entered %s, want the exec", got)
	}
	close(h.release)
	wg.Wait()
	if exec.Code != http.StatusOK || exec.Header().Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID) != "" {
		t.Errorf("exec: %d with headers %v, want 200 without classification", exec.Code, exec.Header())
	}
}

// TestPriorityAndFairnessWatchHoldsItsSeatWhileItInitializes: a watch
// whose response has started leaves the level's one seat to the next
// request; one that has not yet started holds it.
func TestPriorityAndFairnessWatchHoldsItsSeatWhileItInitializes(t *testing.T) {
	ctl := oneSeatController(t)
	h := newHeldHandler()
	chain := WithPriorityAndFairness(h, ctl, nil, request.IsLongRunning, 0, nil)
	var wg sync.WaitGroup
	serve := func(rec *httptest.ResponseRecorder, url string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chain.ServeHTTP(rec, pfRequest(t, "GET", url, "flooder"))
		}()
	}

	started := httptest.NewRecorder()
	serve(started, "/api/v1/namespaces/default/pods?watch=true&hold=1")
	<-h.entered
	// The seat is released as the response starts, in the goroutine
	// that admitted the watch.
	waitForExecuting(t, ctl, "one-seat", 0)
	get := httptest.NewRecorder()
	serve(get, "/api/v1/namespaces/default/pods/a")
	if got := <-h.entered; got != "/api/v1/namespaces/default/pods/a" {
		t.Fatalf("entered %s, want the get", got)
	}

	initializing := httptest.NewRecorder()
	waitForExecuting(t, ctl, "one-seat", 0)
	serve(initializing, "/api/v1/namespaces/default/pods?watch=true&hold=1&holdBeforeResponse=1")
	<-h.entered
	rejected := httptest.NewRecorder()
	chain.ServeHTTP(rejected, pfRequest(t, "GET", "/api/v1/namespaces/default/pods/b", "flooder"))
	close(h.release)
	wg.Wait()

	if get.Code != http.StatusOK {
		t.Errorf("a get beside a started watch: %d, want 200", get.Code)
	}
	if rejected.Code != http.StatusTooManyRequests {
		t.Errorf("a get beside an initializing watch: %d, want 429", rejected.Code)
	}
	for _, rec := range []*httptest.ResponseRecorder{started, initializing} {
		if rec.Header().Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID) != "uid-of-schema-flooder" {
			t.Errorf("watch without its classification: %v", rec.Header())
		}
	}
}

// TestPriorityAndFairnessGivesTheEstimatorTheClassification: the work
// estimator is asked with the names of the request's schema and level,
// and not for exempt requests.
func TestPriorityAndFairnessGivesTheEstimatorTheClassification(t *testing.T) {
	ctl := oneSeatController(t)
	var mu sync.Mutex
	var asked []string
	estimate := func(r *http.Request, fs, pl string) fcrequest.WorkEstimate {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, r.URL.Path+" "+fs+" "+pl)
		return fcrequest.WorkEstimate{InitialSeats: 1}
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	chain := WithPriorityAndFairness(ok, ctl, estimate, request.IsLongRunning, 0, nil)
	chain.ServeHTTP(httptest.NewRecorder(), pfRequest(t, "GET", "/api/v1/pods", "flooder"))
	chain.ServeHTTP(httptest.NewRecorder(), pfRequest(t, "GET", "/api/v1/nodes", "someone"))
	chain.ServeHTTP(httptest.NewRecorder(), pfRequest(t, "GET", "/api/v1/nodes", "admin", "system:masters"))
	want := []string{"/api/v1/pods flooder one-seat", "/api/v1/nodes catch-all catch-all"}
	if strings.Join(asked, ",") != strings.Join(want, ",") {
		t.Errorf("estimator asked %q, want %q", asked, want)
	}
}

// waitForExecuting waits until the dump of level shows n executing
// requests.
func waitForExecuting(t *testing.T, ctl *flowcontrol.Controller, level string, n int) {
	t.Helper()
	dump := ctl.DebugHandlers()[flowcontrol.DebugPath+"dump_priority_levels"]
	for range 10000 {
		rec := httptest.NewRecorder()
		dump.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		for _, line := range strings.Split(rec.Body.String(), "\n") {
			fields := strings.Split(line, ",")
			if len(fields) > 5 && strings.TrimSpace(fields[0]) == level && strings.TrimSpace(fields[5]) == strconv.Itoa(n) {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("level %s never had %d requests executing", level, n)
}

func asUserInfo(name string, groups ...string) *user.DefaultInfo {
	return &user.DefaultInfo{Name: name, Groups: append(groups, "system:authenticated")}
}

// TestQueueDeadline: a request waits at most a quarter of the time its
// deadline leaves it, the default wait without a deadline, never more
// than a minute.
func TestQueueDeadline(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	withDeadline := func(d time.Duration) context.Context {
		ctx, cancel := context.WithDeadline(context.Background(), now.Add(d))
		t.Cleanup(cancel)
		return ctx
	}
	for _, c := range []struct {
		name        string
		ctx         context.Context
		defaultWait time.Duration
		want        time.Duration
	}{
		{"the request timeout of 60s", withDeadline(time.Minute), 15 * time.Second, 15 * time.Second},
		{"a client's timeout of 8s", withDeadline(8 * time.Second), 15 * time.Second, 2 * time.Second},
		{"a long deadline", withDeadline(10 * time.Minute), 15 * time.Second, time.Minute},
		{"no deadline", context.Background(), 15 * time.Second, 15 * time.Second},
		{"no deadline, a long default", context.Background(), time.Hour, time.Minute},
	} {
		if got := queueDeadline(c.ctx, now, c.defaultWait).Sub(now); got != c.want {
			t.Errorf("%s: may wait %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPriorityAndFairnessRejectsWhenTheWaitIsOver: at a queuing level
// whose seat is taken, a request waits in its queue, and gets 429 when
// its time to wait is over.
func TestPriorityAndFairnessRejectsWhenTheWaitIsOver(t *testing.T) {
	ctl := oneSeatController(t)
	queuing := ctl.Classify(flowcontrol.Digest{Info: &request.RequestInfo{Verb: "get", Path: "/"}, User: asUserInfo("flooder")})
	if queuing.PriorityLevel != "one-seat" {
		t.Fatalf("classified %+v", queuing)
	}
	// The same level, queuing: one queue of ten.
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "one-seat", UID: "uid-of-level-one-seat"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](1),
				LendablePercent:          ptr.To[int32](0),
				BorrowingLimitPercent:    ptr.To[int32](0),
				LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 1, HandSize: 1, QueueLengthLimit: 10}},
			},
		},
	}
	ctl.Configure([]*flowcontrolv1.FlowSchema{flooderSchema()}, []*flowcontrolv1.PriorityLevelConfiguration{pl})

	h := newHeldHandler()
	chain := WithPriorityAndFairness(h, ctl, nil, request.IsLongRunning, 50*time.Millisecond, nil)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		chain.ServeHTTP(httptest.NewRecorder(), pfRequest(t, "GET", "/api/v1/namespaces/default/pods?hold=1", "flooder"))
	}()
	<-h.entered
	// A watch has no deadline: it waits the default, 50ms.
	waited := httptest.NewRecorder()
	chain.ServeHTTP(waited, pfRequest(t, "GET", "/api/v1/namespaces/default/pods?watch=1", "flooder"))
	close(h.release)
	wg.Wait()
	if waited.Code != http.StatusTooManyRequests {
		t.Errorf("a request that waited its time out: %d, want 429", waited.Code)
	}
	if row := dumpRow(t, ctl, "one-seat"); row == nil || row[8] != "1" {
		t.Errorf("dump of one-seat %q, want one timed-out request", row)
	}
}

func dumpRow(t *testing.T, ctl *flowcontrol.Controller, level string) []string {
	t.Helper()
	rec := httptest.NewRecorder()
	ctl.DebugHandlers()[flowcontrol.DebugPath+"dump_priority_levels"].ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		fields := strings.Split(line, ",")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if fields[0] == level {
			return fields
		}
	}
	return nil
}

// TestChainClassifiesTheImpersonatedUserBeforeAuthorization: in the chain,
// priority and fairness replaces max-in-flight after impersonation and
// before authorization, as in kube-apiserver: a request of the admin
// impersonating flooder is flooder's, and a request authorization then
// forbids is classified all the same (the oracle's 403s carry the
// headers too).
func TestChainClassifiesTheImpersonatedUserBeforeAuthorization(t *testing.T) {
	ctl := oneSeatController(t)
	logger, _ := newTestLogger()
	chain := Chain(ChainConfig{
		Authenticator: tokenAuthenticator, Authorizer: adminsOnly,
		RequestTimeout: longTimeout, Metrics: metrics.NewRegistry(), Logger: logger,
		FlowControl: ctl,
	})(okHandler)
	srv := httptest.NewServer(chain)
	defer srv.Close()
	for _, c := range []struct {
		name, token, impersonate string
		code                     int
		schema                   string
	}{
		{"admin", "admin-token", "", http.StatusOK, ""},
		{"admin as flooder", "admin-token", "flooder", http.StatusForbidden, "uid-of-schema-flooder"},
		{"alice", "alice-token", "", http.StatusForbidden, ""},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/v1/namespaces/ns/pods", nil)
		req.Header.Set("Authorization", "Bearer "+c.token)
		if c.impersonate != "" {
			req.Header.Set("Impersonate-User", c.impersonate)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		got, classified := resp.Header[flowSchemaUIDHeader]
		if resp.StatusCode != c.code || !classified || got[0] != c.schema {
			t.Errorf("%s: %d classified %q (%v), want %d classified %q", c.name, resp.StatusCode, got, classified, c.code, c.schema)
		}
	}
}
