package main

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestBenchCRDNames(t *testing.T) {
	tests := []struct {
		name      string
		i         int
		perGroup  int
		wantGroup string
		wantCRD   string
		wantKind  string
	}{
		{"first CRD, own group", 0, 1, "g00000.crd-bench.kapi.dev", "bench00000s.g00000.crd-bench.kapi.dev", "Bench00000"},
		{"each CRD its own group", 999, 1, "g00999.crd-bench.kapi.dev", "bench00999s.g00999.crd-bench.kapi.dev", "Bench00999"},
		{"ten per group: 9 is in the first", 9, 10, "g00000.crd-bench.kapi.dev", "bench00009s.g00000.crd-bench.kapi.dev", "Bench00009"},
		{"ten per group: 10 starts the second", 10, 10, "g00001.crd-bench.kapi.dev", "bench00010s.g00001.crd-bench.kapi.dev", "Bench00010"},
		{"zero per group means one", 7, 0, "g00007.crd-bench.kapi.dev", "bench00007s.g00007.crd-bench.kapi.dev", "Bench00007"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := benchCRDNames(tt.i, tt.perGroup)
			if n.group != tt.wantGroup || n.name() != tt.wantCRD || n.kind != tt.wantKind || n.listKind != tt.wantKind+"List" {
				t.Errorf("got group %q name %q kind %q listKind %q, want %q %q %q", n.group, n.name(), n.kind, n.listKind, tt.wantGroup, tt.wantCRD, tt.wantKind)
			}
		})
	}
}

func TestCRDNamesPaths(t *testing.T) {
	n := benchCRDNames(3, 1)
	tests := []struct{ got, want string }{
		{n.crdPath(), "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/bench00003s.g00003.crd-bench.kapi.dev"},
		{n.resourcePath("default"), "/apis/g00003.crd-bench.kapi.dev/v1/namespaces/default/bench00003s"},
		{n.openAPIV3Path(), "apis/g00003.crd-bench.kapi.dev/v1"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// The CRD must be one kube-apiserver accepts: names consistent with the
// object name, one served storage version with a structural schema.
func TestNewBenchCRD(t *testing.T) {
	n := benchCRDNames(42, 1)
	crd := newBenchCRD(n)
	data, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	var back apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"kind", back.Kind, "CustomResourceDefinition"},
		{"apiVersion", back.APIVersion, "apiextensions.k8s.io/v1"},
		{"name", back.Name, back.Spec.Names.Plural + "." + back.Spec.Group},
		{"scope", back.Spec.Scope, apiextensionsv1.NamespaceScoped},
		{"versions", len(back.Spec.Versions), 1},
		{"served", back.Spec.Versions[0].Served, true},
		{"storage", back.Spec.Versions[0].Storage, true},
		{"root type", back.Spec.Versions[0].Schema.OpenAPIV3Schema.Type, "object"},
		{"spec required", back.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Required, []string{"payload"}},
		{"replicas default", string(back.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["replicas"].Default.Raw), "1"},
		{"status subresource", back.Spec.Versions[0].Subresources.Status != nil, true},
		{"label", back.Labels[crdLabel], "crd"},
	}
	for _, c := range checks {
		if g, w := jsonOf(t, c.got), jsonOf(t, c.want); g != w {
			t.Errorf("%s: got %s, want %s", c.what, g, w)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewBenchCR(t *testing.T) {
	n := benchCRDNames(1, 1)
	got := jsonOf(t, newBenchCR(n, "cr-000001", "xyz"))
	want := `{"apiVersion":"g00001.crd-bench.kapi.dev/v1","kind":"Bench00001","metadata":{"labels":{"app":"kapi-bench"},"name":"cr-000001"},"spec":{"payload":"xyz"}}`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestCRDEstablished(t *testing.T) {
	tests := []struct {
		name string
		body string
		want bool
	}{
		{"no status", `{"metadata":{"name":"a"}}`, false},
		{"names accepted only", `{"status":{"conditions":[{"type":"NamesAccepted","status":"True"}]}}`, false},
		{"established", `{"status":{"conditions":[{"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"}]}}`, true},
		{"established false", `{"status":{"conditions":[{"type":"Established","status":"False"}]}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := crdEstablished([]byte(tt.body))
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	if _, err := crdEstablished([]byte("not json")); err == nil {
		t.Error("no error for a body that is not JSON")
	}
}

func TestCountEstablished(t *testing.T) {
	body := `{"kind":"CustomResourceDefinitionList","items":[
		{"status":{"conditions":[{"type":"Established","status":"True"}]}},
		{"status":{"conditions":[{"type":"Established","status":"False"}]}},
		{"status":{}},
		{"status":{"conditions":[{"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"}]}}]}`
	total, established, err := countEstablished([]byte(body))
	if err != nil || total != 4 || established != 2 {
		t.Errorf("got %d total, %d established, %v; want 4, 2", total, established, err)
	}
}

func TestDiscoveryGroups(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantKind   string
		wantGroups []string
		wantErr    bool
	}{
		{
			name:       "aggregated",
			body:       `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{"name":"apps"},"versions":[]},{"metadata":{"name":"g00000.crd-bench.kapi.dev"}}]}`,
			wantKind:   "APIGroupDiscoveryList",
			wantGroups: []string{"apps", "g00000.crd-bench.kapi.dev"},
		},
		{
			name:       "legacy",
			body:       `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[]},{"name":"batch"}]}`,
			wantKind:   "APIGroupList",
			wantGroups: []string{"apps", "batch"},
		},
		{name: "another kind", body: `{"kind":"Status"}`, wantKind: "Status", wantErr: true},
		{name: "not JSON", body: `<html>`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, groups, err := discoveryGroups([]byte(tt.body))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error: %v", err, tt.wantErr)
			}
			if kind != tt.wantKind || jsonOf(t, groups) != jsonOf(t, tt.wantGroups) {
				t.Errorf("got %q %v, want %q %v", kind, groups, tt.wantKind, tt.wantGroups)
			}
		})
	}
}

func TestHasAggregatedGroup(t *testing.T) {
	aggregated := `{"kind":"APIGroupDiscoveryList","items":[{"metadata":{"name":"apps"}},{"metadata":{"name":"extra.crd-bench.kapi.dev"}}]}`
	tests := []struct {
		name    string
		body    string
		group   string
		want    bool
		wantErr bool
	}{
		{"listed", aggregated, "extra.crd-bench.kapi.dev", true, false},
		{"not listed", aggregated, "g00001.crd-bench.kapi.dev", false, false},
		{"a prefix is not the group", aggregated, "extra.crd-bench", false, false},
		{"legacy form is an error", `{"kind":"APIGroupList","groups":[{"name":"apps"}]}`, "apps", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := hasAggregatedGroup([]byte(tt.body), tt.group)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("got %v, %v; want %v, error: %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestOpenAPIV3HasPath(t *testing.T) {
	index := `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=A"},"apis/extra.crd-bench.kapi.dev/v1":{"serverRelativeURL":"/openapi/v3/apis/extra.crd-bench.kapi.dev/v1?hash=B"}}}`
	tests := []struct {
		path string
		want bool
	}{
		{"apis/extra.crd-bench.kapi.dev/v1", true},
		{"api/v1", true},
		{"apis/extra.crd-bench.kapi.dev/v2", false},
		{"apis/extra.crd-bench.kapi.dev", false},
	}
	for _, tt := range tests {
		got, err := openAPIV3HasPath([]byte(index), tt.path)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %v, %v; want %v", tt.path, got, err, tt.want)
		}
	}
}

func TestCountItems(t *testing.T) {
	tests := []struct {
		body string
		want int
	}{
		{`{"kind":"Bench00000List","items":[]}`, 0},
		{`{"kind":"Bench00000List","items":[{"spec":{"payload":"a"}},{"metadata":{"name":"b"}}]}`, 2},
		{`{"kind":"Bench00000List"}`, 0},
	}
	for _, tt := range tests {
		got, err := countItems([]byte(tt.body))
		if err != nil || got != tt.want {
			t.Errorf("%s: got %d, %v; want %d", tt.body, got, err, tt.want)
		}
	}
}

func TestParseLoadavg(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr bool
	}{
		{"3.66 3.99 3.06 7/123 21533\n", 3.66, false},
		{"0.00 0.01 0.05 1/80 1", 0, false},
		{"", 0, true},
		{"x 1 2 3 4", 0, true},
	}
	for _, tt := range tests {
		got, _, err := parseLoadavg([]byte(tt.in))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%q: got %v, %v; want %v, error: %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestIsLogProblem(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`time=2026-11-23T19:54:35.709Z level=INFO msg="kapi is serving"`, false},
		{`time=2026-11-23T19:54:35.709Z level=WARN msg="slow request"`, true},
		{`time=2026-11-23T19:54:35.709Z level=ERROR msg="storage failed"`, true},
		{`E1123 19:54:35.709123   12345 reflector.go:200] "Failed to watch"`, true},
		{`W1123 19:54:35.709123   12345 reflector.go:200] warning`, true},
		{`I1123 19:54:35.709123   12345 reflector.go:200] info`, false},
		{`panic: runtime error: index out of range`, true},
		{`    kubectl --kubeconfig /tmp/admin.kubeconfig get namespaces`, false},
	}
	for _, tt := range tests {
		if got := isLogProblem(tt.line); got != tt.want {
			t.Errorf("%q: got %v, want %v", tt.line, got, tt.want)
		}
	}
}
