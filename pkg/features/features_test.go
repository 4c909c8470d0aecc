package features

import (
	"bufio"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The facts in testdata were recorded from kube-apiserver 1.37.1 by
// hack/featuregates/record.sh; these tests hold the table and the parser
// to them.

func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		if s.Text() != "" {
			lines = append(lines, s.Text())
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatalf("testdata/%s is empty", name)
	}
	return lines
}

func TestEveryGateOfKubeAPIServerIsKnownWithItsStageAndDefault(t *testing.T) {
	metrics := readLines(t, "metrics.txt")
	seen := map[string]bool{}
	for _, line := range metrics {
		f := strings.Fields(line)
		name, stage, on := f[0], Stage(f[1]), f[2] == "1"
		seen[name] = true
		spec, ok := Lookup(name)
		if !ok {
			t.Errorf("%s: kube-apiserver has it, kapi does not know it", name)
			continue
		}
		if spec.Stage != stage || spec.Default != on {
			t.Errorf("%s: kapi has %s default=%v, kube-apiserver %s default=%v", name, spec.Stage, spec.Default, stage, on)
		}
	}
	for _, name := range Names() {
		if !seen[name] {
			t.Errorf("%s: kapi knows it, kube-apiserver does not", name)
		}
	}
}

func TestUsageListsTheGatesAsKubeAPIServersHelpDoes(t *testing.T) {
	want := readLines(t, "help.txt")
	got := usageLines()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("usage lines differ from kube-apiserver --help:\n got %d lines\nwant %d lines", len(got), len(want))
		for i := 0; i < len(got) && i < len(want); i++ {
			if got[i] != want[i] {
				t.Errorf("first difference at line %d:\n got %s\nwant %s", i, got[i], want[i])
				break
			}
		}
	}
	if !strings.HasSuffix(Usage(), "\n"+strings.Join(want, "\n")) {
		t.Error("Usage does not end with the list of gates")
	}
}

func TestALockedGateCannotBeSetToTheOtherValue(t *testing.T) {
	locked := map[string]string{}
	for _, msg := range readLines(t, "locked.txt") {
		// cannot set feature gate NAME to VALUE, feature is locked to ...
		f := strings.Fields(msg)
		locked[f[4]] = f[6]
		_, err := Parse([]string{f[4] + "=" + strings.TrimSuffix(f[6], ",")})
		if err == nil || err.Error() != msg {
			t.Errorf("%s=%s: got error %v, kube-apiserver's is %q", f[4], f[6], err, msg)
		}
	}
	// Every other GA or deprecated gate may be set either way (as far as
	// the lock goes; dependencies are another test).
	for _, name := range Names() {
		spec, _ := Lookup(name)
		if _, ok := locked[name]; ok != spec.Locked {
			t.Errorf("%s: locked=%v, kube-apiserver's locked=%v", name, spec.Locked, ok)
		}
	}
}

// allOn is the value record.sh started from to learn the dependencies:
// every gate that can be on, on.
func allOn() string {
	parts := []string{"AllAlpha=true", "AllBeta=true"}
	for _, name := range Names() {
		if s := known[name]; (s.Stage == GA || s.Stage == Deprecated) && !s.Default && !s.Locked {
			parts = append(parts, name+"=true")
		}
	}
	return strings.Join(parts, ",")
}

// messageRE matches the messages kube-apiserver aggregates.
var messageRE = regexp.MustCompile(`[A-Za-z0-9]+ is enabled, but depends on features that are disabled: \[[^\]]*\]|cannot set feature gate \S+ to \S+, feature is locked to (true|false)`)

// messages splits an error kube-apiserver aggregated ("[a, b]") into its
// messages, sorted: kube-apiserver orders them as a Go map does.
func messages(err string) []string {
	msgs := messageRE.FindAllString(err, -1)
	if len(msgs) < 2 {
		return []string{err}
	}
	sort.Strings(msgs)
	return msgs
}

func TestAGateNeedsTheGatesItDependsOn(t *testing.T) {
	if _, err := Parse([]string{allOn()}); err != nil {
		t.Fatalf("every gate on: %v", err)
	}
	for _, line := range readLines(t, "dependencies.txt") {
		setting, want, _ := strings.Cut(line, ": ")
		_, err := Parse([]string{allOn() + "," + setting})
		if err == nil {
			t.Errorf("%s: accepted; kube-apiserver: %s", setting, want)
			continue
		}
		if g, w := messages(err.Error()), messages(want); strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", setting, g, w)
		}
	}
}

func TestParseAnswersBadValuesWithKubeAPIServersErrors(t *testing.T) {
	for _, line := range readLines(t, "errors.txt") {
		value, want, _ := strings.Cut(line, "\t")
		// klog quotes the error: \" is ".
		want = strings.ReplaceAll(want, `\"`, `"`)
		_, err := Parse([]string{value})
		if err == nil {
			t.Errorf("%q: accepted; kube-apiserver: %s", value, want)
			continue
		}
		if g, w := messages(err.Error()), messages(want); strings.Join(g, "\n") != strings.Join(w, "\n") {
			t.Errorf("%q:\n got %q\nwant %q", value, err, want)
		}
	}
}

func TestTheZeroGatesAreKubeAPIServersDefaults(t *testing.T) {
	parsed, err := Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		spec, _ := Lookup(name)
		if (Gates{}).Enabled(name) != spec.Default || parsed.Enabled(name) != spec.Default {
			t.Errorf("%s: not at its default %v", name, spec.Default)
		}
	}
	if parsed.String() != "" {
		t.Errorf("defaults print as %q", parsed.String())
	}
}

func TestParseSetsGatesAsGiven(t *testing.T) {
	g, err := Parse([]string{"DRAListTypeAttributes=true, DRADerivedAttributes=1", "kube:DRAListTypeAttributes=false"})
	if err == nil {
		t.Fatalf("mixing kube: and no prefix was accepted: %v", g)
	}
	g, err = Parse([]string{"DRAListTypeAttributes=true, DRADerivedAttributes=1,", "DRAListTypeAttributes=false,APIServerIdentity=false,StorageVersionAPI=false,UnknownVersionInteroperabilityProxy=false"})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"DRAListTypeAttributes": false, // the later value wins
		"DRADerivedAttributes":  true,
		"APIServerIdentity":     false,
		"DRAConsumableCapacity": true, // beta, on by default
		"Nope":                  false,
	} {
		if g.Enabled(name) != want {
			t.Errorf("%s: enabled=%v, want %v", name, g.Enabled(name), want)
		}
	}
	if got, want := g.String(), "APIServerIdentity=false,DRADerivedAttributes=true,UnknownVersionInteroperabilityProxy=false"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestAllAlphaSetsTheAlphaGatesNotNamed(t *testing.T) {
	g, err := Parse([]string{"kube:AllAlpha=true,kube:DRAListTypeAttributes=false,kube:GenericWorkload=true"})
	if err != nil {
		t.Fatal(err)
	}
	if !g.Enabled("DRADerivedAttributes") || g.Enabled("DRAListTypeAttributes") || !g.Enabled(AllAlpha) {
		t.Errorf("AllAlpha: DRADerivedAttributes=%v DRAListTypeAttributes=%v", g.Enabled("DRADerivedAttributes"), g.Enabled("DRAListTypeAttributes"))
	}
	if !g.Enabled("DRAConsumableCapacity") {
		t.Error("AllAlpha turned a beta gate off")
	}
}
