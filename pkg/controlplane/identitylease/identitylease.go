// Package identitylease publishes the identity of an API server replica,
// as kube-apiserver does: a Lease in kube-system named apiserver-<hash of
// the host name and "kube-apiserver">, labelled
// apiserver.kubernetes.io/identity=kube-apiserver and
// kubernetes.io/hostname=<host>, annotated with the address peers reach
// it at, held for an hour and renewed every ten seconds. A collector
// deletes the identity leases nobody renewed within their duration.
package identitylease

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"log/slog"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kapi-dev/kapi/pkg/client"
)

const (
	// IdentityLabel marks a Lease as the identity of a server; its value
	// names the kind of server.
	IdentityLabel = "apiserver.kubernetes.io/identity"
	// Component is the value of IdentityLabel for kube-apiserver and
	// kapi.
	Component = "kube-apiserver"
	// DurationSeconds is how long an identity lease is held.
	DurationSeconds = 3600
	// RenewInterval is how often it is renewed.
	RenewInterval = 10 * time.Second
	// GCInterval is how often expired identity leases are collected.
	GCInterval = time.Hour
)

// Name is the identity of a server on host: "apiserver-" and the base32
// of the first 16 bytes of the SHA-256 of the host name and the component,
// each prefixed with its length on two bytes, as kube-apiserver computes
// it.
func Name(host string) string {
	var data []byte
	for _, s := range []string{host, Component} {
		data = binary.BigEndian.AppendUint16(data, uint16(len(s)))
		data = append(data, s...)
	}
	sum := sha256.Sum256(data)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}

// Controller holds and renews the identity lease of one server.
type Controller struct {
	// Leases are those of kube-system.
	Leases client.Interface[*coordinationv1.Lease, *coordinationv1.LeaseList]
	// Host is the host name of the server.
	Host string
	// PeerAddress is host:port peers reach the server at.
	PeerAddress string
	Logger      *slog.Logger

	holder string
	now    func() time.Time
}

// NewController returns the identity lease controller of a server on
// host; its holder identity is the lease's name and a fresh UUID.
func NewController(leases client.Interface[*coordinationv1.Lease, *coordinationv1.LeaseList], host, peerAddress string, log *slog.Logger) *Controller {
	return &Controller{Leases: leases, Host: host, PeerAddress: peerAddress, Logger: log,
		holder: Name(host) + "_" + string(uuid.NewUUID()), now: time.Now}
}

// Run renews the lease every RenewInterval until ctx is done; the lease is
// created, or recreated after a delete, by the first renewal that misses
// it.
func (c *Controller) Run(ctx context.Context) {
	t := time.NewTicker(RenewInterval)
	defer t.Stop()
	for {
		if err := c.Renew(ctx); err != nil && ctx.Err() == nil {
			c.Logger.Error("Failed to renew the apiserver identity lease", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Renew creates the lease if it is missing and otherwise renews it, with
// its labels and annotation put back.
func (c *Controller) Renew(ctx context.Context) error {
	leases := c.Leases
	name := Name(c.Host)
	lease, err := leases.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceSystem},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &c.holder, LeaseDurationSeconds: ptr(int32(DurationSeconds))},
		}
		c.prepare(lease)
		_, err = leases.Create(ctx, lease, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	lease.Spec.HolderIdentity = &c.holder
	lease.Spec.LeaseDurationSeconds = ptr(int32(DurationSeconds))
	c.prepare(lease)
	_, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
	return err
}

func (c *Controller) prepare(lease *coordinationv1.Lease) {
	now := metav1.NewMicroTime(c.now())
	lease.Spec.RenewTime = &now
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	lease.Labels[IdentityLabel] = Component
	lease.Labels[corev1.LabelHostname] = c.Host
	if c.PeerAddress != "" {
		if lease.Annotations == nil {
			lease.Annotations = map[string]string{}
		}
		lease.Annotations[corev1.AnnotationPeerAdvertiseAddress] = c.PeerAddress
	}
}

// Collect deletes the identity leases of kube-system that have expired at
// now: their renewal plus their duration is past. A lease is read again
// before it goes, and deleted only at the version that was read, so that
// a server renewing it in between keeps it.
func Collect(ctx context.Context, leases client.Interface[*coordinationv1.Lease, *coordinationv1.LeaseList], now time.Time) error {
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: IdentityLabel + "=" + Component})
	if err != nil {
		return err
	}
	for _, l := range list.Items {
		if !expired(&l, now) {
			continue
		}
		cur, err := leases.Get(ctx, l.Name, metav1.GetOptions{})
		if err != nil || !expired(cur, now) {
			continue
		}
		err = leases.Delete(ctx, l.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &cur.ResourceVersion}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
	}
	return nil
}

// RunCollector collects expired leases every interval until ctx is done.
func RunCollector(ctx context.Context, leases client.Interface[*coordinationv1.Lease, *coordinationv1.LeaseList], interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := Collect(ctx, leases, time.Now()); err != nil && ctx.Err() == nil {
			log.Error("Failed to collect expired apiserver identity leases", "err", err)
		}
	}
}

func expired(l *coordinationv1.Lease, now time.Time) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return true
	}
	return l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second).Before(now)
}

func ptr[T any](v T) *T { return &v }
