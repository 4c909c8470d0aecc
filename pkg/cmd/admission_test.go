package cmd

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/pkg/app"
)

// TestAdmissionFlagsAsKubeAPIServer: the admission flags have
// kube-apiserver 1.37.1's names, types and help, whose lists of plugins
// (the default ones in the chain's order, and all of them) come from
// kapi's table of plugins.
func TestAdmissionFlagsAsKubeAPIServer(t *testing.T) {
	checkFlagsAsKubeAPIServer(t, "testdata/kube-apiserver-admission-flags.txt", 3)
}

// TestBadAdmissionFlagsAsKubeAPIServer: unknown plugins, and plugins both
// enabled and disabled, are refused in kube-apiserver's words (recorded
// from kube-apiserver 1.37.1 with the same flags).
func TestBadAdmissionFlagsAsKubeAPIServer(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--enable-admission-plugins=Foo,Bar", "--disable-admission-plugins=Bar,ServiceAccount"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, err := range o.Validate() {
		got = append(got, err.Error())
	}
	for _, want := range []string{
		`enable-admission-plugins plugin "Foo" is unknown`,
		`enable-admission-plugins plugin "Bar" is unknown`,
		`disable-admission-plugins plugin "Bar" is unknown`,
		`[Bar] in enable-admission-plugins and disable-admission-plugins overlapped`,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("errors %q do not include %q", got, want)
		}
	}
}

// TestDefaultTolerationFlagsAsKubeAPIServer: DefaultTolerationSeconds'
// flags have kube-apiserver 1.37.1's names, types, help and defaults.
func TestDefaultTolerationFlagsAsKubeAPIServer(t *testing.T) {
	checkFlagsAsKubeAPIServer(t, "testdata/kube-apiserver-default-toleration-flags.txt", 2)
}

// AdmissionFlags renders a configuration as the flags that parse back to
// it, so a test that runs kapi with a configuration can say how to start
// the kube-apiserver it compares with.
func TestAdmissionFlagsParseBackToTheirConfig(t *testing.T) {
	want := app.AdmissionConfig{
		Enable:                              []string{"NodeRestriction", "EventRateLimit"},
		Disable:                             []string{"ServiceAccount", "PodSecurity"},
		ConfigFile:                          "/etc/kapi/admission.yaml",
		DefaultNotReadyTolerationSeconds:    ptr.To[int64](60),
		DefaultUnreachableTolerationSeconds: ptr.To[int64](90),
	}
	var got app.AdmissionConfig
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	addAdmissionFlags(fs, &got)
	if err := fs.Parse(AdmissionFlags(want)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flags %q parse back differently (-want +got):\n%s", AdmissionFlags(want), diff)
	}
	if flags := AdmissionFlags(app.AdmissionConfig{}); len(flags) != 0 {
		t.Errorf("the default configuration: flags %q, want none", flags)
	}
}
