package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The pure part of the crd suite: the CRDs it installs and the documents it
// reads back (CRD lists, discovery, the OpenAPI v3 index, /proc/loadavg,
// kapi's log), kept apart from the HTTP so that they can be tested alone.

const (
	// crdGroupSuffix ends the group of every bench CRD, so that they are
	// easy to tell from anything else the server serves.
	crdGroupSuffix = ".crd-bench.kapi.dev"
	// crdVersion is the one version each bench CRD serves and stores.
	crdVersion = "v1"
	// crdLabel marks the bench's CRDs, to list only them.
	crdLabel = "kapi-bench"
)

// crdNames are the names of one bench CRD and of its resource.
type crdNames struct {
	group    string
	plural   string
	singular string
	kind     string
	listKind string
}

// benchCRDNames returns the names of the i-th bench CRD (i >= 0). perGroup
// CRDs share an API group: 1 gives every CRD a group of its own, the worst
// case for discovery, where each CRD adds a group entry besides a resource.
// The kind and plural carry i, so that they are unique whatever the
// grouping.
func benchCRDNames(i, perGroup int) crdNames {
	perGroup = max(perGroup, 1)
	id := fmt.Sprintf("%05d", i)
	return crdNames{
		group:    fmt.Sprintf("g%05d", i/perGroup) + crdGroupSuffix,
		plural:   "bench" + id + "s",
		singular: "bench" + id,
		kind:     "Bench" + id,
		listKind: "Bench" + id + "List",
	}
}

// name is the CRD's object name, <plural>.<group>.
func (n crdNames) name() string { return n.plural + "." + n.group }

// crdPath is the path of the CRD object.
func (n crdNames) crdPath() string {
	return "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + n.name()
}

// resourcePath is the path of the custom resources of namespace ns.
func (n crdNames) resourcePath(ns string) string {
	return "/apis/" + n.group + "/" + crdVersion + "/namespaces/" + ns + "/" + n.plural
}

// openAPIV3Path is the key of the CRD's group-version in the OpenAPI v3
// index (GET /openapi/v3).
func (n crdNames) openAPIV3Path() string { return "apis/" + n.group + "/" + crdVersion }

// newBenchCRD builds a small namespaced CRD of the kind operators ship: a
// structural schema with a spec (a required string, a defaulted integer
// with a minimum, a list of strings) and a status, the status subresource
// and one printer column. No CEL rules: their compilation is a cost of its
// own, not what this suite measures.
func newBenchCRD(n crdNames) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	schema := apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {
				Type:     "object",
				Required: []string{"payload"},
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"payload":  {Type: "string", MaxLength: ptrTo[int64](1 << 16)},
					"replicas": {Type: "integer", Format: "int32", Minimum: ptrTo(0.0), Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
					"tags":     {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
				},
			},
			"status": {
				Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"ready": {Type: "boolean"},
				},
			},
		},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   n.name(),
			Labels: map[string]string{crdLabel: "crd"},
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: n.group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural:   n.plural,
				Singular: n.singular,
				Kind:     n.kind,
				ListKind: n.listKind,
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name:    crdVersion,
				Served:  true,
				Storage: true,
				Schema:  &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &schema},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
				},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
				},
			}},
		},
	}
}

// newBenchCR is one custom resource of n, of the size of the api suite's
// configmaps: its spec.payload is what a configmap's data.payload is.
func newBenchCR(n crdNames, name, payload string) map[string]any {
	return map[string]any{
		"apiVersion": n.group + "/" + crdVersion,
		"kind":       n.kind,
		"metadata": map[string]any{
			"name":   name,
			"labels": map[string]any{"app": "kapi-bench"},
		},
		"spec": map[string]any{"payload": payload},
	}
}

func ptrTo[T any](v T) *T { return &v }

// crdConditions is the part of a CRD, or of each CRD of a list, that tells
// whether it is established; decoding only that keeps the polls cheap.
type crdConditions struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
		} `json:"conditions"`
	} `json:"status"`
}

func (c crdConditions) established() bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == string(apiextensionsv1.Established) {
			return cond.Status == string(apiextensionsv1.ConditionTrue)
		}
	}
	return false
}

// crdEstablished reports whether the CRD in body (a GET of one CRD, JSON)
// has the condition Established=True.
func crdEstablished(body []byte) (bool, error) {
	var c crdConditions
	if err := json.Unmarshal(body, &c); err != nil {
		return false, err
	}
	return c.established(), nil
}

// countEstablished counts the CRDs of a JSON CustomResourceDefinitionList,
// and those of them that are established.
func countEstablished(body []byte) (total, established int, err error) {
	var list struct {
		Items []crdConditions `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return 0, 0, err
	}
	for _, c := range list.Items {
		if c.established() {
			established++
		}
	}
	return len(list.Items), established, nil
}

// Media types of the two forms of discovery of /apis.
const (
	mediaAggregatedDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)

// discoveryGroups returns the group names of a discovery document of /apis:
// an aggregated APIGroupDiscoveryList (groups under items[].metadata.name)
// or a legacy APIGroupList (groups[].name), told apart by their kind.
func discoveryGroups(body []byte) (kind string, groups []string, err error) {
	var doc struct {
		Kind  string `json:"kind"`
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
		Groups []struct {
			Name string `json:"name"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", nil, err
	}
	switch doc.Kind {
	case "APIGroupDiscoveryList":
		for _, it := range doc.Items {
			groups = append(groups, it.Metadata.Name)
		}
	case "APIGroupList":
		for _, g := range doc.Groups {
			groups = append(groups, g.Name)
		}
	default:
		return doc.Kind, nil, fmt.Errorf("not a discovery document of /apis: kind %q", doc.Kind)
	}
	return doc.Kind, groups, nil
}

// hasAggregatedGroup reports whether body, an aggregated discovery document
// of /apis, lists group.
func hasAggregatedGroup(body []byte, group string) (bool, error) {
	kind, groups, err := discoveryGroups(body)
	if err != nil {
		return false, err
	}
	if kind != "APIGroupDiscoveryList" {
		return false, fmt.Errorf("asked for aggregated discovery, got %s", kind)
	}
	for _, g := range groups {
		if g == group {
			return true, nil
		}
	}
	return false, nil
}

// openAPIV3HasPath reports whether the OpenAPI v3 index (GET /openapi/v3,
// {"paths": {"apis/<group>/<version>": {...}}}) lists path.
func openAPIV3HasPath(body []byte, path string) (bool, error) {
	var index struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil {
		return false, err
	}
	_, ok := index.Paths[path]
	return ok, nil
}

// countItems counts the items of a JSON list without decoding them.
func countItems(body []byte) (int, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return 0, err
	}
	return len(list.Items), nil
}

// parseLoadavg returns the 1-minute load average and the whole line of
// /proc/loadavg ("0.52 0.58 0.59 2/123 4567").
func parseLoadavg(data []byte) (float64, string, error) {
	line := strings.TrimSpace(string(data))
	first, _, _ := strings.Cut(line, " ")
	load1, err := strconv.ParseFloat(first, 64)
	if err != nil {
		return 0, line, fmt.Errorf("bad /proc/loadavg %q: %w", line, err)
	}
	return load1, line, nil
}

// klogProblem matches the header of a klog warning or error line
// ("E1123 19:54:35.709 ..."), which client-go's informers in kapi write.
var klogProblem = regexp.MustCompile(`^[EWF]\d{4} \d\d:\d\d:\d\d`)

// isLogProblem reports whether a line of kapi's log is a warning, an error
// or a panic: kapi logs with log/slog's text handler (level=WARN,
// level=ERROR), libraries it links with klog.
func isLogProblem(line string) bool {
	return strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") ||
		klogProblem.MatchString(line) || strings.HasPrefix(line, "panic:") ||
		strings.HasPrefix(line, "fatal error:")
}
