package portallocator

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/pkg/storage"
)

// LegacyKeyPrefix is where kapi versions before the bitmap kept one
// RangeAllocation per allocated port, named after the port.
const LegacyKeyPrefix = "/ranges/kapi_servicenodeports/"

// foldLegacy moves the per-port reservations of older kapi versions into
// the bitmap and deletes them, and returns their ports. The following
// repair pass then keeps each for the Service that holds it, or treats it
// as a leak (a request of an old server may still be writing its
// Service). A bitmap of another range is left to the repair, which
// rebuilds it from the Services. Ports are deleted only once the bitmap
// has them, so a failure leaves them to the next pass.
func (a *Allocator) foldLegacy(ctx context.Context) ([]int, error) {
	list := &legacyList{}
	if err := a.store.GetList(ctx, LegacyKeyPrefix, storage.ListOptions{Recursive: true, Predicate: storage.Everything}, list); err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	var ports []int
	for _, item := range list.Items {
		if p, err := strconv.Atoi(item.Name); err == nil && a.portRange.Contains(p) {
			ports = append(ports, p)
		}
	}
	err := a.store.GuaranteedUpdate(ctx, Key, &corev1.RangeAllocation{}, true, nil,
		func(cur runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			ra := cur.(*corev1.RangeAllocation)
			if ra.ResourceVersion == "" {
				ra.Range = a.portRange.String()
			} else if ra.Range != a.portRange.String() {
				return ra, nil
			}
			b := decodeBitmap(ra.Data)
			for _, p := range ports {
				b.set(p - a.portRange.Base)
			}
			ra.Data = b.encode()
			return ra, nil
		})
	if err != nil {
		return nil, err
	}
	for _, item := range list.Items {
		err := a.store.Delete(ctx, LegacyKeyPrefix+item.Name, &corev1.RangeAllocation{}, nil, nil)
		if err != nil && !storage.IsNotFound(err) {
			return ports, err
		}
	}
	return ports, nil
}

// legacyList is a list of the per-port reservations of older kapi
// versions. core/v1 has no RangeAllocationList; the list itself is never
// encoded, only its items are decoded.
type legacyList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []corev1.RangeAllocation
}

func (l *legacyList) DeepCopyObject() runtime.Object {
	out := &legacyList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]corev1.RangeAllocation, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
