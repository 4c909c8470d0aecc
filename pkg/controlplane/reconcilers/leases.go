package reconcilers

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/storage/storagebackend"
)

// Leases are the API server replicas known to be alive.
type Leases interface {
	// List returns the addresses of the replicas holding a lease, in the
	// order of their keys.
	List(ctx context.Context) ([]string, error)
	// Update takes or refreshes the lease of ip.
	Update(ctx context.Context, ip string) error
	// Remove gives up the lease of ip.
	Remove(ctx context.Context, ip string) error
}

// EtcdLeases keeps the leases in etcd, below Prefix (--etcd-prefix plus
// "/masterleases/"), each with a TTL.
type EtcdLeases struct {
	Client *clientv3.Client
	Prefix string
	TTL    time.Duration
}

// DefaultLeaseTTL is how long a replica's lease outlives its last refresh,
// as in kube-apiserver.
const DefaultLeaseTTL = 15 * time.Second

var _ Leases = &EtcdLeases{}

var leaseCodec = storagebackend.ProtobufCodec(corev1.SchemeGroupVersion)

func (l *EtcdLeases) key(ip string) string { return path.Join(l.Prefix, ip) }

// List reads every lease below the prefix.
func (l *EtcdLeases) List(ctx context.Context) ([]string, error) {
	resp, err := l.Client.Get(ctx, strings.TrimSuffix(l.Prefix, "/")+"/", clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	ips := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		ep, err := decode(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("lease %s: %w", kv.Key, err)
		}
		if len(ep.Subsets) > 0 && len(ep.Subsets[0].Addresses) > 0 && ep.Subsets[0].Addresses[0].IP != "" {
			ips = append(ips, ep.Subsets[0].Addresses[0].IP)
		}
	}
	return ips, nil
}

// Update refreshes the etcd lease the key of ip hangs on, back to its
// full TTL; a missing key, or one whose etcd lease is gone, is written
// anew under a fresh etcd lease.
func (l *EtcdLeases) Update(ctx context.Context, ip string) error {
	key := l.key(ip)
	cur, err := l.Client.Get(ctx, key)
	if err != nil {
		return err
	}
	if len(cur.Kvs) > 0 && cur.Kvs[0].Lease != 0 {
		if _, err := l.Client.KeepAliveOnce(ctx, clientv3.LeaseID(cur.Kvs[0].Lease)); err == nil {
			return nil
		}
	}
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: ip}}}}}
	value, err := runtime.Encode(leaseCodec, ep)
	if err != nil {
		return err
	}
	grant, err := l.Client.Grant(ctx, int64(l.TTL/time.Second))
	if err != nil {
		return err
	}
	_, err = l.Client.Put(ctx, key, string(value), clientv3.WithLease(grant.ID))
	return err
}

// Remove deletes the lease of ip.
func (l *EtcdLeases) Remove(ctx context.Context, ip string) error {
	_, err := l.Client.Delete(ctx, l.key(ip))
	return err
}

func decode(value []byte) (*corev1.Endpoints, error) {
	ep := &corev1.Endpoints{}
	if _, _, err := leaseCodec.Decode(value, nil, ep); err != nil {
		return nil, err
	}
	return ep, nil
}
