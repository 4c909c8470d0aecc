package admission

import (
	"context"
	"sync/atomic"
)

// Deferred admits with a chain set after it is handed out. The servers of
// the delegation chain are made back to front, so the apiextensions
// server exists before the kube server builds the plugins (namespace
// lifecycle needs the namespace storage) that custom resources go
// through too. Until Set, everything is admitted.
type Deferred struct {
	target atomic.Pointer[Interface]
}

// Set installs the admission to defer to.
func (d *Deferred) Set(i Interface) { d.target.Store(&i) }

func (d *Deferred) Admit(ctx context.Context, a *Attributes) error {
	if t := d.target.Load(); t != nil {
		return (*t).Admit(ctx, a)
	}
	return nil
}

func (d *Deferred) Validate(ctx context.Context, a *Attributes) error {
	if t := d.target.Load(); t != nil {
		return (*t).Validate(ctx, a)
	}
	return nil
}
