package cmd

import (
	"strconv"
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
	fs.BoolVar(&c.EnableAggregatorRouting, "enable-aggregator-routing", c.EnableAggregatorRouting, "Turns on aggregator routing requests to endpoints IP rather than cluster IP.")
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

// AdmissionFlags are the command-line flags that configure admission as
// c does, on kapi and on kube-apiserver alike: what a test that runs
// kapi in process with c says to start a kube-apiserver with, to record
// answers to compare. Unset fields give no flag.
func AdmissionFlags(c app.AdmissionConfig) []string {
	var flags []string
	if len(c.Enable) > 0 {
		flags = append(flags, "--enable-admission-plugins="+strings.Join(c.Enable, ","))
	}
	if len(c.Disable) > 0 {
		flags = append(flags, "--disable-admission-plugins="+strings.Join(c.Disable, ","))
	}
	if c.ConfigFile != "" {
		flags = append(flags, "--admission-control-config-file="+c.ConfigFile)
	}
	if c.DefaultNotReadyTolerationSeconds != nil {
		flags = append(flags, "--default-not-ready-toleration-seconds="+strconv.FormatInt(*c.DefaultNotReadyTolerationSeconds, 10))
	}
	if c.DefaultUnreachableTolerationSeconds != nil {
		flags = append(flags, "--default-unreachable-toleration-seconds="+strconv.FormatInt(*c.DefaultUnreachableTolerationSeconds, 10))
	}
	return flags
}
