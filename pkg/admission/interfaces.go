// Package admission defines the plugins that see every write after it is
// decoded and before it is stored: mutating plugins may change the object,
// validating plugins may only reject it. A Chain runs the enabled plugins
// in kube-apiserver's order; the endpoint handlers run the chain.
package admission

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

// Operation is the kind of write admitted.
type Operation string

const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Attributes describe one write.
type Attributes struct {
	// Name is the object's name; empty on a create whose name the server
	// generates, and on each object of a delete of a collection.
	Name      string
	Namespace string
	// Resource and Kind are those the client addressed, in the version it
	// addressed; Subresource is empty for the resource itself.
	Resource    schema.GroupVersionResource
	Subresource string
	Kind        schema.GroupVersionKind
	Operation   Operation
	// Object is the new object (nil on delete); OldObject the current one
	// (nil on create and connect). Both are in the version the resource
	// is stored in, which need not be the one addressed.
	Object    runtime.Object
	OldObject runtime.Object
	// Options are the write's options: CreateOptions, UpdateOptions,
	// DeleteOptions, or a connect's options (PodExecOptions, ...). A
	// patch is a CreateOptions or UpdateOptions, as the patch creates or
	// updates.
	Options runtime.Object
	DryRun  bool
	User    user.Info
	// Objects convert, create and default objects of the resource, for
	// plugins that need them in another version (webhooks, policies).
	Objects ObjectInterfaces

	reinvocation reinvocation
}

// ObjectInterfaces are the scheme of the write's resource: the built-in
// scheme, or a custom resource's own.
type ObjectInterfaces struct {
	Creater   runtime.ObjectCreater
	Convertor runtime.ObjectConvertor
	Defaulter runtime.ObjectDefaulter
	Typer     runtime.ObjectTyper
	// TypeConverter knows the structure of the resource's kinds, in
	// every version, as server-side apply does (nil if it is not
	// tracked), for the apply configurations of mutating policies.
	TypeConverter managedfields.TypeConverter
}

// Plugin is an admission plugin. It mutates (Mutator), validates
// (Validator) or both, and says which operations it cares about.
type Plugin interface {
	Handles(op Operation) bool
}

// Mutator is a plugin that may change the object. It runs before the
// resource's own validation.
type Mutator interface {
	Plugin
	Admit(ctx context.Context, a *Attributes) error
}

// Validator is a plugin that may refuse the write. It runs after the
// resource's own validation and must change nothing.
type Validator interface {
	Plugin
	Validate(ctx context.Context, a *Attributes) error
}

// Interface is what the endpoint handlers run: the mutating phase, then
// (once the resource validated the object) the validating phase.
type Interface interface {
	Admit(ctx context.Context, a *Attributes) error
	Validate(ctx context.Context, a *Attributes) error
}

// Handler answers Handles for the operations it is made with; plugins
// embed it.
type Handler struct {
	ops map[Operation]bool
}

// NewHandler handles ops.
func NewHandler(ops ...Operation) Handler {
	h := Handler{ops: make(map[Operation]bool, len(ops))}
	for _, op := range ops {
		h.ops[op] = true
	}
	return h
}

func (h Handler) Handles(op Operation) bool { return h.ops[op] }

// reinvocation is the state of the mutating phase that the plugins which
// may be called twice (mutating webhooks and policies) share: a mutating
// phase that changed the object after such a plugin ran is run once more,
// so that plugin sees the final object.
type reinvocation struct {
	requested  bool
	isReinvoke bool
	values     map[string]any
}

// RequestReinvocation asks the chain to run the mutating phase once more
// once it ends. Only the first run may ask.
func (a *Attributes) RequestReinvocation() {
	if !a.reinvocation.isReinvoke {
		a.reinvocation.requested = true
	}
}

// IsReinvoke says whether this is the second run of the mutating phase.
func (a *Attributes) IsReinvoke() bool { return a.reinvocation.isReinvoke }

// ReinvocationValue is what a plugin stored under key during this write's
// mutating phase (nil if nothing).
func (a *Attributes) ReinvocationValue(key string) any { return a.reinvocation.values[key] }

// SetReinvocationValue stores v under key for the rest of this write's
// mutating phase, including its second run.
func (a *Attributes) SetReinvocationValue(key string, v any) {
	if a.reinvocation.values == nil {
		a.reinvocation.values = map[string]any{}
	}
	a.reinvocation.values[key] = v
}
