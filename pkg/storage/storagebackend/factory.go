// Package storagebackend makes the storage.Interface of each resource from
// one etcd client: keys below the configured prefix, values encoded in
// the resource's hub version as kube-apiserver stores them (protobuf with
// the k8s\x00 envelope for built-in types).
package storagebackend

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
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

// NewStorage returns the storage of one resource, encoding in hub as
// mediaType says: protobuf ("" or runtime.ContentTypeProtobuf), as
// kube-apiserver stores the built-in types, or JSON
// (runtime.ContentTypeJSON), as it stores the few it does not
// (apiregistration.k8s.io's APIServices).
func (f *Factory) NewStorage(resource schema.GroupResource, hub schema.GroupVersion, mediaType string, newFunc, newListFunc func() runtime.Object) (storage.Interface, error) {
	codec, err := storageCodec(hub, mediaType, newFunc())
	if err != nil {
		return nil, fmt.Errorf("storage of %s: %w", resource, err)
	}
	return etcd3.NewWithTransformer(f.Client, codec, newFunc, newListFunc, f.Prefix, resource, f.transformer(resource)), nil
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

// storageCodec encodes objects as mediaType (protobuf by default) in
// version hub and decodes them into the version of obj's kind. The two are the same for most
// resources; a resource that kube-apiserver stores in another version
// than the one it serves (certificates.k8s.io/v1 clustertrustbundles,
// stored as v1beta1) converts between them through the scheme.
func storageCodec(hub schema.GroupVersion, mediaType string, obj runtime.Object) (runtime.Codec, error) {
	decode := hub
	if gvks, _, err := scheme.Scheme.ObjectKinds(obj); err == nil && len(gvks) > 0 {
		decode = gvks[0].GroupVersion()
	}
	var serializer runtime.Serializer
	switch mediaType {
	case "", runtime.ContentTypeProtobuf:
		serializer = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	case runtime.ContentTypeJSON:
		serializer = json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme.Scheme, scheme.Scheme, json.SerializerOptions{})
	default:
		return nil, fmt.Errorf("unsupported storage media type %q", mediaType)
	}
	return scheme.Codecs.CodecForVersions(serializer, serializer, hub, decode), nil
}

// ProtobufCodec encodes objects as protobuf in version gv and decodes
// them into gv.
func ProtobufCodec(gv schema.GroupVersion) runtime.Codec {
	pb := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	return scheme.Codecs.CodecForVersions(pb, pb, gv, gv)
}
