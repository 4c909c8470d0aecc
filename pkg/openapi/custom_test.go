package openapi

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"
)

var (
	stableV1  = schema.GroupVersion{Group: "stable.example.com", Version: "v1"}
	scaleKind = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	crdVerbs  = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
)

// cronTabs is a custom resource with status and scale, as the CRD server
// describes one. Its definitions are reduced to the minimum.
func cronTabs() Resource {
	kind := stableV1.WithKind("CronTab")
	return Resource{
		GVK: kind, ListGVK: stableV1.WithKind("CronTabList"), Resource: "crontabs", Namespaced: true, Verbs: crdVerbs,
		Subresources: []Subresource{
			{Name: "status", GVK: kind, Verbs: []string{"get", "patch", "update"}},
			{Name: "scale", GVK: scaleKind, Verbs: []string{"get", "patch", "update"}},
		},
		Schema: &KindSchema{
			V3: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}, Description: "v3"}},
			V2: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}, Description: "v2"}},
		},
	}
}

// clusterWidgets is a cluster-scoped custom resource without subresources.
func clusterWidgets(group string) Resource {
	gv := schema.GroupVersion{Group: group, Version: "v1"}
	return Resource{
		GVK: gv.WithKind("Widget"), ListGVK: gv.WithKind("WidgetList"), Resource: "widgets", Verbs: crdVerbs,
		Schema: &KindSchema{V3: &spec.Schema{}, V2: &spec.Schema{}},
	}
}

// operationIDs lists the operations of a document as "METHOD path id".
func operationIDs(doc map[string]any) []string {
	var out []string
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			out = append(out, strings.ToUpper(method)+" "+path+" "+op.(map[string]any)["operationId"].(string))
		}
	}
	sort.Strings(out)
	return out
}

// v2DocumentJSON is the /openapi/v2 document as JSON values.
func v2DocumentJSON(t *testing.T, s *Service) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(get(t, s, "/openapi/v2").Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// Custom resources have the paths kube-apiserver's CRD server describes:
// no watch paths, and a list across namespaces for namespaced resources.
func TestCustomResourcePaths(t *testing.T) {
	for _, tc := range []struct {
		resource Resource
		want     []string
	}{{
		resource: cronTabs(),
		want: []string{
			"DELETE /apis/stable.example.com/v1/namespaces/{namespace}/crontabs deleteStableExampleComV1CollectionNamespacedCronTab",
			"DELETE /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name} deleteStableExampleComV1NamespacedCronTab",
			"GET /apis/stable.example.com/v1/crontabs listStableExampleComV1CronTabForAllNamespaces",
			"GET /apis/stable.example.com/v1/namespaces/{namespace}/crontabs listStableExampleComV1NamespacedCronTab",
			"GET /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name} readStableExampleComV1NamespacedCronTab",
			"GET /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale readStableExampleComV1NamespacedCronTabScale",
			"GET /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status readStableExampleComV1NamespacedCronTabStatus",
			"PATCH /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name} patchStableExampleComV1NamespacedCronTab",
			"PATCH /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale patchStableExampleComV1NamespacedCronTabScale",
			"PATCH /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status patchStableExampleComV1NamespacedCronTabStatus",
			"POST /apis/stable.example.com/v1/namespaces/{namespace}/crontabs createStableExampleComV1NamespacedCronTab",
			"PUT /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name} replaceStableExampleComV1NamespacedCronTab",
			"PUT /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale replaceStableExampleComV1NamespacedCronTabScale",
			"PUT /apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status replaceStableExampleComV1NamespacedCronTabStatus",
		},
	}, {
		resource: clusterWidgets("widgets.example.com"),
		want: []string{
			"DELETE /apis/widgets.example.com/v1/widgets deleteWidgetsExampleComV1CollectionWidget",
			"DELETE /apis/widgets.example.com/v1/widgets/{name} deleteWidgetsExampleComV1Widget",
			"GET /apis/widgets.example.com/v1/widgets listWidgetsExampleComV1Widget",
			"GET /apis/widgets.example.com/v1/widgets/{name} readWidgetsExampleComV1Widget",
			"PATCH /apis/widgets.example.com/v1/widgets/{name} patchWidgetsExampleComV1Widget",
			"POST /apis/widgets.example.com/v1/widgets createWidgetsExampleComV1Widget",
			"PUT /apis/widgets.example.com/v1/widgets/{name} replaceWidgetsExampleComV1Widget",
		},
	}} {
		t.Run(tc.resource.Resource, func(t *testing.T) {
			s := newService(t, tc.resource)
			v3 := v3Document(t, s, v3Path(tc.resource.GVK.GroupVersion()))
			if diff := cmp.Diff(tc.want, operationIDs(v3)); diff != "" {
				t.Errorf("v3 (-want +got):\n%s", diff)
			}
			var v2 []string
			for _, op := range operationIDs(v2DocumentJSON(t, s)) {
				if strings.Contains(op, "example.com") {
					v2 = append(v2, op)
				}
			}
			if diff := cmp.Diff(tc.want, v2); diff != "" {
				t.Errorf("v2 (-want +got):\n%s", diff)
			}
		})
	}
}

// v3Operation is what TestCustomResourceOperations pins of an operation.
type v3OperationFacts struct {
	Description string
	Action      string
	// Params are the names of the parameters, the path's included.
	Params []string
	// Body is the $ref of the request body, in each media type it takes.
	Body map[string]string
	// Responses are the $refs of the responses ("" for none), by code.
	Responses map[string]string
	// Produces are the media types of the 200 response.
	Produces []string
}

func v3Facts(t *testing.T, doc map[string]any, path, method string) v3OperationFacts {
	t.Helper()
	item, ok := doc["paths"].(map[string]any)[path].(map[string]any)
	if !ok {
		t.Fatalf("no path %s", path)
	}
	op, ok := item[method].(map[string]any)
	if !ok {
		t.Fatalf("no %s %s", method, path)
	}
	var facts v3OperationFacts
	facts.Description = op["description"].(string)
	facts.Action = op["x-kubernetes-action"].(string)
	if gvk := op["x-kubernetes-group-version-kind"].(map[string]any); gvk["kind"] != "CronTab" || gvk["group"] != "stable.example.com" || gvk["version"] != "v1" {
		t.Errorf("%s %s: x-kubernetes-group-version-kind %v", method, path, gvk)
	}
	for _, params := range []any{item["parameters"], op["parameters"]} {
		list, _ := params.([]any)
		for _, p := range list {
			facts.Params = append(facts.Params, p.(map[string]any)["name"].(string))
		}
	}
	sort.Strings(facts.Params)
	ref := func(content any) map[string]string {
		out := map[string]string{}
		for mediaType, c := range content.(map[string]any) {
			out[mediaType] = c.(map[string]any)["schema"].(map[string]any)["$ref"].(string)
		}
		return out
	}
	if body, ok := op["requestBody"].(map[string]any); ok {
		facts.Body = ref(body["content"])
	}
	facts.Responses = map[string]string{}
	for code, r := range op["responses"].(map[string]any) {
		content, ok := r.(map[string]any)["content"]
		if !ok {
			facts.Responses[code] = ""
			continue
		}
		refs := ref(content)
		facts.Responses[code] = refs["application/json"]
		if code == "200" {
			for mediaType := range refs {
				facts.Produces = append(facts.Produces, mediaType)
			}
			sort.Strings(facts.Produces)
		}
	}
	return facts
}

// The operations on custom resources are those of kube-apiserver's CRD
// server, which differ from those on built-in resources: JSON and YAML
// only, no strategic merge patch, resourceVersion on reads, no
// DeleteOptions on deletecollection.
func TestCustomResourceOperations(t *testing.T) {
	const (
		prefix     = "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs"
		cronTab    = "#/components/schemas/com.example.stable.v1.CronTab"
		list       = "#/components/schemas/com.example.stable.v1.CronTabList"
		status     = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status"
		patch      = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
		deleteOpts = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
		scale      = "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"
	)
	listParams := []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "namespace", "pretty", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "shardSelector", "timeoutSeconds", "watch"}
	writeParams := []string{"dryRun", "fieldManager", "fieldValidation", "name", "namespace", "pretty"}
	patchParams := []string{"dryRun", "fieldManager", "fieldValidation", "force", "name", "namespace", "pretty"}
	readParams := []string{"name", "namespace", "pretty", "resourceVersion"}
	jsonYAML := []string{"application/json", "application/yaml"}
	both := func(ref string) map[string]string {
		return map[string]string{"application/json": ref, "application/yaml": ref}
	}
	patches := func(ref string) map[string]string {
		return map[string]string{"application/json-patch+json": ref, "application/merge-patch+json": ref, "application/apply-patch+yaml": ref}
	}

	doc := v3Document(t, newService(t, cronTabs()), "apis/stable.example.com/v1")
	for _, tc := range []struct {
		method, path string
		want         v3OperationFacts
	}{
		{"get", prefix, v3OperationFacts{
			Description: "list objects of kind CronTab", Action: "list", Params: listParams,
			Responses: map[string]string{"200": list, "401": ""}, Produces: jsonYAML,
		}},
		{"post", prefix, v3OperationFacts{
			Description: "create a CronTab", Action: "post", Params: []string{"dryRun", "fieldManager", "fieldValidation", "namespace", "pretty"},
			Body: both(cronTab), Responses: map[string]string{"200": cronTab, "201": cronTab, "202": cronTab, "401": ""}, Produces: jsonYAML,
		}},
		{"delete", prefix, v3OperationFacts{
			Description: "delete collection of CronTab", Action: "deletecollection", Params: listParams,
			Responses: map[string]string{"200": status, "401": ""}, Produces: jsonYAML,
		}},
		{"get", prefix + "/{name}", v3OperationFacts{
			Description: "read the specified CronTab", Action: "get", Params: readParams,
			Responses: map[string]string{"200": cronTab, "401": ""}, Produces: jsonYAML,
		}},
		{"put", prefix + "/{name}", v3OperationFacts{
			Description: "replace the specified CronTab", Action: "put", Params: writeParams,
			Body: both(cronTab), Responses: map[string]string{"200": cronTab, "201": cronTab, "401": ""}, Produces: jsonYAML,
		}},
		{"patch", prefix + "/{name}", v3OperationFacts{
			Description: "partially update the specified CronTab", Action: "patch", Params: patchParams,
			Body: patches(patch), Responses: map[string]string{"200": cronTab, "401": ""}, Produces: jsonYAML,
		}},
		{"delete", prefix + "/{name}", v3OperationFacts{
			Description: "delete a CronTab", Action: "delete",
			Params: []string{"dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "name", "namespace", "orphanDependents", "pretty", "propagationPolicy"},
			Body:   both(deleteOpts), Responses: map[string]string{"200": status, "202": status, "401": ""}, Produces: jsonYAML,
		}},
		{"get", prefix + "/{name}/status", v3OperationFacts{
			Description: "read status of the specified CronTab", Action: "get", Params: readParams,
			Responses: map[string]string{"200": cronTab, "401": ""}, Produces: jsonYAML,
		}},
		{"put", prefix + "/{name}/status", v3OperationFacts{
			Description: "replace status of the specified CronTab", Action: "put", Params: writeParams,
			Body: both(cronTab), Responses: map[string]string{"200": cronTab, "201": cronTab, "401": ""}, Produces: jsonYAML,
		}},
		{"patch", prefix + "/{name}/status", v3OperationFacts{
			Description: "partially update status of the specified CronTab", Action: "patch", Params: patchParams,
			Body: patches(patch), Responses: map[string]string{"200": cronTab, "401": ""}, Produces: jsonYAML,
		}},
		{"get", prefix + "/{name}/scale", v3OperationFacts{
			Description: "read scale of the specified CronTab", Action: "get", Params: readParams,
			Responses: map[string]string{"200": scale, "401": ""}, Produces: jsonYAML,
		}},
		{"put", prefix + "/{name}/scale", v3OperationFacts{
			Description: "replace scale of the specified CronTab", Action: "put", Params: writeParams,
			Body: both(scale), Responses: map[string]string{"200": scale, "201": scale, "401": ""}, Produces: jsonYAML,
		}},
		{"patch", prefix + "/{name}/scale", v3OperationFacts{
			Description: "partially update scale of the specified CronTab", Action: "patch", Params: patchParams,
			Body: patches(patch), Responses: map[string]string{"200": scale, "401": ""}, Produces: jsonYAML,
		}},
	} {
		if diff := cmp.Diff(tc.want, v3Facts(t, doc, tc.path, tc.method)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.method, tc.path, diff)
		}
	}
}

// fromYAML is YAML as JSON values.
func fromYAML(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v in:\n%s", err, s)
	}
	return v
}

// A custom resource's kind is defined by its schema, named after its GVK
// and found by kubectl through x-kubernetes-group-version-kind; its list
// kind is kube-apiserver's, with the kind's selectable fields.
func TestCustomResourceDefinitions(t *testing.T) {
	r := cronTabs()
	fields := []any{map[string]any{"fieldPath": "spec.color"}}
	r.Schema.V3.AddExtension("x-kubernetes-selectable-fields", fields)
	r.Schema.V2.AddExtension("x-kubernetes-selectable-fields", fields)
	s := newService(t, r)

	list := func(refs, metadata string) string {
		return `
type: object
description: CronTabList is a list of CronTab
required: [items]
properties:
  apiVersion:
    type: string
    description: "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
  kind:
    type: string
    description: "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
  items:
    type: array
    description: "List of crontabs. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
    items: {$ref: "` + refs + `com.example.stable.v1.CronTab"}
  metadata:
    description: "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
` + metadata + `
x-kubernetes-group-version-kind: [{group: stable.example.com, version: v1, kind: CronTabList}]
x-kubernetes-selectable-fields: [{fieldPath: spec.color}]
`
	}
	kind := func(description string) string {
		return `
type: object
description: ` + description + `
x-kubernetes-group-version-kind: [{group: stable.example.com, version: v1, kind: CronTab}]
x-kubernetes-selectable-fields: [{fieldPath: spec.color}]
`
	}

	v3 := v3Document(t, s, "apis/stable.example.com/v1")
	schemas := v3["components"].(map[string]any)["schemas"].(map[string]any)
	if diff := cmp.Diff(fromYAML(t, kind("v3")), schemas["com.example.stable.v1.CronTab"]); diff != "" {
		t.Errorf("v3 CronTab (-want +got):\n%s", diff)
	}
	wantList := list("#/components/schemas/", `    allOf: [{$ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}]`)
	if diff := cmp.Diff(fromYAML(t, wantList), schemas["com.example.stable.v1.CronTabList"]); diff != "" {
		t.Errorf("v3 CronTabList (-want +got):\n%s", diff)
	}
	var names []string
	for name := range schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	wantNames := []string{
		"com.example.stable.v1.CronTab", "com.example.stable.v1.CronTabList",
		"io.k8s.api.autoscaling.v1.Scale", "io.k8s.api.autoscaling.v1.ScaleSpec", "io.k8s.api.autoscaling.v1.ScaleStatus",
		"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
		"io.k8s.apimachinery.pkg.apis.meta.v1.Patch", "io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions",
		"io.k8s.apimachinery.pkg.apis.meta.v1.ShardInfo", "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
		"io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause", "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails",
		"io.k8s.apimachinery.pkg.apis.meta.v1.Time",
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("v3 definitions (-want +got):\n%s", diff)
	}
	// kube-apiserver's CRD server does not narrow the kinds of the meta
	// types to the group version, as its built-in documents do.
	if gvks := schemas["io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"].(map[string]any)["x-kubernetes-group-version-kind"].([]any); len(gvks) < 10 {
		t.Errorf("DeleteOptions has the kinds %v", gvks)
	}
	// And it has its own title, and no security scheme.
	wantRest := fromYAML(t, `{openapi: 3.0.0, info: {title: Kubernetes CRD Swagger, version: v0.1.0}, components: {}}`)
	delete(v3["components"].(map[string]any), "schemas")
	delete(v3, "paths")
	if diff := cmp.Diff(wantRest, any(v3)); diff != "" {
		t.Errorf("v3 document (-want +got):\n%s", diff)
	}

	v2 := v2DocumentJSON(t, s)
	definitions := v2["definitions"].(map[string]any)
	if diff := cmp.Diff(fromYAML(t, kind("v2")), definitions["com.example.stable.v1.CronTab"]); diff != "" {
		t.Errorf("v2 CronTab (-want +got):\n%s", diff)
	}
	wantList = list("#/definitions/", `    $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"`)
	if diff := cmp.Diff(fromYAML(t, wantList), definitions["com.example.stable.v1.CronTabList"]); diff != "" {
		t.Errorf("v2 CronTabList (-want +got):\n%s", diff)
	}
}

func TestModelName(t *testing.T) {
	for gvk, want := range map[schema.GroupVersionKind]string{
		stableV1.WithKind("CronTab"):                                        "com.example.stable.v1.CronTab",
		{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}:      "io.cert-manager.v1.Certificate",
		{Group: "monitoring.coreos.com", Version: "v1", Kind: "Prometheus"}: "com.coreos.monitoring.v1.Prometheus",
		{Group: "localhost", Version: "v1alpha1", Kind: "Thing"}:            "localhost.v1alpha1.Thing",
	} {
		if got := ModelName(gvk); got != want {
			t.Errorf("%v: %q, want %q", gvk, got, want)
		}
	}
}

// kube-apiserver publishes no discovery documents for the groups of custom
// resources: the v3 index has their group versions only.
func TestCustomGroupsHaveNoDiscoveryOperations(t *testing.T) {
	s := newService(t, pods, deployments, cronTabs(), clusterWidgets("widgets.example.com"))
	want := []string{"api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "apis/stable.example.com/v1", "apis/widgets.example.com/v1", "version"}
	if got := v3Paths(t, s); !equal(got, want) {
		t.Errorf("index: %v, want %v", got, want)
	}
	for path := range v2DocumentJSON(t, s)["paths"].(map[string]any) {
		if path == "/apis/stable.example.com/" || path == "/apis/stable.example.com/v1/" {
			t.Errorf("v2 has %s", path)
		}
	}

	// With custom resources only, there is no group list either.
	s = newService(t, cronTabs())
	if got, want := v3Paths(t, s), []string{"apis/stable.example.com/v1", "version"}; !equal(got, want) {
		t.Errorf("index: %v, want %v", got, want)
	}
}

func TestUpdateRefusesInvalidCustomResources(t *testing.T) {
	noSchema := cronTabs()
	noSchema.Schema = &KindSchema{V3: &spec.Schema{}}
	connect := cronTabs()
	connect.Subresources = append(connect.Subresources, Subresource{Name: "proxy", GVK: scaleKind, ConnectMethods: []string{"GET"}})
	unknownSubresourceKind := cronTabs()
	unknownSubresourceKind.Subresources[1].GVK = stableV1.WithKind("Scale")
	mixed := clusterWidgets("stable.example.com")
	mixed.Schema = nil
	mixed.GVK.Kind = "Pod" // a kind the scheme knows, in another group

	for name, resources := range map[string][]Resource{
		"a definition missing":        {noSchema},
		"a connect subresource":       {connect},
		"a subresource of no kind":    {unknownSubresourceKind},
		"custom and Go types in a gv": {cronTabs(), mixed},
	} {
		s := newService(t, cronTabs())
		before := v3URLs(t, s)
		if err := s.SetGroupVersion(stableV1, resources); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if diff := cmp.Diff(before, v3URLs(t, s)); diff != "" {
			t.Errorf("%s: the documents changed (-before +after):\n%s", name, diff)
		}
	}
}
