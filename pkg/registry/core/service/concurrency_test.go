package service

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
)

// Two kapi servers on one etcd, creating Services at the same time, never
// hand out one node port or cluster IP twice, and together fill the node
// port range exactly.
func TestTwoServersNeverShareANodePortOrClusterIP(t *testing.T) {
	c := newCluster("10.0.0.0/27", "30000-30019") // 29 IPs for new Services, 20 node ports
	servers := []*server{c.server(t), c.server(t)}

	const creates = 24
	var wg sync.WaitGroup
	errs := make([]error, creates)
	for i := range creates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = servers[i%2].create(t, svc(fmt.Sprintf("s%d", i), corev1.ServiceTypeNodePort, "80"))
		}()
	}
	wg.Wait()

	created := 0
	for i, err := range errs {
		switch {
		case err == nil:
			created++
		case apierrors.IsInternalError(err) && apierrors.ReasonForError(err) == metav1.StatusReasonInternalError:
			// The range is full.
		default:
			t.Errorf("creating s%d: %v", i, err)
		}
	}
	if created != 20 {
		t.Errorf("%d Services created, want 20: one per node port", created)
	}

	list, err := servers[0].List(nsContext(), &metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ports, ips := map[int32]string{}, map[string]string{}
	for _, s := range list.(*corev1.ServiceList).Items {
		p := s.Spec.Ports[0].NodePort
		if other, dup := ports[p]; dup {
			t.Errorf("node port %d given to %s and %s", p, other, s.Name)
		}
		ports[p] = s.Name
		if other, dup := ips[s.Spec.ClusterIP]; dup {
			t.Errorf("cluster IP %s given to %s and %s", s.Spec.ClusterIP, other, s.Name)
		}
		ips[s.Spec.ClusterIP] = s.Name
		if !servers[1].portAllocated(t, p) {
			t.Errorf("node port %d of %s is not allocated", p, s.Name)
		}
		if owner := servers[1].ipOwner(t, s.Spec.ClusterIP); owner != "default/"+s.Name {
			t.Errorf("cluster IP %s of %s reserved for %q", s.Spec.ClusterIP, s.Name, owner)
		}
	}
	if len(ports) != created {
		t.Errorf("%d Services stored, %d created", len(ports), created)
	}
	// Refused creates left nothing behind: one node port and one IP per
	// stored Service.
	if n := servers[0].countReservations(t); n != 2*created {
		t.Errorf("%d reservations for %d Services", n, created)
	}
}

// When both servers are asked for the same node port and cluster IP at
// once, exactly one request gets them.
func TestTwoServersAskedForTheSamePortGiveItToOne(t *testing.T) {
	c := newCluster("10.0.0.0/24", "30000-32767")
	servers := []*server{c.server(t), c.server(t)}

	const creates = 8
	var wg sync.WaitGroup
	errs := make([]error, creates)
	for i := range creates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := svc(fmt.Sprintf("s%d", i), corev1.ServiceTypeNodePort, "80:31000")
			if i%4 == 0 {
				s.Spec.ClusterIP = "10.0.0.99"
			}
			_, errs[i] = servers[i%2].create(t, s)
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !apierrors.IsInvalid(err):
			t.Errorf("creating s%d: %v, want a conflict", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d creates got node port 31000, want 1", won)
	}
	if n := servers[0].countReservations(t); n != 2 {
		t.Errorf("%d reservations, want the winner's node port and IP", n)
	}
}

// A leaked node port, once the repair has freed it, goes to exactly one
// of several requests on both servers that want it at once.
func TestTwoServersGiveAFreedLeakToOne(t *testing.T) {
	c := newCluster("10.0.0.0/24", "30000-32767")
	servers := []*server{c.server(t), c.server(t)}
	servers[0].leakPort(t, 31000)
	for range portallocator.LeakPasses {
		if _, err := servers[0].Repair(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if servers[1].portAllocated(t, 31000) {
		t.Fatal("31000 still allocated after the repairs")
	}

	const creates = 8
	var wg sync.WaitGroup
	errs := make([]error, creates)
	for i := range creates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = servers[i%2].create(t, svc(fmt.Sprintf("s%d", i), corev1.ServiceTypeNodePort, "80:31000"))
		}()
	}
	wg.Wait()
	won := ""
	for i, err := range errs {
		switch {
		case err == nil && won != "":
			t.Errorf("s%d and %s both got node port 31000", i, won)
		case err == nil:
			won = fmt.Sprintf("s%d", i)
		case !apierrors.IsInvalid(err):
			t.Errorf("creating s%d: %v, want a conflict", i, err)
		}
	}
	if won == "" || !servers[1].portAllocated(t, 31000) {
		t.Errorf("31000 allocated: %v, created by %q", servers[1].portAllocated(t, 31000), won)
	}
}
