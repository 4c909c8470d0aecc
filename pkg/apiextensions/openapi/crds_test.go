package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	protobuf "google.golang.org/protobuf/proto"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/openapi3"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/util/proto"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/internal/required"
	kapiopenapi "github.com/kapi-dev/kapi/pkg/openapi"
)

// loadCRDs reads every CustomResourceDefinition of the YAML files of the
// real-world CRDs (cert-manager, prometheus-operator) in ../shared/crds.
func loadCRDs(t testing.TB) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	dir := required.CRDs(t)
	var crds []*apiextensionsv1.CustomResourceDefinition
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, doc := range bytes.Split(data, []byte("\n---")) {
			var meta struct{ Kind string }
			if err := yaml.Unmarshal(doc, &meta); err != nil || meta.Kind != "CustomResourceDefinition" {
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.Unmarshal(doc, crd); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			crds = append(crds, crd)
		}
		return nil
	})
	if err != nil || len(crds) == 0 {
		required.Missing(t, "the real-world CRDs of ../shared/crds", fmt.Errorf("no CRDs in %s: %v", dir, err))
	}
	return crds
}

// servedResources describes every served version of the CRDs.
func servedResources(t testing.TB, crds []*apiextensionsv1.CustomResourceDefinition) []kapiopenapi.Resource {
	t.Helper()
	var out []kapiopenapi.Resource
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			r, err := Resource(crd, v.Name)
			if err != nil {
				t.Fatalf("%s %s: %v", crd.Name, v.Name, err)
			}
			out = append(out, r)
		}
	}
	return out
}

// builtins are a few built-in resources, for the meta types the custom
// resources share with them.
var builtins = []kapiopenapi.Resource{{
	GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, ListGVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMapList"},
	Resource: "configmaps", Namespaced: true, Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
}}

// newCRDServer serves the documents of the CRDs on an HTTP server, and
// returns the discovery client kubectl would use.
func newCRDServer(t *testing.T, resources []kapiopenapi.Resource) *discovery.DiscoveryClient {
	t.Helper()
	s := kapiopenapi.NewService(kapiopenapi.Config{Info: kapiopenapi.Info{Title: "Kubernetes", Version: "1.37"}, Scheme: scheme.Scheme})
	if err := s.Update(append(append([]kapiopenapi.Resource(nil), builtins...), resources...)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return discovery.NewDiscoveryClientForConfigOrDie(&rest.Config{Host: srv.URL})
}

// modelsByKind indexes models by x-kubernetes-group-version-kind, as
// kubectl finds them.
func modelsByKind(models proto.Models) map[schema.GroupVersionKind]proto.Schema {
	byKind := map[schema.GroupVersionKind]proto.Schema{}
	for _, name := range models.ListModels() {
		model := models.LookupModel(name)
		gvks, _ := model.GetExtensions()["x-kubernetes-group-version-kind"].([]any)
		for _, gvk := range gvks {
			// v2 models have YAML maps, v3 models JSON ones.
			get := func(key string) string {
				switch m := gvk.(type) {
				case map[any]any:
					return m[key].(string)
				case map[string]any:
					return m[key].(string)
				}
				return ""
			}
			byKind[schema.GroupVersionKind{Group: get("group"), Version: get("version"), Kind: get("kind")}] = model
		}
	}
	return byKind
}

// field follows a path of fields through kubectl's models, as kubectl
// explain does: through references and into the items of arrays.
func field(t *testing.T, s proto.Schema, path string) proto.Schema {
	t.Helper()
	for name := range strings.SplitSeq(path, ".") {
		for {
			if ref, ok := s.(proto.Reference); ok {
				s = ref.SubSchema()
			} else if array, ok := s.(*proto.Array); ok {
				s = array.SubType
			} else {
				break
			}
		}
		kind, ok := s.(*proto.Kind)
		if !ok {
			t.Fatalf("%s: %s is a %T, not an object", path, name, s)
		}
		if s = kind.Fields[name]; s == nil {
			t.Fatalf("%s: no field %s in %v", path, name, kind.Keys())
		}
	}
	return s
}

// Every real-world CRD is published in documents that kubectl and
// client-go read: the Swagger 2.0 document in protobuf through
// kube-openapi's models (kubectl explain, validation and patches), the v3
// documents through client-go's OpenAPI v3 client, gnostic's protobuf
// form and the type converter of server-side apply.
func TestRealWorldCRDsAreReadByClients(t *testing.T) {
	crds := loadCRDs(t)
	resources := servedResources(t, crds)
	dc := newCRDServer(t, resources)

	v2, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatal(err)
	}
	models, err := proto.NewOpenAPIData(v2)
	if err != nil {
		t.Fatal(err)
	}
	v2Kinds := modelsByKind(models)

	root := openapi3.NewRoot(dc.OpenAPIV3())
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resources {
		gv := r.GVK.GroupVersion()
		if _, ok := v2Kinds[r.GVK].(*proto.Kind); !ok {
			t.Errorf("v2: no object model for %v: %T", r.GVK, v2Kinds[r.GVK])
		}
		if _, ok := v2Kinds[r.ListGVK].(*proto.Kind); !ok {
			t.Errorf("v2: no object model for %v", r.ListGVK)
		}

		doc, err := root.GVSpec(gv)
		if err != nil {
			t.Errorf("v3 %v: %v", gv, err)
			continue
		}
		kind := doc.Components.Schemas[kapiopenapi.ModelName(r.GVK)]
		if _, ok := kind.Properties["spec"]; kind == nil || !ok {
			t.Errorf("v3 %v: the kind has no spec", r.GVK)
		}

		pb, err := paths["apis/"+gv.Group+"/"+gv.Version].Schema("application/com.github.proto-openapi.spec.v3@v1.0+protobuf")
		if err != nil {
			t.Fatalf("v3 %v in protobuf: %v", gv, err)
		}
		var v3doc openapi_v3.Document
		if err := protobuf.Unmarshal(pb, &v3doc); err != nil {
			t.Fatalf("v3 %v in protobuf: %v", gv, err)
		}
		v3models, err := proto.NewOpenAPIV3Data(&v3doc)
		if err != nil {
			t.Errorf("v3 %v models: %v", gv, err)
		} else if _, ok := modelsByKind(v3models)[r.GVK].(*proto.Kind); !ok {
			t.Errorf("v3 %v: no object model for the kind", r.GVK)
		}

		if _, err := managedfields.NewTypeConverter(doc.Components.Schemas, false); err != nil {
			t.Errorf("v3 %v: server-side apply cannot use it: %v", gv, err)
		}
	}

	// kubectl explain certificate.spec.secretName, and what it shows of
	// the kind.
	certificate := v2Kinds[schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}]
	if got := field(t, certificate, "spec.secretName").GetDescription(); !strings.HasPrefix(got, "Name of the Secret resource that will be automatically created and\nmanaged by this Certificate resource.") {
		t.Errorf("certificate.spec.secretName: %q", got)
	}
	if !field(t, certificate, "spec").(*proto.Kind).IsRequired("secretName") {
		t.Error("certificate.spec.secretName is not required")
	}
	if got := field(t, certificate, "metadata.name").GetDescription(); !strings.HasPrefix(got, "Name must be unique within a namespace.") {
		t.Errorf("certificate.metadata.name: %q", got)
	}
	// A field that may be an int or a string has no type kubectl would
	// hold a value to.
	prometheus := v2Kinds[schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1", Kind: "Prometheus"}]
	port := field(t, prometheus, "spec.containers.ports.containerPort")
	if p, ok := port.(*proto.Primitive); !ok || p.Type != "integer" {
		t.Errorf("prometheus.spec.containers.ports.containerPort: %#v", port)
	}
	if _, ok := field(t, prometheus, "spec.containers.livenessProbe.httpGet.port").(*proto.Arbitrary); !ok {
		t.Errorf("prometheus.spec.containers.livenessProbe.httpGet.port is not arbitrary")
	}
}

// The published schemas of the real-world CRDs keep everything the CRDs
// say (v3), and v2 has nothing Swagger 2.0 cannot express.
func TestRealWorldCRDSchemas(t *testing.T) {
	for _, crd := range loadCRDs(t) {
		for _, v := range crd.Spec.Versions {
			v3, v2, err := ResourceSchema(crd, v.Name)
			if err != nil {
				t.Fatal(err)
			}
			if v3.Properties["metadata"].AllOf == nil {
				t.Errorf("%s %s: published as a bare object", crd.Name, v.Name)
				continue
			}
			// Everything the CRD says of spec is in v3.
			var written, published any
			asJSONInto(t, v.Schema.OpenAPIV3Schema.Properties["spec"], &written)
			asJSONInto(t, v3.Properties["spec"], &published)
			if missing := missingFrom(written, published, "spec"); len(missing) > 0 {
				t.Errorf("%s %s: v3 lacks %v", crd.Name, v.Name, missing[:min(len(missing), 5)])
			}
			var v2JSON any
			asJSONInto(t, v2, &v2JSON)
			for _, key := range []string{"nullable", "anyOf", "allOf", "oneOf", "not", "default"} {
				if path := findKey(v2JSON, key, ""); path != "" {
					t.Errorf("%s %s: v2 has %s at %s", crd.Name, v.Name, key, path)
				}
			}
		}
	}
}

func asJSONInto(t *testing.T, v, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

// missingFrom lists the paths of the values of want that got lacks.
func missingFrom(want, got any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path}
		}
		var missing []string
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			missing = append(missing, missingFrom(w[k], g[k], path+"."+k)...)
		}
		return missing
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{path}
		}
		var missing []string
		for i := range w {
			missing = append(missing, missingFrom(w[i], g[i], path)...)
		}
		return missing
	default:
		if want != got {
			return []string{path}
		}
		return nil
	}
}

// findKey returns the path of a key anywhere in v, "" if none.
func findKey(v any, key, path string) string {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[key]; ok {
			return path + "." + key
		}
		for k, sub := range v {
			if k == "properties" {
				// Property names are not keywords.
				for name, p := range sub.(map[string]any) {
					if found := findKey(p, key, path+"."+name); found != "" {
						return found
					}
				}
				continue
			}
			if found := findKey(sub, key, path+"."+k); found != "" {
				return found
			}
		}
	case []any:
		for _, sub := range v {
			if found := findKey(sub, key, path); found != "" {
				return found
			}
		}
	}
	return ""
}
