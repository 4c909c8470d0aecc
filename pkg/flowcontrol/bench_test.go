package flowcontrol

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
	"github.com/kapi-dev/kapi/pkg/endpoints/request"
)

// A user of no special group lists pods: classification walks every
// bootstrap schema down to global-default.
var ordinaryList = Digest{
	Info: &request.RequestInfo{IsResourceRequest: true, Verb: "list", APIVersion: "v1", Resource: "pods", Namespace: "default", Path: "/api/v1/namespaces/default/pods"},
	User: &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}},
}

// TestClassificationDoesNotAllocate: classification runs for every
// request; it costs no garbage.
func TestClassificationDoesNotAllocate(t *testing.T) {
	ctl := bootstrapController(t, nil)
	if cl := ctl.Classify(ordinaryList); cl.FlowSchema != "global-default" {
		t.Fatalf("classified %+v", cl)
	}
	if n := testing.AllocsPerRun(100, func() { ctl.Classify(ordinaryList) }); n != 0 {
		t.Errorf("Classify allocates %v times", n)
	}
}

func BenchmarkClassify(b *testing.B) {
	ctl := bootstrapController(b, nil)
	b.ReportAllocs()
	for b.Loop() {
		ctl.Classify(ordinaryList)
	}
}

// BenchmarkHandle is the whole admission of a request at an idle level:
// classification, the flow's hash, the queue set's start and finish.
func BenchmarkHandle(b *testing.B) {
	ctl := bootstrapController(b, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ctl.Handle(ctx, ordinaryList, nil, func(Classification) {})
	}
}
