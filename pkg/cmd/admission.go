package cmd

import (
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/admission/plugin/pod/defaulttolerationseconds"
	"github.com/kapi-dev/kapi/pkg/app"
)

// addAdmissionFlags registers kube-apiserver's admission flags, with its
// help texts, which list the plugins.
func addAdmissionFlags(fs *pflag.FlagSet, c *app.AdmissionConfig) {
	defaults := strings.Join(app.DefaultAdmissionPlugins(), ", ")
	all := strings.Join(app.AllAdmissionPlugins(), ", ")
	fs.StringSliceVar(&c.Enable, "enable-admission-plugins", c.Enable,
		"admission plugins that should be enabled in addition to default enabled ones ("+defaults+"). "+
			"Comma-delimited list of admission plugins: "+all+". The order of plugins in this flag does not matter.")
	fs.StringSliceVar(&c.Disable, "disable-admission-plugins", c.Disable,
		"admission plugins that should be disabled although they are in the default enabled plugins list ("+defaults+"). "+
			"Comma-delimited list of admission plugins: "+all+". The order of plugins in this flag does not matter.")
	fs.StringVar(&c.ConfigFile, "admission-control-config-file", c.ConfigFile, "File with admission control configuration.")
	if c.DefaultNotReadyTolerationSeconds == nil {
		c.DefaultNotReadyTolerationSeconds = ptr.To(defaulttolerationseconds.DefaultSeconds)
	}
	if c.DefaultUnreachableTolerationSeconds == nil {
		c.DefaultUnreachableTolerationSeconds = ptr.To(defaulttolerationseconds.DefaultSeconds)
	}
	fs.Int64Var(c.DefaultNotReadyTolerationSeconds, "default-not-ready-toleration-seconds", *c.DefaultNotReadyTolerationSeconds,
		"Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.")
	fs.Int64Var(c.DefaultUnreachableTolerationSeconds, "default-unreachable-toleration-seconds", *c.DefaultUnreachableTolerationSeconds,
		"Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.")
}
