// Package admit is the AlwaysAdmit admission plugin, deprecated upstream:
// it admits everything, in both phases.
package admit

import (
	"context"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "AlwaysAdmit"

// Plugin admits every write.
type Plugin struct{}

// New returns the plugin.
func New() Plugin { return Plugin{} }

func (Plugin) Handles(admission.Operation) bool                      { return true }
func (Plugin) Admit(context.Context, *admission.Attributes) error    { return nil }
func (Plugin) Validate(context.Context, *admission.Attributes) error { return nil }
