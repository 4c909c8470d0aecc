package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The kubectl scenarios (rollout, get all, explain) are recorded once
// against kube-apiserver and replayed against kapi: these read and write
// their recordings and compare a replay with one.

// writeKubectlRecording writes the steps a scenario ran against an oracle
// to path.
func writeKubectlRecording(t *testing.T, path string, steps []kubectlStep) {
	t.Helper()
	data, err := json.MarshalIndent(steps, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d commands in %s", len(steps), path)
}

// readKubectlRecording reads the steps recorded at path.
func readKubectlRecording(t *testing.T, path string) []kubectlStep {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recorded []kubectlStep
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}
	return recorded
}

// compareKubectlSteps reports every step kapi answered otherwise than the
// oracle did, after normalise (nil: none) has been applied to both
// outputs, and returns how many were the same.
func compareKubectlSteps(t *testing.T, recorded, got []kubectlStep, normalise func(string) string) int {
	t.Helper()
	if len(got) != len(recorded) {
		t.Fatalf("the scenario ran %d commands, the recording has %d: record it again", len(got), len(recorded))
	}
	same := 0
	for i, want := range recorded {
		if normalise != nil {
			want.Output, got[i].Output = normalise(want.Output), normalise(got[i].Output)
		}
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Errorf("kubectl %s differs from the oracle's answer (-oracle +kapi):\n%s", strings.Join(want.Args, " "), diff)
			continue
		}
		same++
	}
	return same
}
