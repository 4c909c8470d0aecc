package service

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/registry/core/service/portallocator"
)

// recordedBitmap reads a bitmap kube-apiserver stored (see
// testdata/servicenodeports/README.md).
func recordedBitmap(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/servicenodeports/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// storedBitmap reads the bytes of the node port bitmap a cluster stores.
func (c *cluster) storedBitmap(t *testing.T) []byte {
	t.Helper()
	resp, err := etcd.Client().Get(context.Background(), c.prefix+portallocator.Key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("no %s%s", c.prefix, portallocator.Key)
	}
	return resp.Kvs[0].Value
}

// decodeRangeAllocation decodes a stored bitmap.
func decodeRangeAllocation(t *testing.T, data []byte) *corev1.RangeAllocation {
	t.Helper()
	ra := &corev1.RangeAllocation{}
	pb := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	if _, _, err := pb.Decode(data, nil, ra); err != nil {
		t.Fatal(err)
	}
	return ra
}

// The bitmap kapi stores for a sequence of Services is, byte for byte,
// the one kube-apiserver stored for the same sequence: created empty at
// start-up, with a bit per allocated port.
func TestTheNodePortBitmapIsStoredAsKubeAPIServerStoresIt(t *testing.T) {
	c := newCluster("10.0.0.0/24", "30000-32767")
	s := c.server(t)
	check := func(step, recording string) {
		t.Helper()
		want, got := recordedBitmap(t, recording), c.storedBitmap(t)
		if diff := cmp.Diff(decodeRangeAllocation(t, want), decodeRangeAllocation(t, got)); diff != "" {
			t.Errorf("%s: stored RangeAllocation (-kube-apiserver +kapi):\n%s", step, diff)
		}
		if string(want) != string(got) {
			t.Errorf("%s: stored bytes\n%q\nkube-apiserver stored\n%q", step, got, want)
		}
	}
	check("start-up", "1-empty.pb")
	for _, p := range []string{"30000", "30001", "32767"} {
		s.mustCreate(t, svc("np-"+p, corev1.ServiceTypeNodePort, "80:"+p))
	}
	check("after three Services", "2-allocated-30000-30001-32767.pb")
	s.delete(t, "np-30001")
	check("after a delete", "3-released-30001.pb")
}

// A kapi sharing its etcd with a kube-apiserver reads the bitmap the
// latter wrote: the ports it has allocated are refused, the others
// handed out.
func TestKapiRefusesTheNodePortsKubeAPIServerAllocated(t *testing.T) {
	c := newCluster("10.0.0.0/24", "30000-32767")
	if _, err := etcd.Client().Put(context.Background(), c.prefix+portallocator.Key, string(recordedBitmap(t, "3-released-30001.pb"))); err != nil {
		t.Fatal(err)
	}
	s := c.server(t)
	for _, p := range []string{"30000", "32767"} {
		_, err := s.create(t, svc("np-"+p, corev1.ServiceTypeNodePort, "80:"+p))
		wantStatus(t, err, 422, `Service "np-`+p+`" is invalid: spec.ports[0].nodePort: Invalid value: `+p+`: provided port is already allocated`)
	}
	s.mustCreate(t, svc("np-30001", corev1.ServiceTypeNodePort, "80:30001"))
	got, err := s.NodePorts().Allocated(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{30000, 30001, 32767}, got); diff != "" {
		t.Errorf("allocated ports (-want +got):\n%s", diff)
	}
}
