package fairqueuing_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kapi-dev/kapi/pkg/flowcontrol/fairqueuing"
	"github.com/kapi-dev/kapi/pkg/flowcontrol/request"
)

// A priority level of one seat: the first request executes at once,
// the second waits in its queue until the first is done.
func Example() {
	qs, err := fairqueuing.New(fairqueuing.Config{
		Name: "workload-low", Queues: 128, HandSize: 6, QueueLengthLimit: 50, ConcurrencyLimit: 1,
	}, fairqueuing.Options{})
	if err != nil {
		panic(err)
	}
	flow := fairqueuing.Flow{Hash: 0x5eed, Schema: "service-accounts", Distinguisher: "system:serviceaccount:default:builder"}
	one := request.WorkEstimate{InitialSeats: 1}

	first, _ := qs.StartRequest(context.Background(), one, flow, "GET /api/v1/pods")
	// The caller bounds the wait in the queue with its context.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	second, _ := qs.StartRequest(ctx, one, flow, "GET /api/v1/nodes")
	fmt.Printf("%+v\n", qs.Counts())

	done := make(chan bool)
	go func() { done <- second.Finish(func() { fmt.Println("second executes") }) }()
	first.Finish(func() { fmt.Println("first executes") })
	fmt.Println("second executed:", <-done)
	fmt.Printf("%+v\n", qs.Counts())
	// Output:
	// {WaitingRequests:1 ExecutingRequests:1 WaitingSeats:1 SeatsInUse:1}
	// first executes
	// second executes
	// second executed: true
	// {WaitingRequests:0 ExecutingRequests:0 WaitingSeats:0 SeatsInUse:0}
}

// A request over the limit is rejected; why says which metric label
// and response apply.
func ExampleQueueSet_StartRequest_rejected() {
	qs, _ := fairqueuing.New(fairqueuing.Config{Name: "reject-only", ConcurrencyLimit: 1}, fairqueuing.Options{})
	flow := fairqueuing.Flow{Schema: "probes"}
	running, _ := qs.StartRequest(context.Background(), request.WorkEstimate{InitialSeats: 1}, flow, nil)
	_, why := qs.StartRequest(context.Background(), request.WorkEstimate{InitialSeats: 1}, flow, nil)
	fmt.Println(why)
	running.Finish(func() {})
	// Output: concurrency-limit
}
