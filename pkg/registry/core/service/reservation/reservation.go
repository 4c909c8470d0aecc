// Package reservation keeps the reservations of scarce values, the
// cluster IPs of Services, as one small object per value in storage (node
// ports are a bitmap, as in kube-apiserver: see package portallocator). Creating the object is the reservation: etcd creates a
// key only if it is absent, so two API servers sharing one etcd can never
// reserve the same value, and there is no in-memory state to lose or to
// rebuild after a restart.
//
// # Orphans
//
// Every reservation names the Service it was made for (its owner). A
// Service write is not in the same etcd transaction as the reservations
// it needs: a server reserves first, then writes the Service, and rolls
// the reservations back if the write fails. A server that dies in
// between leaves an orphan: a reservation that no Service uses. Orphans
// are not left forever: a request that finds a value reserved checks the
// reservation, and takes it over when
//
//   - it is older than the grace period (Table.Grace, ten minutes by
//     default), and
//   - its owner, read from storage at that moment, does not exist or does
//     not use the value.
//
// The grace period protects requests in flight: a reservation is made at
// most one request's lifetime (a minute by default) before the write of
// the Service that uses it, so a young reservation whose Service is not
// there yet may still be about to be used. The grace period is compared
// with the reservation's creationTimestamp, written by the server that
// made it, so it must also cover the clock skew between servers; ten
// minutes covers both with room to spare. The takeover deletes the orphan
// only if it is still the version that was checked, then reserves the
// value anew, so two servers reclaiming the same orphan cannot both win.
//
// A request that finds the range full looks for orphans among the old
// reservations before giving up, so orphans never make a range look
// exhausted for longer than the grace period either.
package reservation

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// DefaultGrace is how old an unused reservation must be before another
// request may reclaim it.
const DefaultGrace = 10 * time.Minute

// ErrTaken means the value is reserved by someone else.
var ErrTaken = errors.New("value is reserved")

// ErrFull means no value of the range could be reserved.
var ErrFull = errors.New("range is full")

// Owner names the Service a value is reserved for.
type Owner struct{ Namespace, Name string }

func (o Owner) String() string { return o.Namespace + "/" + o.Name }

// HoldsFunc reports whether owner, as stored now, uses value. It must read
// the latest state (a quorum read), not a cache.
type HoldsFunc func(ctx context.Context, owner Owner, value string) (bool, error)

// Kind is how a table stores its reservations.
type Kind struct {
	// New returns an empty reservation object, to read into.
	New func() runtime.Object
	// NewList returns an empty list of reservation objects.
	NewList func() runtime.Object
	// Make returns the reservation of value for owner, created at now.
	Make func(value string, owner Owner, now metav1.Time) runtime.Object
	// Owner returns the Service a stored reservation names, and false if
	// it names none: such reservations belong to someone else and are
	// never reclaimed or released.
	Owner func(obj runtime.Object) (Owner, bool)
}

// Table holds the reservations of one kind of value: the object of value
// v is stored at key Prefix+v.
type Table struct {
	storage storage.Interface
	prefix  string
	kind    Kind
	holds   HoldsFunc

	// Grace is how old an unused reservation must be before it is
	// reclaimed. Set it before the table is used.
	Grace time.Duration
	// Now is the clock reservations are stamped and aged with; nil
	// means time.Now. Set it before the table is used.
	Now func() time.Time
}

// New returns the table of reservations stored in st below prefix (which
// ends in "/").
func New(st storage.Interface, prefix string, kind Kind) *Table {
	return &Table{storage: st, prefix: prefix, kind: kind, Grace: DefaultGrace}
}

// SetHolds sets how the table learns whether a reservation's owner still
// uses it. Until it is set, no reservation is ever reclaimed. Call it
// before the table is used.
func (t *Table) SetHolds(h HoldsFunc) { t.holds = h }

func (t *Table) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func (t *Table) key(value string) string { return t.prefix + value }

// Reserve reserves value for owner, reclaiming an orphaned reservation of
// it. It returns ErrTaken if someone else holds the value. A dry run
// reserves nothing but answers as a real one would.
func (t *Table) Reserve(ctx context.Context, value string, owner Owner, dryRun bool) error {
	key := t.key(value)
	// A reclaim can lose a race with another server's; a few rounds
	// settle it.
	for range 3 {
		if dryRun {
			existing, err := t.get(ctx, key)
			if err != nil || existing == nil {
				return err
			}
			reclaim, err := t.reclaimable(ctx, value, existing)
			if err != nil {
				return err
			}
			if !reclaim {
				return ErrTaken
			}
			return nil
		}
		err := t.storage.Create(ctx, key, t.kind.Make(value, owner, metav1.NewTime(t.now())), nil)
		if err == nil {
			return nil
		}
		if !storage.IsExist(err) {
			return err
		}
		existing, err := t.get(ctx, key)
		if err != nil {
			return err
		}
		if existing == nil {
			// Released in the meantime: try again.
			continue
		}
		reclaim, err := t.reclaimable(ctx, value, existing)
		if err != nil {
			return err
		}
		if !reclaim {
			return ErrTaken
		}
		if err := t.deleteUnchanged(ctx, key, existing); err != nil {
			return err
		}
	}
	return ErrTaken
}

// errNotOwner stops a release of a reservation someone else holds.
var errNotOwner = errors.New("reserved by another owner")

// Release frees value if owner holds it. Releasing a free value, or one
// reserved by someone else (after an orphan was reclaimed), does nothing.
func (t *Table) Release(ctx context.Context, value string, owner Owner) error {
	err := t.storage.Delete(ctx, t.key(value), t.kind.New(), nil, func(_ context.Context, cur runtime.Object) error {
		if o, ok := t.kind.Owner(cur); !ok || o != owner {
			return errNotOwner
		}
		return nil
	})
	if err == nil || storage.IsNotFound(err) || errors.Is(err, errNotOwner) {
		return nil
	}
	return err
}

// Owner returns the owner of value's reservation, and false if the value
// is not reserved (or reserved for something that is not a Service).
func (t *Table) Owner(ctx context.Context, value string) (Owner, bool, error) {
	obj, err := t.get(ctx, t.key(value))
	if err != nil || obj == nil {
		return Owner{}, false, err
	}
	o, ok := t.kind.Owner(obj)
	return o, ok, nil
}

// Reserved returns every stored reservation: value and owner (zero for
// reservations that name no Service).
func (t *Table) Reserved(ctx context.Context) (map[string]Owner, error) {
	list := t.kind.NewList()
	if err := t.storage.GetList(ctx, t.prefix, storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Owner, len(items))
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return nil, err
		}
		o, _ := t.kind.Owner(item)
		out[m.GetName()] = o
	}
	return out, nil
}

// get reads the reservation at key, nil if there is none.
func (t *Table) get(ctx context.Context, key string) (runtime.Object, error) {
	obj := t.kind.New()
	if err := t.storage.Get(ctx, key, storage.GetOptions{IgnoreNotFound: true}, obj); err != nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if m.GetResourceVersion() == "" {
		return nil, nil
	}
	return obj, nil
}

// reclaimable reports whether the stored reservation obj of value is an
// orphan that may be taken over.
func (t *Table) reclaimable(ctx context.Context, value string, obj runtime.Object) (bool, error) {
	if !t.old(obj) || t.holds == nil {
		return false, nil
	}
	owner, ok := t.kind.Owner(obj)
	if !ok {
		return false, nil
	}
	holds, err := t.holds(ctx, owner, value)
	if err != nil {
		return false, fmt.Errorf("checking the owner %s of reservation %s: %w", owner, value, err)
	}
	return !holds, nil
}

// old reports whether a reservation is past its grace period.
func (t *Table) old(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	created := m.GetCreationTimestamp()
	return !created.IsZero() && t.now().Sub(created.Time) >= t.Grace
}

// deleteUnchanged deletes the reservation at key if it is still the one
// read as obj. Losing that race is not an error: the caller tries again.
func (t *Table) deleteUnchanged(ctx context.Context, key string, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	rv := m.GetResourceVersion()
	err = t.storage.Delete(ctx, key, t.kind.New(), &storage.Preconditions{ResourceVersion: &rv}, nil)
	if err == nil || storage.IsNotFound(err) || storage.IsConflict(err) {
		return nil
	}
	return err
}

// Space is the set of values a table hands out: Size values numbered
// from 0, Value naming value n.
type Space struct {
	Size  uint64
	Value func(n uint64) string
	// Number is the inverse of Value; false for values outside the space.
	Number func(value string) (uint64, bool)
}

// Band is the part [Lo, Hi) of a Space.
type Band struct{ Lo, Hi uint64 }

// randomProbes is how many random values ReserveNext tries in a band
// before it reads which are taken. In a range that is not nearly full
// the first one is almost always free.
const randomProbes = 8

// ReserveNext reserves a free value of space for owner and returns it. It
// looks in each band in turn, so that earlier bands fill first: random
// values first, then, if those are taken, a random one of those the
// stored reservations leave free, then orphans. It returns ErrFull if
// every value of every band is held.
func (t *Table) ReserveNext(ctx context.Context, space Space, bands []Band, owner Owner, dryRun bool) (string, error) {
	var reserved map[uint64]runtime.Object
	for _, b := range bands {
		if b.Hi > space.Size {
			b.Hi = space.Size
		}
		if b.Lo >= b.Hi {
			continue
		}
		width := b.Hi - b.Lo
		for range min(randomProbes, width) {
			v := space.Value(b.Lo + rand.Uint64N(width))
			err := t.Reserve(ctx, v, owner, dryRun)
			if err == nil {
				return v, nil
			}
			if !errors.Is(err, ErrTaken) {
				return "", err
			}
		}
		if reserved == nil {
			var err error
			if reserved, err = t.list(ctx, space); err != nil {
				return "", err
			}
		}
		if v, err := t.reserveFree(ctx, space, b, reserved, owner, dryRun); err == nil || !errors.Is(err, ErrFull) {
			return v, err
		}
	}
	// Every value is reserved: look for orphans, oldest reservations
	// being the likeliest.
	var candidates []uint64
	for n, obj := range reserved {
		if t.old(obj) && inBands(n, bands) {
			candidates = append(candidates, n)
		}
	}
	rand.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	const maxReclaims = 16
	for i, n := range candidates {
		if i == maxReclaims {
			break
		}
		v := space.Value(n)
		err := t.Reserve(ctx, v, owner, dryRun)
		if err == nil {
			return v, nil
		}
		if !errors.Is(err, ErrTaken) {
			return "", err
		}
	}
	return "", ErrFull
}

func inBands(n uint64, bands []Band) bool {
	for _, b := range bands {
		if n >= b.Lo && n < b.Hi {
			return true
		}
	}
	return false
}

// reserveFree reserves one of the values of band that reserved leaves
// free, adding to reserved those it finds taken meanwhile.
func (t *Table) reserveFree(ctx context.Context, space Space, b Band, reserved map[uint64]runtime.Object, owner Owner, dryRun bool) (string, error) {
	width := b.Hi - b.Lo
	for {
		taken := uint64(0)
		for n := range reserved {
			if n >= b.Lo && n < b.Hi {
				taken++
			}
		}
		if taken >= width {
			return "", ErrFull
		}
		// Walk from a random start to the next free value: spreads picks
		// so that concurrent servers rarely collide.
		start := rand.Uint64N(width)
		var n uint64
		for i := uint64(0); i < width; i++ {
			n = b.Lo + (start+i)%width
			if _, ok := reserved[n]; !ok {
				break
			}
		}
		v := space.Value(n)
		err := t.Reserve(ctx, v, owner, dryRun)
		if err == nil {
			return v, nil
		}
		if !errors.Is(err, ErrTaken) {
			return "", err
		}
		// Someone took it since the list: note it and pick another. The
		// map entry has no object, so it is never an orphan candidate of
		// this round; a later request will see it.
		reserved[n] = nil
	}
}

// list returns the reservations of the values of space, by number.
func (t *Table) list(ctx context.Context, space Space) (map[uint64]runtime.Object, error) {
	list := t.kind.NewList()
	if err := t.storage.GetList(ctx, t.prefix, storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]runtime.Object, len(items))
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return nil, err
		}
		if n, ok := space.Number(m.GetName()); ok {
			out[n] = item
		}
	}
	return out, nil
}

// ReleaseOrphans deletes every reservation that is past its grace period
// and whose owner no longer uses it, as a repair pass does: the orphans a
// server left when it died between reserving and writing its Service.
// Reservations that name no Service are left alone. It returns how many
// it released.
func (t *Table) ReleaseOrphans(ctx context.Context) (int, error) {
	list := t.kind.NewList()
	if err := t.storage.GetList(ctx, t.prefix, storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		return 0, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return 0, err
	}
	released := 0
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return released, err
		}
		orphan, err := t.reclaimable(ctx, m.GetName(), item)
		if err != nil {
			return released, err
		}
		if !orphan {
			continue
		}
		if err := t.deleteUnchanged(ctx, t.key(m.GetName()), item); err != nil {
			return released, err
		}
		released++
	}
	return released, nil
}
