package cacher

import (
	"bytes"
	"io"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// metaObject is an object with metadata: every object of a resource.
type metaObject interface {
	runtime.Object
	metav1.Object
}

// cachingObject is an object that many watchers send. It implements
// runtime.CacheableObject: apimachinery's serializers hand it their encode
// function, and it runs each distinct serialization once, on a private
// copy, and gives every watcher the same bytes.
//
// That saves encoding one event once per watcher, and it keeps the
// encoders' habit of setting apiVersion and kind on the object they encode
// (and restoring it after) away from the object that the cache and the
// other watchers share, which would otherwise be a data race.
//
// Its metav1.Object methods read the shared object: callers must not use
// the setters. DeepCopyObject and GetObject return an unwrapped copy.
type cachingObject struct {
	metaObject

	mu        sync.Mutex
	gvk       *schema.GroupVersionKind // set through GetObjectKind
	encodings map[runtime.Identifier]*encoding
}

// encoding is one serialization of a cachingObject.
type encoding struct {
	once sync.Once
	raw  []byte
	err  error
}

var (
	_ runtime.CacheableObject = &cachingObject{}
	_ metav1.Object           = &cachingObject{}
	_ schema.ObjectKind       = &cachingObject{}
)

// newCachingObject wraps obj, or returns it as it is if it has no
// metadata.
func newCachingObject(obj runtime.Object) runtime.Object {
	m, ok := obj.(metaObject)
	if !ok {
		return obj
	}
	return &cachingObject{metaObject: m}
}

// CacheEncode implements runtime.CacheableObject.
func (o *cachingObject) CacheEncode(id runtime.Identifier, encode func(runtime.Object, io.Writer) error, w io.Writer) error {
	o.mu.Lock()
	if o.encodings == nil {
		o.encodings = map[runtime.Identifier]*encoding{}
	}
	e := o.encodings[id]
	if e == nil {
		e = &encoding{}
		o.encodings[id] = e
	}
	o.mu.Unlock()
	e.once.Do(func() {
		var buf bytes.Buffer
		e.err = encode(o.GetObject(), &buf)
		e.raw = buf.Bytes()
	})
	if e.err != nil {
		return e.err
	}
	_, err := w.Write(e.raw)
	return err
}

// GetObject implements runtime.CacheableObject: a copy of the wrapped
// object, the caller's to modify.
func (o *cachingObject) GetObject() runtime.Object { return o.metaObject.DeepCopyObject() }

// DeepCopyObject returns a copy of the wrapped object, unwrapped.
func (o *cachingObject) DeepCopyObject() runtime.Object { return o.GetObject() }

// GetObjectKind returns the wrapper itself: setting the kind of a shared
// object must not change it for everyone.
func (o *cachingObject) GetObjectKind() schema.ObjectKind { return o }

// GroupVersionKind implements schema.ObjectKind.
func (o *cachingObject) GroupVersionKind() schema.GroupVersionKind {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.gvk != nil {
		return *o.gvk
	}
	return o.metaObject.GetObjectKind().GroupVersionKind()
}

// SetGroupVersionKind implements schema.ObjectKind; it affects what
// GroupVersionKind returns, not the encodings.
func (o *cachingObject) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gvk = &gvk
}
