package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/webhooktest"
)

// apfClient sends raw requests as user (impersonated by the admin), so
// that a 429 is seen as such: client-go would retry it.
type apfClient struct {
	host string
	http *http.Client
}

func newAPFClient(t *testing.T, admin *rest.Config, user string) *apfClient {
	t.Helper()
	cfg := rest.CopyConfig(admin)
	if user != "" {
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &apfClient{host: strings.TrimSuffix(cfg.Host, "/"), http: hc}
}

type apfAnswer struct {
	code       int
	header     http.Header
	body       string
	flowSchema string
}

func (c *apfClient) do(t *testing.T, ctx context.Context, method, path string, body []byte) apfAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, c.host+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return apfAnswer{code: -1, body: err.Error()}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return apfAnswer{code: resp.StatusCode, header: resp.Header, body: string(data),
		flowSchema: resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)}
}

// TestPriorityAndFairness configures, at run time, a priority level of
// three seats (a 600-seat server's share for 1 of 246 shares, no lending,
// no borrowing, rejecting what does not fit) and a FlowSchema sending
// the user "flooder" to it, and checks, by counts:
//   - the next requests of the flooder carry the schema's and level's
//     UIDs in their X-Kubernetes-PF-* headers;
//   - a schema of higher precedence whose level is missing is Dangling
//     and classifies nothing;
//   - with the three seats held (creates waiting on a slow admission
//     webhook), every further request of the flooder is rejected with
//     429 and Retry-After, while every request of another user (another
//     level) and of system:masters (exempt) is served;
//   - the dumps show the three executing requests and the rejections.
func TestPriorityAndFairness(t *testing.T) {
	s := startKapi(t)
	admin := clientset(t, s.ClientConfig)
	ctx := context.Background()
	const ns = "apf-flood"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"flooder", "bystander"} {
		if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: u},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: u}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	pl, fs := createTinyLevel(t, admin)
	flooder := newAPFClient(t, s.ClientConfig, "flooder")
	bystander := newAPFClient(t, s.ClientConfig, "bystander")
	root := newAPFClient(t, s.ClientConfig, "")
	listPath := "/api/v1/namespaces/" + ns + "/configmaps"

	// The configuration controller takes the new objects at once; the
	// loop allows for a loaded machine, and logs how long it took.
	start := time.Now()
	for {
		a := flooder.do(t, ctx, "GET", listPath, nil)
		if a.flowSchema == string(fs.UID) {
			if got := a.header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID); got != string(pl.UID) {
				t.Fatalf("classified by %s into level %q, want %s", fs.Name, got, pl.UID)
			}
			t.Logf("classified by the new FlowSchema %v after it was created", time.Since(start))
			break
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("requests of flooder still classified by %q, not by the new FlowSchema %s", a.flowSchema, fs.UID)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if a := bystander.do(t, ctx, "GET", listPath, nil); a.code != http.StatusOK || a.flowSchema == string(fs.UID) || a.flowSchema == "" {
		t.Fatalf("bystander: %d classified %q, want 200 by another schema", a.code, a.flowSchema)
	}

	// A schema of higher precedence whose level does not exist is
	// dangling: its status says so, and it matches nothing.
	dangling := fs.DeepCopy()
	dangling.ObjectMeta = metav1.ObjectMeta{Name: "apf-e2e-dangling"}
	dangling.Spec.MatchingPrecedence = 40
	dangling.Spec.PriorityLevelConfiguration.Name = "apf-e2e-missing"
	if _, err := admin.FlowcontrolV1().FlowSchemas().Create(ctx, dangling, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, err := admin.FlowcontrolV1().FlowSchemas().Get(ctx, dangling.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c := got.Status.Conditions; len(c) == 1 && c[0].Type == flowcontrolv1.FlowSchemaConditionDangling && c[0].Status == flowcontrolv1.ConditionTrue {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dangling schema's status: %+v", got.Status)
		}
	}
	if a := flooder.do(t, ctx, "GET", listPath, nil); a.flowSchema != string(fs.UID) {
		t.Errorf("with a dangling schema before it, flooder classified by %q, want %s", a.flowSchema, fs.UID)
	}

	// Hold the three seats.
	webhook := holdConfigMapCreates(t, admin, ns)
	holdCtx, release := context.WithCancel(ctx)
	var held sync.WaitGroup
	for i := range 3 {
		held.Add(1)
		go func() {
			defer held.Done()
			flooder.do(t, holdCtx, "POST", listPath, fmt.Appendf(nil, `{"metadata":{"name":"held-%d","labels":{"hold":"yes"}}}`, i))
		}()
	}
	defer func() { release(); held.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); len(webhook.Requests("slow")) < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d creates reached the webhook, want 3", len(webhook.Requests("slow")))
		}
	}

	const n = 20
	var rejected, servedOthers, servedAdmin int
	for i := range n {
		if a := flooder.do(t, ctx, "GET", listPath, nil); a.code == http.StatusTooManyRequests {
			rejected++
			if a.header.Get("Retry-After") == "" || a.flowSchema != string(fs.UID) || a.body != "Too many requests, please try again later.\n" {
				t.Errorf("429 without kube-apiserver's answer: %v %q", a.header, a.body)
			}
		}
		if a := bystander.do(t, ctx, "GET", listPath, nil); a.code == http.StatusOK {
			servedOthers++
		}
		if a := root.do(t, ctx, "POST", listPath, fmt.Appendf(nil, `{"metadata":{"name":"admin-%d"}}`, i)); a.code == http.StatusCreated {
			servedAdmin++
		}
	}
	if rejected != n || servedOthers != n || servedAdmin != n {
		t.Errorf("with the level full: %d of %d requests of the flooder rejected, %d of %d of the bystander and %d of %d of system:masters served; want all",
			rejected, n, servedOthers, n, servedAdmin, n)
	}

	levels := root.do(t, ctx, "GET", "/debug/api_priority_and_fairness/dump_priority_levels", nil)
	row := dumpRow(levels.body, pl.Name)
	if levels.code != http.StatusOK || row == nil || row["ExecutingRequests"] != "3" || row["RejectedRequests"] != fmt.Sprint(n) {
		t.Errorf("dump_priority_levels: %d, row of %s %v, want 3 executing and %d rejected:\n%s", levels.code, pl.Name, row, n, levels.body)
	}
	requests := root.do(t, ctx, "GET", "/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1", nil)
	got := 0
	for _, r := range dumpRows(requests.body) {
		if r["UserName"] == "flooder" && r["PriorityLevelName"] == pl.Name && r["Verb"] == "create" {
			got++
		}
	}
	if requests.code != http.StatusOK || got != 3 {
		t.Errorf("dump_requests: %d, %d requests of flooder, want 3:\n%s", requests.code, got, requests.body)
	}
	if a := root.do(t, ctx, "GET", "/readyz?verbose", nil); !strings.Contains(a.body, "[+]poststarthook/priority-and-fairness-filter ok") {
		t.Errorf("/readyz without kube-apiserver's priority-and-fairness-filter hook:\n%s", a.body)
	}
	// The dumps are for those allowed to read them.
	if a := bystander.do(t, ctx, "GET", "/debug/api_priority_and_fairness/dump_queues", nil); a.code != http.StatusForbidden {
		t.Errorf("dump_queues as bystander: %d, want 403", a.code)
	}
}

// createTinyLevel creates the level apf-e2e-tiny and the schema that
// sends flooder to it.
func createTinyLevel(t *testing.T, c *kubernetes.Clientset) (*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.FlowSchema) {
	t.Helper()
	ctx := context.Background()
	pl, err := c.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-e2e-tiny"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](1),
				LendablePercent:          ptr.To[int32](0),
				BorrowingLimitPercent:    ptr.To[int32](0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := c.FlowcontrolV1().FlowSchemas().Create(ctx, &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-e2e-flooder"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: pl.Name},
			MatchingPrecedence:         50,
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "flooder"}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true,
				}},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pl, fs
}

// holdConfigMapCreates installs a mutating webhook that holds the
// creates of configmaps labelled hold=yes in ns for 25 seconds (or until
// their client gives up), and returns once it is live.
func holdConfigMapCreates(t *testing.T, c *kubernetes.Clientset, ns string) *webhooktest.Server {
	t.Helper()
	ctx := context.Background()
	srv := webhooktest.Start(t)
	hook := func(name, path, label string) admissionregistrationv1.MutatingWebhook {
		return admissionregistrationv1.MutatingWebhook{
			Name:                    name,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(srv.URL + path), CABundle: srv.CABundle},
			Rules:                   configMapRules(),
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{label: "yes"}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](30),
		}
	}
	if _, err := c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-e2e-hold"},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{hook("hold.e2e.example.com", "/slow/delay/25s", "hold"), hook("probe.e2e.example.com", "/allow", "probe")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Labels: map[string]string{"probe": "yes"}}}
	for deadline := time.Now().Add(30 * time.Second); len(srv.Requests("allow")) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the webhook never became live")
		}
		_, _ = c.CoreV1().ConfigMaps(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	return srv
}

// dumpRow returns the row of the dump whose first column is name.
func dumpRow(dump, name string) map[string]string {
	for _, r := range dumpRows(dump) {
		if r["PriorityLevelName"] == name {
			return r
		}
	}
	return nil
}

// dumpRows parses a dump: its rows, by column header.
func dumpRows(dump string) []map[string]string {
	lines := strings.Split(strings.TrimSpace(dump), "\n")
	split := func(line string) []string {
		fields := strings.Split(line, ",")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		return fields
	}
	headers := split(lines[0])
	var rows []map[string]string
	for _, line := range lines[1:] {
		fields := split(line)
		row := map[string]string{}
		for i, h := range headers {
			if i < len(fields) {
				row[h] = fields[i]
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestPriorityAndFairnessCanBeTurnedOff: kapi started with
// --enable-priority-and-fairness=false limits requests with the
// max-in-flight filter: no request is classified, no dump is served, and
// the priority-and-fairness-filter post-start hook is not there.
func TestPriorityAndFairnessCanBeTurnedOff(t *testing.T) {
	p := startKapiBinary(t, t.TempDir(), "--enable-priority-and-fairness=false")
	root := newAPFClient(t, p.restConfig(t), "")
	ctx := context.Background()
	if a := root.do(t, ctx, "GET", "/api/v1/namespaces", nil); a.code != http.StatusOK || a.flowSchema != "" ||
		a.header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID) != "" {
		t.Errorf("a request: %d, classified %v", a.code, a.header)
	}
	if a := root.do(t, ctx, "GET", "/debug/api_priority_and_fairness/dump_priority_levels", nil); a.code != http.StatusNotFound {
		t.Errorf("dump_priority_levels: %d, want 404", a.code)
	}
	if a := root.do(t, ctx, "GET", "/readyz?verbose", nil); strings.Contains(a.body, "priority-and-fairness-filter") {
		t.Errorf("/readyz lists the priority and fairness filter's hook:\n%s", a.body)
	}
}

// TestAWriteCostsTheWatchersItNotifies checks that priority and fairness
// estimates requests' work rather than counting one seat each: a create
// that 25 watchers will hear of costs kube-apiserver 1.37.1 three seats
// (one per ten watchers, after the response; the estimator's recorded
// cases), and so it costs kapi, as apiserver_flowcontrol_work_estimated_seats
// shows for the writer's flow schema.
func TestAWriteCostsTheWatchersItNotifies(t *testing.T) {
	s := startKapi(t)
	admin := clientset(t, s.ClientConfig)
	ctx := context.Background()
	const ns, user = "apf-fanout", "writer"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A watch is registered with the watch cache before its response
	// starts, which is when Watch returns.
	for i := range 25 {
		w, err := admin.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
		defer w.Stop()
	}
	writer := newAPFClient(t, s.ClientConfig, user)
	seatsOf := func(schemaUID string) float64 {
		t.Helper()
		schemas, err := admin.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		name := ""
		for _, fs := range schemas.Items {
			if string(fs.UID) == schemaUID {
				name = fs.Name
			}
		}
		body, err := admin.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "apiserver_flowcontrol_work_estimated_seats_sum{") && strings.Contains(line, `flow_schema="`+name+`"`) {
				var v float64
				fmt.Sscan(line[strings.LastIndex(line, " ")+1:], &v)
				sum += v
			}
		}
		return sum
	}
	create := func(name string) apfAnswer {
		return writer.do(t, ctx, "POST", "/api/v1/namespaces/"+ns+"/configmaps", []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"`+name+`"}}`))
	}
	first := create("first")
	if first.code != http.StatusCreated || first.flowSchema == "" {
		t.Fatalf("create: %d, classified %q: %s", first.code, first.flowSchema, first.body)
	}
	before := seatsOf(first.flowSchema)
	if a := create("second"); a.code != http.StatusCreated || a.flowSchema != first.flowSchema {
		t.Fatalf("create: %d, classified %q: %s", a.code, a.flowSchema, a.body)
	}
	if got := seatsOf(first.flowSchema) - before; got != 3 {
		t.Errorf("a create heard by 25 watchers was estimated at %v seats, want kube-apiserver's 3", got)
	}
}
