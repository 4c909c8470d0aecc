package cmd

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
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
