package mutating

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	celadmission "github.com/kapi-dev/kapi/pkg/cel/admission"
)

// kube-apiserver 1.37.1's families, as its /metrics describes them
// (recorded from the oracle): name, type and help.
var kubeFamilies = []string{
	"apiserver_mutating_admission_policy_check_duration_seconds histogram [ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.",
	"apiserver_mutating_admission_policy_check_total counter [ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.",
}

func TestMetricsAreKubeAPIServers(t *testing.T) {
	m := NewMetrics()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	m.observe("p", "b", nil, time.Millisecond)
	m.observe("p", "b", errors.New("expression 'x' resulted in error: no such key"), time.Millisecond)
	m.observe("p", "b", errors.New("compilation error: bad"), time.Millisecond)
	m.observe("p", "b", errors.New(celadmission.OutOfBudget), time.Millisecond)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range families {
		got = append(got, f.GetName()+" "+strings.ToLower(f.GetType().String())+" "+f.GetHelp())
		if f.GetName() != "apiserver_mutating_admission_policy_check_total" {
			continue
		}
		var errorTypes []string
		for _, metric := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range metric.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["policy"] != "p" || labels["policy_binding"] != "b" || metric.GetCounter().GetValue() != 1 {
				t.Errorf("series %v = %v, want policy p, binding b, 1", labels, metric.GetCounter().GetValue())
			}
			errorTypes = append(errorTypes, labels["error_type"])
		}
		if diff := cmp.Diff([]string{"compile_error", "invalid_error", "no_error", "out_of_budget"}, errorTypes); diff != "" {
			t.Errorf("error types (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(kubeFamilies, got); diff != "" {
		t.Errorf("families (-kube-apiserver +kapi):\n%s", diff)
	}
}
