// Package storagebackend makes the storage.Interface of each resource from
// one etcd client: keys below the configured prefix, values encoded in
// the resource's hub version as kube-apiserver stores them (protobuf with
// the k8s\x00 envelope for built-in types).
package storagebackend

import (
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/storage"
	"github.com/kapi-dev/kapi/pkg/storage/etcd3"
	"github.com/kapi-dev/kapi/pkg/storage/value"
)

// Factory makes the storage of built-in resources.
type Factory struct {
	Client *clientv3.Client
	// Prefix is --etcd-prefix, "/registry" by default.
	Prefix string
	// Transformers encrypt the values of resources at rest
	// (--encryption-provider-config); nil stores every value as encoded.
	Transformers value.ResourceTransformers
}

// NewStorage returns the storage of one resource, encoding in hub.
func (f *Factory) NewStorage(resource schema.GroupResource, hub schema.GroupVersion, newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
	return etcd3.NewWithTransformer(f.Client, storageCodec(hub, newFunc()), newFunc, newListFunc, f.Prefix, resource, f.transformer(resource)), nil
}

// NewStorageWithCodec returns the storage of a resource whose values codec
// encodes and decodes: the custom resources, stored as JSON.
func (f *Factory) NewStorageWithCodec(resource schema.GroupResource, codec runtime.Codec, newFunc, newListFunc func() runtime.Object) storage.Interface {
	return etcd3.NewWithTransformer(f.Client, codec, newFunc, newListFunc, f.Prefix, resource, f.transformer(resource))
}

func (f *Factory) transformer(resource schema.GroupResource) value.Transformer {
	if f.Transformers == nil {
		return nil
	}
	return f.Transformers.TransformerFor(resource.Group, resource.Resource)
}

// storageCodec encodes objects as protobuf in version hub and decodes them
// into the version of obj's kind. The two are the same for most
// resources; a resource that kube-apiserver stores in another version
// than the one it serves (certificates.k8s.io/v1 clustertrustbundles,
// stored as v1beta1) converts between them through the scheme.
func storageCodec(hub schema.GroupVersion, obj runtime.Object) runtime.Codec {
	decode := hub
	if gvks, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		decode = gvks[0].GroupVersion()
	}
	pb := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	return scheme.Codecs.CodecForVersions(pb, pb, hub, decode)
}

// ProtobufCodec encodes objects as protobuf in version gv and decodes
// them into gv.
func ProtobufCodec(gv schema.GroupVersion) runtime.Codec {
	pb := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	return scheme.Codecs.CodecForVersions(pb, pb, gv, gv)
}
