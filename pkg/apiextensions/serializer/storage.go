package serializer

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// StorageCodec is the codec of the storage that serves version served:
// objects are written as JSON in the storage version and read back in the
// served version, pruned and defaulted by its schema, so that an object
// written before a field or a default was added reads as one written
// after.
func (c *Codecs) StorageCodec(served, storage string) runtime.Codec {
	return &storageCodec{
		codecs:  c,
		served:  schema.GroupVersion{Group: c.cfg.Group, Version: served},
		storage: schema.GroupVersion{Group: c.cfg.Group, Version: storage},
	}
}

type storageCodec struct {
	codecs          *Codecs
	served, storage schema.GroupVersion
}

func (s *storageCodec) Identifier() runtime.Identifier {
	return runtime.Identifier("crd-storage:" + s.codecs.cfg.Kind + "." + s.served.String() + ":" + s.storage.Version)
}

func (s *storageCodec) Encode(obj runtime.Object, w io.Writer) error {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("custom resource storage cannot encode %T", obj)
	}
	if u.GetKind() == "" {
		u.SetGroupVersionKind(s.served.WithKind(s.codecs.cfg.Kind))
	}
	out, err := s.codecs.cfg.Converter.Convert(context.TODO(), []*unstructured.Unstructured{u}, s.storage)
	if err != nil {
		return err
	}
	return unstructured.UnstructuredJSONScheme.Encode(out[0], w)
}

func (s *storageCodec) Decode(data []byte, _ *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	u := &unstructured.Unstructured{}
	if _, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, u); err != nil {
		return nil, nil, err
	}
	out, err := s.codecs.cfg.Converter.Convert(context.TODO(), []*unstructured.Unstructured{u}, s.served)
	if err != nil {
		return nil, nil, err
	}
	u = out[0]
	if sch := s.codecs.cfg.Schemas[s.served.Version]; sch != nil {
		sch.Prune(u.Object)
		sch.Default(u.Object)
	}
	gvk := u.GroupVersionKind()
	if target, ok := into.(*unstructured.Unstructured); ok {
		target.Object = u.Object
		return target, &gvk, nil
	}
	return u, &gvk, nil
}
