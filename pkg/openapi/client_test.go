package openapi

import (
	"net/http/httptest"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/util/proto"
)

// newClientServer serves the documents of kube-apiserver's resources on a
// real HTTP server and returns a discovery client for it.
func newClientServer(t *testing.T) *discovery.DiscoveryClient {
	t.Helper()
	srv := httptest.NewServer(newKubeService(t))
	t.Cleanup(srv.Close)
	// The first request builds the documents: client-go's 32s discovery
	// timeout is not enough for that under -race on a loaded machine, and
	// these tests are about what the documents say, not how fast.
	return discovery.NewDiscoveryClientForConfigOrDie(&rest.Config{Host: srv.URL, Timeout: 5 * time.Minute})
}

// client-go's OpenAPI v3 client, which kubectl explain and kubectl's
// validation use, finds every group version in the index and fetches and
// decodes their documents.
func TestClientGoReadsTheV3Documents(t *testing.T) {
	dc := newClientServer(t)
	root := openapi3.NewRoot(dc.OpenAPIV3())

	gvs, err := root.GroupVersions()
	if err != nil {
		t.Fatal(err)
	}
	want := map[schema.GroupVersion]bool{{Version: "v1"}: true, {Group: "apps", Version: "v1"}: true, {Group: "batch", Version: "v1"}: true}
	for _, gv := range gvs {
		delete(want, gv)
	}
	if len(want) > 0 {
		t.Errorf("group versions %v are missing from %v", want, gvs)
	}

	doc, err := root.GVSpec(schema.GroupVersion{Group: "apps", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	deployment := doc.Components.Schemas["io.k8s.api.apps.v1.Deployment"]
	if deployment == nil || deployment.Properties["spec"].AllOf[0].Ref.String() != "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec" {
		t.Errorf("Deployment: %+v", deployment)
	}
	if doc.Paths.Paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"] == nil {
		t.Error("no scale subresource path")
	}

	// The protobuf form is served too.
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	pb, err := paths["api/v1"].Schema("application/com.github.proto-openapi.spec.v3@v1.0+protobuf")
	if err != nil || len(pb) == 0 {
		t.Errorf("protobuf v3 document: %d bytes, %v", len(pb), err)
	}
}

// kubectl reads /openapi/v2 in protobuf, then builds its models with
// kube-openapi's proto package to explain fields, validate objects and
// find the patch strategy of fields by kind.
func TestKubectlModelsFromTheV2Document(t *testing.T) {
	dc := newClientServer(t)
	doc, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	models, err := proto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatal(err)
	}

	// Models are found by kind, as kubectl does, through
	// x-kubernetes-group-version-kind.
	byKind := map[schema.GroupVersionKind]proto.Schema{}
	for _, name := range models.ListModels() {
		model := models.LookupModel(name)
		gvks, _ := model.GetExtensions()["x-kubernetes-group-version-kind"].([]any)
		for _, gvk := range gvks {
			m := gvk.(map[any]any)
			byKind[schema.GroupVersionKind{Group: m["group"].(string), Version: m["version"].(string), Kind: m["kind"].(string)}] = model
		}
	}
	pod, ok := byKind[schema.GroupVersionKind{Version: "v1", Kind: "Pod"}].(*proto.Kind)
	if !ok {
		t.Fatalf("no Pod model")
	}

	// kubectl explain pod.spec.containers.ports
	containers := pod.Fields["spec"].(proto.Reference).SubSchema().(*proto.Kind).Fields["containers"]
	if got := containers.GetDescription(); got != "List of containers belonging to the pod. Containers cannot currently be added or removed. There must be at least one container in a Pod. Cannot be updated." {
		t.Errorf("containers: %q", got)
	}
	ext := containers.GetExtensions()
	if ext["x-kubernetes-patch-strategy"] != "merge" || ext["x-kubernetes-patch-merge-key"] != "name" {
		t.Errorf("containers extensions: %v", ext)
	}
	container := containers.(*proto.Array).SubType.(proto.Reference).SubSchema().(*proto.Kind)
	if !container.IsRequired("name") {
		t.Error("a container's name is not required")
	}
	ports := container.Fields["ports"].(*proto.Array).SubType.(proto.Reference).SubSchema().(*proto.Kind)
	if p, ok := ports.Fields["containerPort"].(*proto.Primitive); !ok || p.Type != "integer" || p.Format != "int32" {
		t.Errorf("containerPort: %#v", ports.Fields["containerPort"])
	}
	if _, ok := byKind[schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}]; !ok {
		t.Error("no Deployment model")
	}
}
