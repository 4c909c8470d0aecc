package admission

import (
	"context"
	"time"
)

// NamedPlugin is a plugin with the name it is enabled by.
type NamedPlugin struct {
	Name   string
	Plugin Plugin
}

// Chain runs plugins in order: Admit runs every Mutator that handles the
// write's operation, Validate every Validator. The first error stops it.
type Chain struct {
	plugins []NamedPlugin
	metrics *Metrics
}

// NewChain runs plugins in the order given, recording each plugin's and
// each phase's latency in metrics (nil records nothing).
func NewChain(metrics *Metrics, plugins ...NamedPlugin) *Chain {
	return &Chain{plugins: plugins, metrics: metrics}
}

// Names are the plugins' names, in order.
func (c *Chain) Names() []string {
	names := make([]string, len(c.plugins))
	for i, p := range c.plugins {
		names[i] = p.Name
	}
	return names
}

// Admit runs the mutating phase. If a plugin asked for it (see
// Attributes.RequestReinvocation), the phase runs a second time, so that
// the plugins that may be called again see what the later ones changed.
func (c *Chain) Admit(ctx context.Context, a *Attributes) error {
	if err := c.admitOnce(ctx, a); err != nil {
		return err
	}
	if !a.reinvocation.requested {
		return nil
	}
	a.reinvocation.isReinvoke = true
	return c.admitOnce(ctx, a)
}

func (c *Chain) admitOnce(ctx context.Context, a *Attributes) error {
	start := time.Now()
	err := c.run(ctx, a, stepAdmit)
	c.metrics.observeStep(stepAdmit, a, err, time.Since(start))
	return err
}

// Validate runs the validating phase.
func (c *Chain) Validate(ctx context.Context, a *Attributes) error {
	start := time.Now()
	err := c.run(ctx, a, stepValidate)
	c.metrics.observeStep(stepValidate, a, err, time.Since(start))
	return err
}

func (c *Chain) run(ctx context.Context, a *Attributes, step string) error {
	for _, p := range c.plugins {
		if !p.Plugin.Handles(a.Operation) {
			continue
		}
		start := time.Now()
		var err error
		switch step {
		case stepAdmit:
			m, ok := p.Plugin.(Mutator)
			if !ok {
				continue
			}
			err = m.Admit(ctx, a)
		case stepValidate:
			v, ok := p.Plugin.(Validator)
			if !ok {
				continue
			}
			err = v.Validate(ctx, a)
		}
		c.metrics.observePlugin(p.Name, step, a, err, time.Since(start))
		if err != nil {
			return err
		}
	}
	return nil
}
