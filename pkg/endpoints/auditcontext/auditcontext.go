// Package auditcontext is the audit state of one request, carried in its
// context, through which the layers a request passes tell the audit filter
// what they learned: the authorizer's decision and admission plugins'
// findings (annotations), the impersonated user, the request object and
// the object or Status answered.
//
// It is deliberately small and low: handlers, admission plugins and
// filters reach it without depending on pkg/audit, which builds the
// events. The audit filter creates a Context per request, sets its level
// from the policy, and reads it back when it writes an event.
//
// Recording costs nothing the level does not need: an object is encoded
// only at Request (request object) or RequestResponse (response object)
// level, through the encode function the caller hands in; at Metadata
// level only the object's name, namespace, uid and resourceVersion are
// read, as kube-apiserver fills its objectRef from them.
package auditcontext

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Level is how much of a request is recorded, in increasing order.
type Level int

// The audit levels of kube-apiserver's policy.
const (
	LevelNone Level = iota
	LevelMetadata
	LevelRequest
	LevelRequestResponse
)

// ObjectRef is what the handlers learn of the object a request is about,
// beyond what its RequestInfo says.
type ObjectRef struct {
	Namespace, Name, UID, ResourceVersion string
	APIGroup, APIVersion, Resource        string
	Subresource                           string
	// Set reports that an object filled the fields above.
	Set bool
}

// ResponseStatus is the part of an answered Status an event records.
type ResponseStatus struct {
	Status  string
	Message string
	Reason  metav1.StatusReason
	Details *metav1.StatusDetails
	Code    int32
}

// Context is the audit state of one request. Its methods may be called
// from several goroutines (a handler that outlives its timeout).
type Context struct {
	// ID is the request's audit ID, sent back in the Audit-Id header.
	ID types.UID

	mu sync.Mutex
	// initialized is set by Init: until the policy has chosen a level,
	// annotations are kept (authenticators add theirs before the audit
	// filter runs), as kube-apiserver keeps them.
	initialized       bool
	level             Level
	omitManagedFields bool
	annotations       map[string]string
	impersonated      user.Info
	objectRef         ObjectRef
	requestObject     []byte
	responseObject    []byte
	responseStatus    *ResponseStatus
}

// New returns the audit state of a request with the given ID, recording
// nothing until Init sets its level.
func New(id types.UID) *Context { return &Context{ID: id} }

// Init sets the level the policy chose for the request.
func (c *Context) Init(level Level, omitManagedFields bool) {
	c.mu.Lock()
	c.level, c.omitManagedFields, c.initialized = level, omitManagedFields, true
	c.mu.Unlock()
}

// Level is the request's audit level; LevelNone for a nil Context.
func (c *Context) Level() Level {
	if c == nil {
		return LevelNone
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.level
}

type contextKey struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c *Context) context.Context {
	return context.WithValue(ctx, contextKey{}, c)
}

// From returns the audit state of ctx's request, or nil.
func From(ctx context.Context) *Context {
	c, _ := ctx.Value(contextKey{}).(*Context)
	return c
}

// IDFrom returns the audit ID of ctx's request.
func IDFrom(ctx context.Context) (types.UID, bool) {
	if c := From(ctx); c != nil {
		return c.ID, true
	}
	return "", false
}

// enabled returns c locked if it records anything; the caller unlocks.
func enabled(ctx context.Context) *Context {
	c := From(ctx)
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if c.level == LevelNone {
		c.mu.Unlock()
		return nil
	}
	return c
}

// AddAnnotation records an annotation on the request's event. As in
// kube-apiserver, a key keeps the first value it was given; requests
// the policy does not audit drop annotations, and annotations added
// before the policy is evaluated (by an authenticator) are kept until it
// is.
func AddAnnotation(ctx context.Context, key, value string) {
	AddAnnotations(ctx, key, value)
}

// AddAnnotations records annotations given as key, value, key, value...
// An odd last key is ignored.
func AddAnnotations(ctx context.Context, keysAndValues ...string) {
	c := From(ctx)
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.initialized && c.level == LevelNone {
		return
	}
	for i := 0; i+1 < len(keysAndValues); i += 2 {
		k, v := keysAndValues[i], keysAndValues[i+1]
		if c.annotations == nil {
			c.annotations = map[string]string{}
		}
		if _, ok := c.annotations[k]; ok {
			continue
		}
		c.annotations[k] = v
	}
}

// LogImpersonatedUser records the user a request acts as. The
// impersonation filter calls it.
func LogImpersonatedUser(ctx context.Context, u user.Info) {
	c := enabled(ctx)
	if c == nil {
		return
	}
	defer c.mu.Unlock()
	c.impersonated = u
}

// Encoder encodes an object as JSON for the audit log.
type Encoder func(runtime.Object) ([]byte, error)

// LogRequestObject records the decoded object of a create or update (or
// the DeleteOptions of a delete), for an addressed group, version and
// resource. Its metadata completes the event's objectRef at every level;
// encode is called only at Request level and above, on a copy without
// managedFields when the policy omits them.
func LogRequestObject(ctx context.Context, obj runtime.Object, gvr schema.GroupVersionResource, subresource string, encode Encoder) {
	c := From(ctx)
	level, omit := c.config()
	if level == LevelNone {
		return
	}
	var raw []byte
	if level >= LevelRequest {
		if omit {
			obj = withoutManagedFields(obj)
		}
		raw, _ = encode(obj)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ref := &c.objectRef
	ref.Set = true
	if m, err := meta.Accessor(obj); err == nil {
		setIfEmpty(&ref.Namespace, m.GetNamespace())
		setIfEmpty(&ref.Name, m.GetName())
		setIfEmpty(&ref.UID, string(m.GetUID()))
		setIfEmpty(&ref.ResourceVersion, m.GetResourceVersion())
	}
	if ref.APIVersion == "" {
		ref.APIGroup, ref.APIVersion = gvr.Group, gvr.Version
	}
	setIfEmpty(&ref.Resource, gvr.Resource)
	setIfEmpty(&ref.Subresource, subresource)
	if raw != nil {
		c.requestObject = raw
	}
}

// LogRequestPatch records the body of a patch, as the client sent it, at
// Request level and above.
func LogRequestPatch(ctx context.Context, patch []byte) {
	c := From(ctx)
	if level, _ := c.config(); level < LevelRequest {
		return
	}
	c.mu.Lock()
	c.requestObject = patch
	c.mu.Unlock()
}

// LogResponseObject records what a request was answered with: a Status's
// code, status, reason, message and details at every level, and at
// RequestResponse level the object itself, through encode.
func LogResponseObject(ctx context.Context, obj runtime.Object, encode Encoder) {
	c := From(ctx)
	level, omit := c.config()
	if level == LevelNone {
		return
	}
	var raw []byte
	if level == LevelRequestResponse && encode != nil {
		if omit {
			obj = withoutManagedFields(obj)
		}
		raw, _ = encode(obj)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := obj.(*metav1.Status); ok {
		c.responseStatus = &ResponseStatus{Status: st.Status, Message: st.Message, Reason: st.Reason, Details: st.Details, Code: st.Code}
	}
	if raw != nil {
		c.responseObject = raw
	}
}

func (c *Context) config() (Level, bool) {
	if c == nil {
		return LevelNone, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.level, c.omitManagedFields
}

func setIfEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// Recorded is what the layers of a request recorded, as the audit filter
// reads it.
type Recorded struct {
	Annotations    map[string]string
	Impersonated   user.Info
	ObjectRef      ObjectRef
	RequestObject  []byte
	ResponseObject []byte
	ResponseStatus *ResponseStatus
}

// Recorded returns a copy of what was recorded so far.
func (c *Context) Recorded() Recorded {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := Recorded{Impersonated: c.impersonated, ObjectRef: c.objectRef,
		RequestObject: c.requestObject, ResponseObject: c.responseObject}
	if c.responseStatus != nil {
		st := *c.responseStatus
		r.ResponseStatus = &st
	}
	if len(c.annotations) > 0 {
		r.Annotations = make(map[string]string, len(c.annotations))
		for k, v := range c.annotations {
			r.Annotations[k] = v
		}
	}
	return r
}

// SetResponseStatus records a Status that no handler wrote (the filter's
// own: a panic, a connection closed early).
func (c *Context) SetResponseStatus(st ResponseStatus) {
	c.mu.Lock()
	c.responseStatus = &st
	c.mu.Unlock()
}

// SetResponseCode records the HTTP status code of the response, keeping
// what a written Status said.
func (c *Context) SetResponseCode(code int32) {
	c.mu.Lock()
	if c.responseStatus == nil {
		c.responseStatus = &ResponseStatus{}
	}
	c.responseStatus.Code = code
	c.mu.Unlock()
}

// HasResponseStatus reports whether a response status was recorded.
func (c *Context) HasResponseStatus() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.responseStatus != nil
}

// withoutManagedFields returns obj, or a copy of it without managedFields
// (of the object, or of each item of a list) if it has any.
func withoutManagedFields(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	has := false
	if m, err := meta.Accessor(obj); err == nil && len(m.GetManagedFields()) > 0 {
		has = true
	}
	isList := meta.IsListType(obj)
	if isList {
		_ = meta.EachListItem(obj, func(item runtime.Object) error {
			if m, err := meta.Accessor(item); err == nil && len(m.GetManagedFields()) > 0 {
				has = true
			}
			return nil
		})
	}
	if !has {
		return obj
	}
	out := obj.DeepCopyObject()
	clear := func(o runtime.Object) error {
		if m, err := meta.Accessor(o); err == nil {
			m.SetManagedFields(nil)
		}
		return nil
	}
	_ = clear(out)
	if isList {
		_ = meta.EachListItem(out, clear)
	}
	return out
}
