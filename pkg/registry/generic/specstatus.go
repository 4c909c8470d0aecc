package generic

import (
	"context"
	"maps"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Most kinds split their objects into a spec, which clients write, and a
// status, which controllers write through /status. kube-apiserver gives
// each of them the same two strategies, and kapi used to copy them into
// every resource with only the type and the field names changed.
// SpecStrategy and StatusStrategy are those two strategies written once:
// a resource states which fields are its spec and status, whether it
// counts generations, what a status write keeps of the metadata, and its
// validation. A resource that does one more thing (initialises its status,
// normalises a field) embeds them and overrides the method concerned.

// Object is what these strategies need of a kind's Go type. Every
// built-in kind is one: a pointer to a struct embedding metav1.ObjectMeta.
type Object interface {
	runtime.Object
	metav1.Object
}

// Part is one top-level field of a T, its spec or its status, which a
// strategy clears, carries over from the stored object, or compares as a
// whole. The zero Part is a field the kind does not have.
type Part[T any] struct {
	clear   func(obj T)
	keep    func(obj, old T)
	changed func(obj, old T) bool
}

// FieldPart is the Part that field points to, as in
//
//	generic.FieldPart(func(rs *appsv1.ReplicaSet) *appsv1.ReplicaSetSpec { return &rs.Spec })
//
// It works on the field's own type, without reflection: clearing assigns
// the zero value and keeping assigns the stored value, as the strategies
// written out by hand did.
func FieldPart[T, F any](field func(obj T) *F) Part[T] {
	return Part[T]{
		clear: func(obj T) {
			var zero F
			*field(obj) = zero
		},
		keep: func(obj, old T) { *field(obj) = *field(old) },
		changed: func(obj, old T) bool {
			return !apiequality.Semantic.DeepEqual(*field(obj), *field(old))
		},
	}
}

func (p Part[T]) exists() bool { return p.clear != nil }

// SpecStrategy is the strategy of a kind whose status, if it has one, is
// written through /status only (see StatusStrategy):
//
//   - on create the status is cleared and, with CountGenerations,
//     metadata.generation is 1;
//   - on update the stored status is kept and, with CountGenerations,
//     metadata.generation goes up by one when the spec changes (the
//     Store has already carried the stored generation over);
//   - for server-side apply the status is a reset field.
//
// Before either, DropDisabled (if set) drops the fields of feature gates
// that are off, so that the generation counts what is kept.
type SpecStrategy[T Object] struct {
	DefaultStrategy
	// APIVersions are the versions the reset fields are given for: the
	// versions the resource is served in.
	APIVersions []string
	// Spec and Status are the kind's two parts. A kind without a status
	// (network policies) leaves Status zero: nothing is cleared or kept
	// and nothing is reset.
	Spec, Status Part[T]
	// CountGenerations makes metadata.generation count changes of the
	// spec, so that controllers can report which spec they have seen
	// (status.observedGeneration).
	CountGenerations bool
	// DropDisabled drops from obj the fields of feature gates that are
	// off, but those old already uses; old is the zero T (nil) on create.
	// See package gated.
	DropDisabled       func(obj, old T)
	ValidateFunc       func(obj T) field.ErrorList
	ValidateUpdateFunc func(obj, old T) field.ErrorList
}

func (s SpecStrategy[T]) PrepareForCreate(_ context.Context, obj runtime.Object) {
	o := obj.(T)
	if s.DropDisabled != nil {
		var none T
		s.DropDisabled(o, none)
	}
	if s.Status.exists() {
		s.Status.clear(o)
	}
	if s.CountGenerations {
		o.SetGeneration(1)
	}
}

func (s SpecStrategy[T]) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	o, oldO := obj.(T), old.(T)
	if s.DropDisabled != nil {
		s.DropDisabled(o, oldO)
	}
	if s.Status.exists() {
		s.Status.keep(o, oldO)
	}
	if s.CountGenerations && s.Spec.changed(o, oldO) {
		o.SetGeneration(o.GetGeneration() + 1)
	}
}

// GetResetFields is the status, written through /status only; nil for a
// kind without one.
func (s SpecStrategy[T]) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	if !s.Status.exists() {
		return nil
	}
	return s.resetFields([]string{"status"})
}

func (s SpecStrategy[T]) resetFields(paths ...[]string) map[fieldpath.APIVersion]*fieldpath.Set {
	out := map[fieldpath.APIVersion]*fieldpath.Set{}
	for _, v := range s.APIVersions {
		maps.Copy(out, ResetFields(v, paths...))
	}
	return out
}

func (s SpecStrategy[T]) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return s.ValidateFunc(obj.(T))
}

func (s SpecStrategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return s.ValidateUpdateFunc(obj.(T), old.(T))
}

// StatusStrategy is the strategy of the /status of a SpecStrategy's kind:
// a status write keeps the stored spec and, as KeepMetadata says, parts
// of the stored metadata. It answers everything else as the kind's
// SpecStrategy does, but gives no warnings: they are about what the
// client wrote in the spec.
type StatusStrategy[T Object] struct {
	SpecStrategy[T]
	// KeepMetadata carries over the metadata a status write may not
	// change. nil lets it change what an update of the object may, as
	// kube-apiserver does for its older kinds; the newer ones use
	// metav1.ResetObjectMetaForStatus or KeepAllMetadata.
	KeepMetadata func(meta, stored metav1.Object)
	// ResetPaths are the fields, besides the spec, that server-side
	// apply sees reset: what KeepMetadata keeps ({"metadata"} or
	// {"metadata", "labels"}, ...), as kube-apiserver lists it.
	ResetPaths               [][]string
	ValidateStatusUpdateFunc func(obj, old T) field.ErrorList
}

func (s StatusStrategy[T]) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	o, oldO := obj.(T), old.(T)
	s.Spec.keep(o, oldO)
	if s.KeepMetadata != nil {
		s.KeepMetadata(o, oldO)
	}
}

// GetResetFields is what /status keeps: the spec and ResetPaths.
func (s StatusStrategy[T]) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return s.resetFields(append([][]string{{"spec"}}, s.ResetPaths...)...)
}

func (s StatusStrategy[T]) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return s.ValidateStatusUpdateFunc(obj.(T), old.(T))
}

func (StatusStrategy[T]) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// KeepAllMetadata keeps all of the stored metadata but the managed
// fields, which the field manager has just updated for the status write:
// a status write cannot even change labels. meta and stored are objects
// of a built-in kind.
func KeepAllMetadata(meta, stored metav1.Object) {
	m, s := objectMeta(meta), objectMeta(stored)
	managed := m.ManagedFields
	*m = *s.DeepCopy()
	m.ManagedFields = managed
}

func objectMeta(obj metav1.Object) *metav1.ObjectMeta {
	return obj.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
}
