// Package storage holds the defaults and the validation of the
// storage.k8s.io/v1 kinds kapi serves: StorageClass, CSIDriver, CSINode,
// CSIStorageCapacity, VolumeAttachment and VolumeAttributesClass.
//
// kube-apiserver 1.37 validates some of their fields declaratively (the
// +k8s: beta tags of k8s.io/api: a storage class's provisioner and its
// immutable fields, a volume attachment's attacher and spec). Those
// errors come after the hand-written ones, in the order of the fields in
// the type, with the declarative validators' messages ("field is
// immutable" with a null value); the validators here keep that order.
package storage
