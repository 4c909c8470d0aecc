package flowcontrol

import (
	"context"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
	fcmetrics "github.com/kapi-dev/kapi/pkg/flowcontrol/metrics"
	kmetrics "github.com/kapi-dev/kapi/pkg/metrics"
)

// bootstrapController is a controller with kube-apiserver's bootstrap
// configuration as the oracle had it, and its 600 seats.
func bootstrapController(t testing.TB, m *fcmetrics.Metrics) *Controller {
	t.Helper()
	rec := readClassificationRecording(t)
	var fss []*flowcontrolv1.FlowSchema
	var pls []*flowcontrolv1.PriorityLevelConfiguration
	for _, fs := range rec.FlowSchemas {
		if !strings.HasPrefix(fs.Name, "apf-") {
			fss = append(fss, fs)
		}
	}
	for _, pl := range rec.PriorityLevels {
		if !strings.HasPrefix(pl.Name, "apf-") {
			pls = append(pls, pl)
		}
	}
	ctl := New(Config{ServerConcurrencyLimit: 600, Metrics: m})
	ctl.Configure(fss, pls)
	return ctl
}

func dump(t *testing.T, ctl *Controller, name, query string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	ctl.DebugHandlers()[DebugPath+name].ServeHTTP(rec, httptest.NewRequest("GET", DebugPath+name+query, nil))
	return rec.Body.String()
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// fields splits a dump row into its trimmed columns.
func fields(row string) []string {
	out := strings.Split(row, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// TestDumpsAreKubeAPIServers compares the dumps of an idle controller
// with kube-apiserver's, recorded from the oracle with the same
// configuration (testdata/oracle-dump_*.txt): byte for byte for the
// idle levels and queues, and column for column, times aside, for an
// executing request.
func TestDumpsAreKubeAPIServers(t *testing.T) {
	ctl := bootstrapController(t, fcmetrics.New(kmetrics.NewRegistry(), time.Now))

	oracle := readLines(t, "testdata/oracle-dump_priority_levels.txt")
	ours := strings.Split(strings.TrimSuffix(dump(t, ctl, "dump_priority_levels", ""), "\n"), "\n")
	if len(ours) != len(oracle) {
		t.Fatalf("dump_priority_levels has %d lines, kube-apiserver's %d:\n%s", len(ours), len(oracle), strings.Join(ours, "\n"))
	}
	for i := range oracle {
		// The oracle's exempt level was serving the dump itself.
		if strings.HasPrefix(oracle[i], "exempt,") {
			continue
		}
		if ours[i] != oracle[i] {
			t.Errorf("dump_priority_levels line %d:\n got %q\nwant %q", i, ours[i], oracle[i])
		}
	}

	oracle = readLines(t, "testdata/oracle-dump_queues.txt")
	ours = strings.Split(strings.TrimSuffix(dump(t, ctl, "dump_queues", ""), "\n"), "\n")
	if ours[0] != oracle[0] {
		t.Errorf("dump_queues header:\n got %q\nwant %q", ours[0], oracle[0])
	}
	slices.Sort(oracle[1:])
	slices.Sort(ours[1:])
	if !slices.Equal(ours, oracle) {
		t.Errorf("dump_queues: %d lines, kube-apiserver's %d; first lines:\n%s", len(ours), len(oracle), strings.Join(ours[:min(5, len(ours))], "\n"))
	}

	// A request executing at the exempt level, as the oracle's dump
	// request was while it dumped.
	r := httptest.NewRequest("GET", "/debug/api_priority_and_fairness/dump_requests", nil)
	info, err := request.NewRequestInfoFactory().NewRequestInfo(r)
	if err != nil {
		t.Fatal(err)
	}
	u := &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"}}
	ctx := request.WithUser(request.WithRequestInfo(context.Background(), info), u)
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctl.Handle(ctx, Digest{Info: info, User: u}, nil, func(Classification) { close(entered); <-release })
	}()
	<-entered
	timestamp := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	for _, c := range []struct{ file, query string }{
		{"testdata/oracle-dump_requests.txt", ""},
		{"testdata/oracle-dump_requests_details.txt", "?includeRequestDetails=1"},
	} {
		oracle := readLines(t, c.file)
		ours := strings.Split(strings.TrimSuffix(dump(t, ctl, "dump_requests", c.query), "\n"), "\n")
		// The widths of the columns depend on the times, which vary.
		if len(ours) != len(oracle) || !slices.Equal(fields(ours[0]), fields(oracle[0])) {
			t.Errorf("dump_requests%s:\n%s\nkube-apiserver's:\n%s", c.query, strings.Join(ours, "\n"), strings.Join(oracle, "\n"))
			continue
		}
		got, want := fields(ours[1]), fields(oracle[1])
		for i := range want {
			if timestamp.MatchString(want[i]) && timestamp.MatchString(got[i]) {
				continue
			}
			if i >= len(got) || got[i] != want[i] {
				t.Errorf("dump_requests%s row:\n got %q\nwant %q", c.query, got, want)
				break
			}
		}
	}
	close(release)
	<-done
}

func limitedLevel(name string, shares int32, queues int32) *flowcontrolv1.PriorityLevelConfiguration {
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To(shares),
				LendablePercent:          ptr.To[int32](0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	if queues > 0 {
		pl.Spec.Limited.LimitResponse = flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeQueue,
			Queuing: &flowcontrolv1.QueuingConfiguration{Queues: queues, HandSize: 1, QueueLengthLimit: 10}}
	}
	return pl
}

func schemaFor(name, level, userName string) *flowcontrolv1.FlowSchema {
	return &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level},
			MatchingPrecedence:         100,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects:      []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: userName}}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, Namespaces: []string{"*"}, ClusterScope: true}},
			}},
		},
	}
}

func digestOf(userName string) Digest {
	return Digest{
		Info: &request.RequestInfo{IsResourceRequest: true, Verb: "list", APIVersion: "v1", Resource: "pods", Namespace: "default"},
		User: &user.DefaultInfo{Name: userName, Groups: []string{"system:authenticated"}},
	}
}

func dumpRowOf(t *testing.T, ctl *Controller, name, level string) []string {
	t.Helper()
	for _, line := range strings.Split(dump(t, ctl, name, ""), "\n") {
		if f := fields(line); f[0] == level {
			return f
		}
	}
	return nil
}

// TestRemovedLevelDrainsBeforeItGoes: a level removed while a request
// executes in it stays, quiescing, and takes no new request; once the
// request is done it goes at the next digestion.
func TestRemovedLevelDrainsBeforeItGoes(t *testing.T) {
	ctl := New(Config{ServerConcurrencyLimit: 100})
	ctl.Configure([]*flowcontrolv1.FlowSchema{schemaFor("doomed", "doomed", "u")}, []*flowcontrolv1.PriorityLevelConfiguration{limitedLevel("doomed", 10, 0)})
	entered, release, done := make(chan struct{}), make(chan struct{}), make(chan Classification)
	go func() {
		cl, _ := ctl.Handle(context.Background(), digestOf("u"), nil, func(Classification) { close(entered); <-release })
		done <- cl
	}()
	<-entered
	ctl.Configure(nil, nil)
	if row := dumpRowOf(t, ctl, "dump_priority_levels", "doomed"); row == nil || row[3] != "true" || row[5] != "1" {
		t.Fatalf("removed level with a request executing: %q, want it quiescing with 1 executing", row)
	}
	if cl := ctl.Classify(digestOf("u")); cl.FlowSchema != "catch-all" {
		t.Errorf("after removal classified %+v, want catch-all", cl)
	}
	close(release)
	if cl := <-done; cl.PriorityLevel != "doomed" {
		t.Errorf("the executing request was in %s", cl.PriorityLevel)
	}
	select {
	case <-ctl.trigger:
	default:
		t.Fatal("the drained level did not ask for a digestion")
	}
	ctl.Configure(nil, nil)
	if row := dumpRowOf(t, ctl, "dump_priority_levels", "doomed"); row != nil {
		t.Errorf("drained level still there: %q", row)
	}
}

// TestChangedLevelKeepsItsQueueSet: a change of a level's queuing is
// applied to the queue set it has, which keeps its counts.
func TestChangedLevelKeepsItsQueueSet(t *testing.T) {
	ctl := New(Config{ServerConcurrencyLimit: 100})
	fss := []*flowcontrolv1.FlowSchema{schemaFor("s", "q", "u")}
	ctl.Configure(fss, []*flowcontrolv1.PriorityLevelConfiguration{limitedLevel("q", 10, 4)})
	ctl.Handle(context.Background(), digestOf("u"), nil, func(Classification) {})
	queues := func() int {
		n := 0
		for _, line := range strings.Split(dump(t, ctl, "dump_queues", ""), "\n") {
			if fields(line)[0] == "q" {
				n++
			}
		}
		return n
	}
	if n := queues(); n != 4 {
		t.Fatalf("%d queues, want 4", n)
	}
	ctl.Configure(fss, []*flowcontrolv1.PriorityLevelConfiguration{limitedLevel("q", 10, 8)})
	if n := queues(); n != 8 {
		t.Errorf("%d queues after the change to 8", n)
	}
	if row := dumpRowOf(t, ctl, "dump_priority_levels", "q"); row == nil || row[6] != "1" {
		t.Errorf("after the change: %q, want the one dispatched request still counted", row)
	}
}

// TestMandatoryObjectsAreImagined: with no objects at all, members of
// system:masters are exempt and everyone else goes to catch-all, by
// objects that have no UID.
func TestMandatoryObjectsAreImagined(t *testing.T) {
	ctl := New(Config{ServerConcurrencyLimit: 600})
	admin := Digest{Info: &request.RequestInfo{Verb: "get", Path: "/healthz"}, User: &user.DefaultInfo{Name: "a", Groups: []string{"system:masters"}}}
	if cl := ctl.Classify(admin); cl.FlowSchema != "exempt" || cl.PriorityLevel != "exempt" || !cl.Exempt || cl.FlowSchemaUID != "" {
		t.Errorf("system:masters: %+v", cl)
	}
	if cl := ctl.Classify(digestOf("someone")); cl.FlowSchema != "catch-all" || cl.PriorityLevel != "catch-all" || cl.Exempt {
		t.Errorf("someone: %+v", cl)
	}
	// No schema matches a user of no group; catch-all takes it all
	// the same.
	odd := Digest{Info: digestOf("").Info, User: &user.DefaultInfo{Name: "odd"}}
	if cl := ctl.Classify(odd); cl.FlowSchema != "catch-all" {
		t.Errorf("a user of no group: %+v", cl)
	}
}

// TestLimitsAreRecordedInMetrics: the controller publishes the limits it
// computed, with kube-apiserver's series names.
func TestLimitsAreRecordedInMetrics(t *testing.T) {
	reg := kmetrics.NewRegistry()
	bootstrapController(t, fcmetrics.New(reg, time.Now))
	gauges, _ := oracleGauges(t)
	families, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]float64{}
	for _, f := range families {
		name, ok := strings.CutPrefix(f.GetName(), "apiserver_flowcontrol_")
		if !ok || f.GetType() != dto.MetricType_GAUGE {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "priority_level" {
					if got[name] == nil {
						got[name] = map[string]float64{}
					}
					got[name][l.GetValue()] = m.GetGauge().GetValue()
				}
			}
		}
	}
	for _, gauge := range []string{"nominal_limit_seats", "lower_limit_seats", "upper_limit_seats"} {
		for level, want := range gauges[gauge] {
			if got[gauge][level] != want {
				t.Errorf("%s{priority_level=%q} = %v, kube-apiserver %v", gauge, level, got[gauge][level], want)
			}
		}
	}
	for level, want := range gauges["current_limit_seats"] {
		if level != "exempt" && got["current_limit_seats"][level] != want {
			t.Errorf("current_limit_seats{priority_level=%q} = %v, kube-apiserver %v", level, got["current_limit_seats"][level], want)
		}
	}
}

// TestMaxSeatsOfTheBootstrapLevels: 15% of each queuing level's nominal
// limit, at most the limit over its hand size (so that on a 600-seat
// server the estimator's own limit of 10 seats is what binds but for
// leader-election and global-default); 0, no cap of the level's own,
// for the levels that do not queue.
func TestMaxSeatsOfTheBootstrapLevels(t *testing.T) {
	ctl := bootstrapController(t, nil)
	want := map[string]uint64{
		"system": 12, "node-high": 15, "leader-election": 4, "workload-high": 15,
		"workload-low": 37, "global-default": 8, "catch-all": 0, "exempt": 0, "unknown": 0,
	}
	for level, w := range want {
		if got := ctl.MaxSeats(level); got != w {
			t.Errorf("MaxSeats(%s) = %d, want %d", level, got, w)
		}
	}
}

// TestBusyLevelBorrowsFromIdleOnes: a level with more requests than
// seats, beside idle levels that lend half theirs, gets more seats at the
// next adjustment, and its waiting requests run in them.
func TestBusyLevelBorrowsFromIdleOnes(t *testing.T) {
	// 20 seats: busy and idle get ceil(20*10/25) = 8 each, 4 of which
	// they lend; catch-all 4, none lendable. Idle, each gets 20/12 of
	// what it may not lend: 7, 7 and 7.
	ctl := New(Config{ServerConcurrencyLimit: 20})
	lending := func(name string, queues int32) *flowcontrolv1.PriorityLevelConfiguration {
		pl := limitedLevel(name, 10, queues)
		pl.Spec.Limited.LendablePercent = ptr.To[int32](50)
		if queues > 0 {
			pl.Spec.Limited.LimitResponse.Queuing.QueueLengthLimit = 50
		}
		return pl
	}
	ctl.Configure([]*flowcontrolv1.FlowSchema{schemaFor("busy", "busy", "u"), schemaFor("idle", "idle", "v")},
		[]*flowcontrolv1.PriorityLevelConfiguration{lending("busy", 1), lending("idle", 0)})
	executing := func() string { return dumpRowOf(t, ctl, "dump_priority_levels", "busy")[5] }
	waiting := func() string { return dumpRowOf(t, ctl, "dump_priority_levels", "busy")[4] }

	release := make(chan struct{})
	done := make(chan struct{}, 12)
	for range 12 {
		go func() {
			ctl.Handle(context.Background(), digestOf("u"), nil, func(Classification) { <-release })
			done <- struct{}{}
		}()
	}
	for executing() != "7" || waiting() != "5" {
		time.Sleep(time.Millisecond)
	}
	ctl.adjust()
	ctl.mu.Lock()
	busy, idle, catchAll := ctl.levels["busy"].current, ctl.levels["idle"].current, ctl.levels["catch-all"].current
	ctl.mu.Unlock()
	if busy <= 7 || idle < 4 || busy+idle+catchAll > 21 {
		t.Errorf("after the adjustment busy has %d seats and idle %d, want busy more than 7 and idle at least its 4", busy, idle)
	}
	for executing() != strconv.Itoa(min(busy, 12)) {
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range 12 {
		<-done
	}
}
