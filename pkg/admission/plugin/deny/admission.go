// Package deny is the AlwaysDeny admission plugin, deprecated upstream:
// it refuses every write, in both phases, with kube-apiserver's 403.
package deny

import (
	"context"
	"errors"

	"github.com/kapi-dev/kapi/pkg/admission"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "AlwaysDeny"

var errDenied = errors.New("admission control is denying all modifications")

// Plugin refuses every write.
type Plugin struct{}

// New returns the plugin.
func New() Plugin { return Plugin{} }

func (Plugin) Handles(admission.Operation) bool { return true }

func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	return admission.NewForbidden(a, errDenied)
}

func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	return admission.NewForbidden(a, errDenied)
}
