package storagemigration

import (
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddConversions registers the conversions between v1, the version kapi
// serves, and v1beta1, the version kube-apiserver 1.37 still stores
// migrations in (so that a downgrade can read them). The two versions
// have the same fields.
func AddConversions(scheme *runtime.Scheme) error {
	if err := storagemigrationv1beta1.AddToScheme(scheme); err != nil {
		return err
	}
	pairs := []struct {
		a, b any
		fn   conversion.ConversionFunc
	}{
		{(*storagemigrationv1.StorageVersionMigration)(nil), (*storagemigrationv1beta1.StorageVersionMigration)(nil), func(a, b any, _ conversion.Scope) error {
			*b.(*storagemigrationv1beta1.StorageVersionMigration) = *ToV1beta1(a.(*storagemigrationv1.StorageVersionMigration))
			return nil
		}},
		{(*storagemigrationv1beta1.StorageVersionMigration)(nil), (*storagemigrationv1.StorageVersionMigration)(nil), func(a, b any, _ conversion.Scope) error {
			*b.(*storagemigrationv1.StorageVersionMigration) = *FromV1beta1(a.(*storagemigrationv1beta1.StorageVersionMigration))
			return nil
		}},
		{(*storagemigrationv1.StorageVersionMigrationList)(nil), (*storagemigrationv1beta1.StorageVersionMigrationList)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*storagemigrationv1.StorageVersionMigrationList), b.(*storagemigrationv1beta1.StorageVersionMigrationList)
			out.ListMeta = *in.ListMeta.DeepCopy()
			out.Items = make([]storagemigrationv1beta1.StorageVersionMigration, len(in.Items))
			for i := range in.Items {
				out.Items[i] = *ToV1beta1(&in.Items[i])
			}
			return nil
		}},
		{(*storagemigrationv1beta1.StorageVersionMigrationList)(nil), (*storagemigrationv1.StorageVersionMigrationList)(nil), func(a, b any, _ conversion.Scope) error {
			in, out := a.(*storagemigrationv1beta1.StorageVersionMigrationList), b.(*storagemigrationv1.StorageVersionMigrationList)
			out.ListMeta = *in.ListMeta.DeepCopy()
			out.Items = make([]storagemigrationv1.StorageVersionMigration, len(in.Items))
			for i := range in.Items {
				out.Items[i] = *FromV1beta1(&in.Items[i])
			}
			return nil
		}},
	}
	for _, p := range pairs {
		if err := scheme.AddConversionFunc(p.a, p.b, p.fn); err != nil {
			return err
		}
	}
	return nil
}

// ToV1beta1 returns the v1beta1 form of a migration, sharing no memory
// with it.
func ToV1beta1(in *storagemigrationv1.StorageVersionMigration) *storagemigrationv1beta1.StorageVersionMigration {
	in = in.DeepCopy()
	return &storagemigrationv1beta1.StorageVersionMigration{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Spec:       storagemigrationv1beta1.StorageVersionMigrationSpec{Resource: in.Spec.Resource},
		Status:     storagemigrationv1beta1.StorageVersionMigrationStatus{Conditions: in.Status.Conditions, ResourceVersion: in.Status.ResourceVersion},
	}
}

// FromV1beta1 returns the v1 form of a migration, sharing no memory with
// it.
func FromV1beta1(in *storagemigrationv1beta1.StorageVersionMigration) *storagemigrationv1.StorageVersionMigration {
	in = in.DeepCopy()
	return &storagemigrationv1.StorageVersionMigration{
		TypeMeta:   in.TypeMeta,
		ObjectMeta: in.ObjectMeta,
		Spec:       storagemigrationv1.StorageVersionMigrationSpec{Resource: in.Spec.Resource},
		Status:     storagemigrationv1.StorageVersionMigrationStatus{Conditions: in.Status.Conditions, ResourceVersion: in.Status.ResourceVersion},
	}
}
