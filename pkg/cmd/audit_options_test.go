package cmd

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestAuditFlagsAsKubeAPIServer compares kapi's --audit-* flags with
// those of kube-apiserver 1.37.1's --help (testdata/kube-apiserver-audit-
// flags.txt): the same names, types, defaults and help.
func TestAuditFlagsAsKubeAPIServer(t *testing.T) {
	checkFlagsAsKubeAPIServer(t, "testdata/kube-apiserver-audit-flags.txt", 30)
}

// checkFlagsAsKubeAPIServer compares kapi's flags with the lines of
// kube-apiserver's --help recorded in file, of which there are at least
// atLeast.
func checkFlagsAsKubeAPIServer(t *testing.T, file string, atLeast int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := regexp.MustCompile(`^\s+--(\S+)(?: (\S+))?\s+(.*?)(?: \(default (.*)\))?$`)
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	NewOptions().AddFlags(fs)
	seen := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("cannot read %q", sc.Text())
		}
		name, typ, help, def := m[1], m[2], m[3], strings.Trim(m[4], `"`)
		seen++
		flag := fs.Lookup(name)
		if flag == nil {
			t.Errorf("--%s is missing", name)
			continue
		}
		// --help names types as pflag.UnquoteUsage does.
		gotType := map[string]string{"bool": "", "int64": "int", "stringSlice": "strings"}[flag.Value.Type()]
		if gotType == "" && flag.Value.Type() != "bool" {
			gotType = flag.Value.Type()
		}
		if gotType != typ {
			t.Errorf("--%s is a %q, want %q", name, gotType, typ)
		}
		gotDef := flag.DefValue
		if def == "" && (gotDef == "0" || gotDef == "0s" || gotDef == "false" || gotDef == "" || gotDef == "[]") {
			gotDef = ""
		}
		if gotDef != def {
			t.Errorf("--%s defaults to %q, want %q", name, gotDef, def)
		}
		if flag.Usage != help {
			t.Errorf("--%s help:\n got %s\nwant %s", name, flag.Usage, help)
		}
	}
	if seen < atLeast {
		t.Errorf("read %d flags from the recording", seen)
	}
}

// TestBadAuditFlagsAsKubeAPIServer: invalid --audit-* values are refused
// in kube-apiserver's words (k8s.io/apiserver's AuditOptions.Validate).
func TestBadAuditFlagsAsKubeAPIServer(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--audit-log-path=a", "--audit-log-mode=fast"}, `invalid audit log mode fast, allowed modes are "batch,blocking,blocking-strict"`},
		{[]string{"--audit-log-path=a", "--audit-log-mode=batch", "--audit-log-batch-buffer-size=0"}, "invalid audit batch log buffer size 0, must be a positive number"},
		{[]string{"--audit-webhook-config-file=k", "--audit-webhook-batch-throttle-qps=0"}, "invalid audit batch webhook throttle QPS 0, must be a positive number"},
		{[]string{"--audit-log-path=a", "--audit-log-format=xml"}, `invalid audit log format xml, allowed formats are "legacy,json"`},
		{[]string{"--audit-log-path=a", "--audit-log-maxage=-1"}, "--audit-log-maxage -1 can't be a negative number"},
		{[]string{"--audit-log-path=a", "--audit-log-maxbackup=-1"}, "--audit-log-maxbackup -1 can't be a negative number"},
		{[]string{"--audit-log-path=a", "--audit-log-maxsize=-1"}, "--audit-log-maxsize -1 can't be a negative number"},
		{[]string{"--audit-webhook-config-file=k", "--audit-webhook-truncate-max-batch-size=10"}, "invalid audit truncate webhook max batch size 10, must be greater than max event size (102400)"},
		{[]string{"--audit-log-path=a", "--audit-log-version=audit.k8s.io/v1beta1"}, `invalid group version, allowed versions are ["audit.k8s.io/v1"]`},
	} {
		o := NewOptions()
		fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, err := range o.Validate() {
			msgs = append(msgs, err.Error())
		}
		if len(msgs) != 1 || msgs[0] != tc.want {
			t.Errorf("%v: errors %q, want %q", tc.args, msgs, tc.want)
		}
	}
}
