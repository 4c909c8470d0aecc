package eventratelimit

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/pkg/admission"
	"github.com/kapi-dev/kapi/pkg/authentication/user"
)

func event(ns, userName string, kind schema.GroupVersionKind) *admission.Attributes {
	return &admission.Attributes{Namespace: ns, Kind: kind, Operation: admission.Create, User: &user.DefaultInfo{Name: userName},
		Resource: corev1.SchemeGroupVersion.WithResource("events"), Object: &corev1.Event{}}
}

var coreEvent = corev1.SchemeGroupVersion.WithKind("Event")

// Each key has a bucket of burst tokens refilled at qps a second; the
// event over a limit is refused with 429 naming every limit it broke;
// dry runs and events.k8s.io Events take no token.
func TestRateLimits(t *testing.T) {
	cfg, err := LoadConfig([]byte(`apiVersion: eventratelimit.admission.k8s.io/v1alpha1
kind: Configuration
limits:
- {type: Namespace, qps: 1, burst: 2}
- {type: User, qps: 1, burst: 3}
`))
	if err != nil {
		t.Fatal(err)
	}
	clk := testingclock.NewFakeClock(time.Now())
	p, err := New(cfg, clk)
	if err != nil {
		t.Fatal(err)
	}
	accept := func(a *admission.Attributes) string {
		t.Helper()
		err := p.Validate(context.Background(), a)
		if err == nil {
			return ""
		}
		if !apierrors.IsTooManyRequests(err) {
			t.Fatalf("error %v is not a 429", err)
		}
		return err.Error()
	}
	// A refused event still takes a token from the limits it passed.
	steps := []struct {
		a    *admission.Attributes
		want string
	}{
		{event("a", "u", coreEvent), ""},
		{event("a", "u", coreEvent), ""},
		{event("a", "u", coreEvent), "Too many requests: limit reached on type Namespace for key a"},
		{event("b", "u", coreEvent), "Too many requests: limit reached on type User for key u"},
		{event("b", "u", coreEvent), "Too many requests: limit reached on type User for key u"},
		{event("b", "u", coreEvent), "Too many requests: [limit reached on type Namespace for key b, limit reached on type User for key u]"},
		{event("b", "v", schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}), ""},
	}
	for i, s := range steps {
		if got := accept(s.a); got != s.want {
			t.Errorf("event %d: %q, want %q", i, got, s.want)
		}
	}
	dry := event("a", "w", coreEvent)
	dry.DryRun = true
	if got := accept(dry); got != "" {
		t.Errorf("dry run: %q", got)
	}
	clk.Step(time.Second)
	if got := accept(event("a", "w", coreEvent)); got != "" {
		t.Errorf("after a second: %q", got)
	}
}

// A configuration is checked as kube-apiserver checks it.
func TestLoadConfig(t *testing.T) {
	tests := []struct{ data, err string }{
		{"apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits: []\n", "must not be empty"},
		{"apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits: [{type: Pod, qps: 0, burst: 1, cacheSize: -1}]\n",
			`[limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject", limits[0].qps: Invalid value: 0: must be positive, limits[0].cacheSize: Invalid value: -1: must not be negative]`},
		{"apiVersion: v1\nkind: Configuration\nlimits: [{type: Server, qps: 1, burst: 1}]\n", "no kind"},
	}
	for _, tc := range tests {
		_, err := LoadConfig([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("LoadConfig(%q) = %v, want %q", tc.data, err, tc.err)
		}
	}
	if _, err := LoadConfig(nil); err == nil {
		t.Error("no configuration: accepted, want the empty limits refused")
	}
}
