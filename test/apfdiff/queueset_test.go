package apfdiff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/user"
	genericrequest "k8s.io/apiserver/pkg/endpoints/request"
	fq "k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing"
	"k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset"
	testeventclock "k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/testing/eventclock"
	"k8s.io/apiserver/pkg/util/flowcontrol/metrics"
	kubereq "k8s.io/apiserver/pkg/util/flowcontrol/request"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/fairqueuing"
	kapireq "github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// Every queue of both sets, the same after every step: random
// configurations, with widths up to the limit.
func TestQueueSetsAgreeStepByStep(t *testing.T) {
	for seed := range uint64(60) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { run(t, seed, false) })
	}
}

// The same while borrowing moves the limit. Requests are one seat wide
// here: requests wider than the limit are where kapi differs on
// purpose (it cuts them down to the limit; kube lets one run when
// nothing executes, overcommitting while final seats linger).
func TestQueueSetsAgreeWhileTheLimitMoves(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { run(t, seed, true) })
	}
}

// pair is one request, given to both sets.
type pair struct {
	id                       string
	kubeRelease, kapiRelease chan struct{}
	kubeDone, kapiDone       chan bool
	kubeCancel, kapiCancel   context.CancelFunc
}

func run(t *testing.T, seed uint64, moveLimit bool) {
	rng := rand.New(rand.NewPCG(seed, 1))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	kubeClock, _ := testeventclock.NewFake(t0, 0, nil)
	kapiClock := fairqueuing.NewFakeClock(t0)
	limit := 1 + rng.IntN(6)
	queues := 1 + rng.IntN(16)
	hand := 1 + rng.IntN(min(queues, 4))
	qll := 1 + rng.IntN(8)
	maxWidth := limit
	if moveLimit {
		maxWidth = 1
	}
	qCfg := fq.QueuingConfig{Name: "pl", DesiredNumQueues: queues, QueueLengthLimit: qll, HandSize: hand}
	completer, err := queueset.NewQueueSetFactory(kubeClock).BeginConstruction(qCfg,
		metrics.RatioedGaugeVecPhasedElementPair(metrics.PriorityLevelConcurrencyGaugeVec, 1, 1, []string{"pl"}),
		metrics.PriorityLevelExecutionSeatsGaugeVec.NewForLabelValuesSafe(0, 1, []string{"pl"}),
		fq.NewNamedIntegrator(kubeClock, "pl"))
	if err != nil {
		t.Fatal(err)
	}
	kube := completer.Complete(fq.DispatchingConfig{ConcurrencyLimit: limit, ConcurrencyDenominator: limit})
	// kube dispatches on its events only; a reconfiguration to the same
	// is one that changes nothing else.
	kubeDispatch := func() {
		c, err := kube.BeginConfigChange(qCfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Complete(fq.DispatchingConfig{ConcurrencyLimit: limit, ConcurrencyDenominator: limit})
	}
	kapi, err := fairqueuing.New(fairqueuing.Config{Name: "pl", Queues: queues, HandSize: hand, QueueLengthLimit: qll, ConcurrencyLimit: limit},
		fairqueuing.Options{Clock: kapiClock})
	if err != nil {
		t.Fatal(err)
	}

	hashes := make([]uint64, 1+rng.IntN(8))
	for i := range hashes {
		hashes[i] = rng.Uint64()
	}
	var live []*pair
	var trace []string
	now := t0
	// advance moves both clocks, stopping at each of kube's events:
	// kube runs an event with the clock at the end of the step, kapi at
	// the event's own time.
	advance := func(to time.Time) {
		for {
			next, ok := kubeClock.GetNextTime()
			if !ok || next.After(to) {
				break
			}
			if next.After(now) {
				kapiClock.Step(next.Sub(now))
				now = next
			}
			kubeClock.SetTime(next)
		}
		kapiClock.Step(to.Sub(now))
		kubeClock.SetTime(to)
		now = to
	}
	remove := func(id string) *pair {
		for i, p := range live {
			if p.id == id {
				live = slices.Delete(live, i, i+1)
				return p
			}
		}
		t.Fatalf("%s is not live", id)
		return nil
	}
	defer func() {
		for _, p := range live {
			p.kubeCancel()
			p.kapiCancel()
			close(p.kubeRelease)
			close(p.kapiRelease)
		}
	}()

	for step := range 300 {
		switch op := rng.IntN(11); {
		case op < 5:
			id := fmt.Sprintf("r%d", step)
			w := kapireq.WorkEstimate{InitialSeats: uint64(1 + rng.IntN(maxWidth))}
			if rng.IntN(4) == 0 {
				w.FinalSeats = uint64(1 + rng.IntN(maxWidth))
				w.AdditionalLatency = time.Duration(1+rng.IntN(20)) * time.Millisecond
			}
			h := hashes[rng.IntN(len(hashes))]
			trace = append(trace, fmt.Sprintf("%d: %s arrives, %+v, flow %d", step, id, w, slices.Index(hashes, h)))
			kw := kubereq.WorkEstimate{InitialSeats: w.InitialSeats, FinalSeats: w.FinalSeats, AdditionalLatency: w.AdditionalLatency}
			kubeCtx, kubeCancel := context.WithCancel(genericrequest.WithUser(context.Background(), &user.DefaultInfo{Name: id}))
			kapiCtx, kapiCancel := context.WithCancel(context.Background())
			kr, _ := kube.StartRequest(kubeCtx, &kw, h, "d", "fs", id, nil, nil)
			mr, _ := kapi.StartRequest(kapiCtx, w, fairqueuing.Flow{Hash: h, Schema: "fs", Distinguisher: "d"}, id)
			if (kr == nil) != (mr == nil) {
				t.Fatalf("step %d: %s rejected by kube: %v, by kapi: %v", step, id, kr == nil, mr == nil)
			}
			if kr == nil {
				kubeCancel()
				kapiCancel()
				break
			}
			p := &pair{id: id, kubeRelease: make(chan struct{}), kapiRelease: make(chan struct{}),
				kubeDone: make(chan bool, 1), kapiDone: make(chan bool, 1), kubeCancel: kubeCancel, kapiCancel: kapiCancel}
			go func() {
				executed := false
				kr.Finish(func() { executed = true; <-p.kubeRelease })
				p.kubeDone <- executed
			}()
			go func() { p.kapiDone <- mr.Finish(func() { <-p.kapiRelease }) }()
			live = append(live, p)
		case op < 8:
			execs := ids(kube, false)
			if len(execs) == 0 {
				break
			}
			sort.Slice(execs, func(i, j int) bool { return num(execs[i]) < num(execs[j]) })
			p := remove(execs[0])
			trace = append(trace, fmt.Sprintf("%d: %s finishes", step, p.id))
			close(p.kubeRelease)
			close(p.kapiRelease)
			<-p.kubeDone
			<-p.kapiDone
		case op < 9:
			waits := ids(kube, true)
			if len(waits) == 0 {
				break
			}
			p := remove(waits[rng.IntN(len(waits))])
			trace = append(trace, fmt.Sprintf("%d: %s is cancelled", step, p.id))
			p.kubeCancel()
			p.kapiCancel()
			if <-p.kubeDone || <-p.kapiDone {
				t.Fatalf("step %d: a cancelled request executed", step)
			}
			// kapi dispatches when a cancelled request leaves its queue;
			// kube waits for its next event.
			kubeDispatch()
			close(p.kubeRelease)
			close(p.kapiRelease)
		case op < 10 || !moveLimit:
			d := time.Duration(rng.IntN(10)) * time.Millisecond
			trace = append(trace, fmt.Sprintf("%d: %v pass", step, d))
			advance(now.Add(d))
		default:
			limit = 1 + rng.IntN(6)
			trace = append(trace, fmt.Sprintf("%d: the limit becomes %d", step, limit))
			kubeDispatch()
			kapi.SetConcurrencyLimit(limit)
		}
		if k, m := describeKube(kube), describeKapi(kapi); !sameState(k, m) {
			t.Fatalf("step %d (limit %d, %d queues, hand %d, queue length limit %d): the sets differ\nkube: %s\nkapi: %s\nlast steps:\n%s",
				step, limit, queues, hand, qll, k, m, strings.Join(trace[max(0, len(trace)-20):], "\n"))
		}
	}
}

// ids are the requests kube has waiting or executing.
func ids(qs fq.QueueSet, waiting bool) []string {
	var ids []string
	for _, q := range qs.Dump(true).Queues {
		rs := q.RequestsExecuting
		if waiting {
			rs = q.Requests
		}
		for _, r := range rs {
			ids = append(ids, r.UserName)
		}
	}
	return ids
}

func num(id string) (n int) {
	fmt.Sscanf(id, "r%d", &n)
	return n
}

func describe(waiting, executing, seats int, queues [][2][]string, queueSeats []int, nextR []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "waiting %d executing %d seats %d |", waiting, executing, seats)
	for i, q := range queues {
		sort.Strings(q[1])
		fmt.Fprintf(&b, " q%d waiting%v executing%v seats %d R%s", i, q[0], q[1], queueSeats[i], nextR[i])
	}
	return b.String()
}

func describeKube(qs fq.QueueSet) string {
	d := qs.Dump(true)
	queues := make([][2][]string, len(d.Queues))
	seats := make([]int, len(d.Queues))
	rs := make([]string, len(d.Queues))
	for i, q := range d.Queues {
		for _, r := range q.Requests {
			queues[i][0] = append(queues[i][0], r.UserName)
		}
		for _, r := range q.RequestsExecuting {
			queues[i][1] = append(queues[i][1], r.UserName)
		}
		seats[i], rs[i] = q.SeatsInUse, q.NextDispatchR
	}
	return describe(d.Waiting, d.Executing, d.SeatsInUse, queues, seats, rs)
}

func describeKapi(qs *fairqueuing.QueueSet) string {
	d := qs.Dump(true)
	queues := make([][2][]string, len(d.Queues))
	seats := make([]int, len(d.Queues))
	rs := make([]string, len(d.Queues))
	for i, q := range d.Queues {
		for _, r := range q.Waiting {
			queues[i][0] = append(queues[i][0], r.Descr.(string))
		}
		for _, r := range q.Executing {
			queues[i][1] = append(queues[i][1], r.Descr.(string))
		}
		seats[i], rs[i] = q.SeatsInUse, q.NextDispatchR.String()
	}
	return describe(d.WaitingRequests, d.ExecutingRequests, d.SeatsInUse, queues, seats, rs)
}

var virtualTime = regexp.MustCompile(`R([0-9]+\.[0-9]+)ss`)

// sameState compares two descriptions, virtual times within 1e-7
// seat-seconds: kube also brings R up to date when its waiters wake,
// at moments that depend on goroutine scheduling, and every update
// rounds to 1e-8.
func sameState(a, b string) bool {
	if virtualTime.ReplaceAllString(a, "R") != virtualTime.ReplaceAllString(b, "R") {
		return false
	}
	ra, rb := virtualTime.FindAllStringSubmatch(a, -1), virtualTime.FindAllStringSubmatch(b, -1)
	for i := range ra {
		x, _ := strconv.ParseFloat(ra[i][1], 64)
		y, _ := strconv.ParseFloat(rb[i][1], 64)
		if math.Abs(x-y) > 1e-7 {
			return false
		}
	}
	return true
}
