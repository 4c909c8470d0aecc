package cmd

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/pkg/features"
)

// --feature-gates reaches the configuration, parsed as kube-apiserver
// parses it: repeated, with or without the kube: prefix.
func TestFeatureGatesReachTheConfig(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--feature-gates=DRAListTypeAttributes=true", "--feature-gates", "DRADerivedAttributes=true,DRAConsumableCapacity=false"}); err != nil {
		t.Fatal(err)
	}
	c, err := o.Complete(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"DRAListTypeAttributes":       true,
		"DRADerivedAttributes":        true,
		"DRAConsumableCapacity":       false,
		"DRANodeAllocatableResources": false,
	} {
		if got := c.FeatureGates.Enabled(name); got != want {
			t.Errorf("%s: enabled=%v, want %v", name, got, want)
		}
	}
}

// A bad --feature-gates stops the start with kube-apiserver's message,
// recorded from its binary in pkg/features/testdata/errors.txt.
func TestBadFeatureGatesStopTheStartWithKubeAPIServersError(t *testing.T) {
	f, err := os.Open("../features/testdata/errors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	n := 0
	for s.Scan() {
		value, want, _ := strings.Cut(s.Text(), "\t")
		want = strings.ReplaceAll(want, `\"`, `"`)
		if strings.HasPrefix(want, "[") {
			continue // several errors, in the order of a Go map
		}
		n++
		t.Run(value, func(t *testing.T) {
			cmd := NewCommand()
			cmd.SetArgs([]string{"--feature-gates=" + value, "--data-dir=" + t.TempDir()})
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			err := cmd.Execute()
			if err == nil {
				t.Fatal("the start did not fail")
			}
			if err.Error() != want {
				t.Errorf("error %q, kube-apiserver's is %q", err, want)
			}
		})
	}
	if n == 0 {
		t.Fatal("no recorded errors")
	}
}

// --help describes --feature-gates as kube-apiserver's does.
func TestFeatureGatesHelpIsKubeAPIServers(t *testing.T) {
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	NewOptions().AddFlags(fs)
	f := fs.Lookup("feature-gates")
	if f == nil {
		t.Fatal("no --feature-gates")
	}
	if f.Value.Type() != "colonSeparatedMultimapStringString" || f.Usage != features.Usage() || f.DefValue != "" {
		t.Errorf("--feature-gates %s (default %q): %s", f.Value.Type(), f.DefValue, f.Usage)
	}
}
