// Package admission defines the plugins that see every write after it is
// decoded and before it is stored: mutating plugins may change the object,
// validating plugins may only reject it.
package admission

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

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
	Name        string
	Namespace   string
	Resource    schema.GroupVersionResource
	Subresource string
	Kind        schema.GroupVersionKind
	Operation   Operation
	// Object is the new object (nil on delete); OldObject the current one
	// (nil on create).
	Object    runtime.Object
	OldObject runtime.Object
	DryRun    bool
	User      user.Info
}

// Interface is an admission plugin, or a chain of them.
type Interface interface {
	// Admit may change a.Object. It runs before the resource's own
	// validation.
	Admit(ctx context.Context, a *Attributes) error
	// Validate may reject the write. It runs after the resource's own
	// validation and must not change anything.
	Validate(ctx context.Context, a *Attributes) error
}

// Chain runs plugins in order; the first error stops it.
type Chain []Interface

func (c Chain) Admit(ctx context.Context, a *Attributes) error {
	for _, p := range c {
		if err := p.Admit(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

func (c Chain) Validate(ctx context.Context, a *Attributes) error {
	for _, p := range c {
		if err := p.Validate(ctx, a); err != nil {
			return err
		}
	}
	return nil
}
