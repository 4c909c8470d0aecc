package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/testserver"
)

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// referenceFile reads a file recorded from kube-apiserver.
func referenceFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "..", "shared", "reference", "kube-apiserver-v1.37.1", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func apiextensionsClient(t *testing.T, cfg *rest.Config) apiextensionsclient.Interface {
	t.Helper()
	c, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func dynamicClient(t *testing.T, cfg *rest.Config) dynamic.Interface {
	t.Helper()
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// createCRD creates a CRD and waits until it is established.
func createCRD(t *testing.T, c apiextensionsclient.Interface, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	ctx := context.Background()
	if _, err := c.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return waitForCondition(t, c, crd.Name, apiextensionsv1.Established, apiextensionsv1.ConditionTrue)
}

func waitForCondition(t *testing.T, c apiextensionsclient.Interface, name string, typ apiextensionsv1.CustomResourceDefinitionConditionType, status apiextensionsv1.ConditionStatus) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var crd *apiextensionsv1.CustomResourceDefinition
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		crd, err = c.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == typ && cond.Status == status {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("CRD %s never had %s=%s: %v; status %+v", name, typ, status, err, crd.Status)
	}
	return crd
}

func referenceCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(referenceFile(t, "defaulting/customresourcedefinition.input.json"), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// TestCustomResourceDefinitionMatchesReference creates kube-apiserver's
// recorded CRD and custom resource and compares what kapi answers with
// what kube-apiserver answered.
func TestCustomResourceDefinitionMatchesReference(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	crds := apiextensionsClient(t, s.ClientConfig)
	crd := createCRD(t, crds, referenceCRD(t))

	t.Run("status once established", func(t *testing.T) {
		var want apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal(referenceFile(t, "defaulting/customresourcedefinition.after-established.json"), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(crd.Status.AcceptedNames, want.Status.AcceptedNames) {
			t.Errorf("acceptedNames = %+v, want %+v", crd.Status.AcceptedNames, want.Status.AcceptedNames)
		}
		if !reflect.DeepEqual(crd.Status.StoredVersions, want.Status.StoredVersions) {
			t.Errorf("storedVersions = %v, want %v", crd.Status.StoredVersions, want.Status.StoredVersions)
		}
		if got, want := conditionSummary(crd.Status.Conditions), conditionSummary(want.Status.Conditions); got != want {
			t.Errorf("conditions:\n got %s\nwant %s", got, want)
		}
		if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter || crd.Generation != 1 {
			t.Errorf("defaults: conversion %+v, generation %d", crd.Spec.Conversion, crd.Generation)
		}
	})

	t.Run("legacy discovery of the group version", func(t *testing.T) {
		got := getJSON(t, s.ClientConfig, "/apis/example.com/v1", "application/json")
		want := map[string]interface{}{}
		if err := json.Unmarshal(referenceFile(t, "discovery/crd-example.com_v1.json"), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.MarshalIndent(got, "", " ")
			t.Errorf("discovery differs from kube-apiserver's:\n%s", g)
		}
	})

	t.Run("aggregated discovery lists the group", func(t *testing.T) {
		got := getJSON(t, s.ClientConfig, "/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		found := false
		for _, g := range got["items"].([]interface{}) {
			if g.(map[string]interface{})["metadata"].(map[string]interface{})["name"] == "example.com" {
				found = true
			}
		}
		if !found {
			t.Error("example.com is not in aggregated discovery")
		}
	})

	t.Run("a custom resource is defaulted as kube-apiserver defaults it", func(t *testing.T) {
		in := &unstructured.Unstructured{}
		if err := in.UnmarshalJSON(referenceFile(t, "defaulting/customresource.input.json")); err != nil {
			t.Fatal(err)
		}
		in.SetNamespace("default")
		out, err := dynamicClient(t, s.ClientConfig).Resource(widgets).Namespace("default").Create(ctx, in, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := &unstructured.Unstructured{}
		if err := want.UnmarshalJSON(referenceFile(t, "defaulting/customresource.output.json")); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out.Object["spec"], want.Object["spec"]) {
			t.Errorf("spec = %v, want %v", out.Object["spec"], want.Object["spec"])
		}
		if out.GetGeneration() != 1 || out.GetUID() == "" || out.GetResourceVersion() == "" {
			t.Errorf("metadata = %+v", out.Object["metadata"])
		}
	})

	t.Run("the table has the printer columns", func(t *testing.T) {
		got := getJSON(t, s.ClientConfig, "/apis/example.com/v1/namespaces/default/widgets", "application/json;as=Table;v=v1;g=meta.k8s.io")
		want := map[string]interface{}{}
		if err := json.Unmarshal(referenceFile(t, "tables/widgets-crd.json"), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got["columnDefinitions"], want["columnDefinitions"]) {
			t.Errorf("columns = %v\nwant %v", got["columnDefinitions"], want["columnDefinitions"])
		}
		rows := got["rows"].([]interface{})
		if len(rows) != 1 || !reflect.DeepEqual(rows[0].(map[string]interface{})["cells"], []interface{}{"widget1", float64(3)}) {
			t.Errorf("rows = %v", rows)
		}
	})
}

func conditionSummary(conds []apiextensionsv1.CustomResourceDefinitionCondition) string {
	var parts []string
	for _, c := range conds {
		parts = append(parts, strings.Join([]string{string(c.Type), string(c.Status), c.Reason, c.Message}, "/"))
	}
	return strings.Join(parts, "; ")
}

// getJSON GETs path with an Accept header and decodes the JSON answer.
func getJSON(t *testing.T, cfg *rest.Config, path, accept string) map[string]interface{} {
	t.Helper()
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, cfg.Host+path, nil)
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]interface{}{}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, resp.StatusCode, out)
	}
	return out
}

// TestCustomResourceVerbs exercises every verb on a namespaced custom
// resource with a status subresource, and on a cluster-scoped one with a
// scale subresource.
func TestCustomResourceVerbs(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	createCRD(t, apiextensionsClient(t, s.ClientConfig), referenceCRD(t))
	dyn := dynamicClient(t, s.ClientConfig)
	ws := dyn.Resource(widgets).Namespace("default")

	widget := func(name string, spec map[string]interface{}) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]interface{}{"name": name},
			"spec":     spec,
		}}
	}

	w, err := ws.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	created, err := ws.Create(ctx, widget("a", map[string]interface{}{"name": "a", "size": int64(1)}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expectEvent(t, w, watch.Added, "a")

	t.Run("status is ignored on the main resource and written through /status", func(t *testing.T) {
		c := created.DeepCopy()
		c.Object["status"] = map[string]interface{}{"ready": true}
		updated, err := ws.Update(ctx, c, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := updated.Object["status"]; ok || updated.GetGeneration() != 1 {
			t.Errorf("status written through the main resource: %v (generation %d)", updated.Object["status"], updated.GetGeneration())
		}
		// Nothing changed, so nothing was written: no event.
		updated.Object["status"] = map[string]interface{}{"ready": true}
		updated.Object["spec"].(map[string]interface{})["size"] = int64(9)
		st, err := ws.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Object["status"].(map[string]interface{})["ready"] != true || st.Object["spec"].(map[string]interface{})["size"] != int64(1) || st.GetGeneration() != 1 {
			t.Errorf("after /status: %v", st.Object)
		}
		expectEvent(t, w, watch.Modified, "a")
	})

	t.Run("a spec change bumps the generation", func(t *testing.T) {
		p, err := ws.Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"size":2}}`), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.GetGeneration() != 2 || p.Object["status"] == nil {
			t.Errorf("after merge patch: generation %d, status %v", p.GetGeneration(), p.Object["status"])
		}
		expectEvent(t, w, watch.Modified, "a")
		p, err = ws.Patch(ctx, "a", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/color","value":"red"}]`), metav1.PatchOptions{})
		if err != nil || p.Object["spec"].(map[string]interface{})["color"] != "red" {
			t.Fatalf("json patch: %v %v", p, err)
		}
		expectEvent(t, w, watch.Modified, "a")
		_, err = ws.Patch(ctx, "a", types.StrategicMergePatchType, []byte(`{"spec":{"size":3}}`), metav1.PatchOptions{})
		if !apierrors.IsUnsupportedMediaType(err) {
			t.Errorf("strategic merge patch: want 415, got %v", err)
		}
	})

	t.Run("unknown fields are pruned, and reported as fieldValidation asks", func(t *testing.T) {
		_, err := ws.Create(ctx, widget("strict", map[string]interface{}{"bogus": "x"}), metav1.CreateOptions{FieldValidation: "Strict"})
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "spec.bogus"`) {
			t.Fatalf("Strict: want 400 naming spec.bogus, got %v", err)
		}
		out, err := ws.Create(ctx, widget("ignored", map[string]interface{}{"bogus": "x"}), metav1.CreateOptions{FieldValidation: "Ignore"})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := out.Object["spec"].(map[string]interface{})["bogus"]; ok {
			t.Errorf("spec.bogus was stored: %v", out.Object["spec"])
		}
		expectEvent(t, w, watch.Added, "ignored")
	})

	t.Run("list, field selector, delete and deletecollection", func(t *testing.T) {
		list, err := ws.List(ctx, metav1.ListOptions{})
		if err != nil || len(list.Items) != 2 || list.GetResourceVersion() == "" {
			t.Fatalf("list: %v %v", list, err)
		}
		list, err = ws.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=ignored"})
		if err != nil || len(list.Items) != 1 {
			t.Fatalf("list by name: %v %v", list, err)
		}
		if err := ws.Delete(ctx, "ignored", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		expectEvent(t, w, watch.Deleted, "ignored")
		if err := ws.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		expectEvent(t, w, watch.Deleted, "a")
		if _, err := ws.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: %v", err)
		}
	})

	t.Run("a namespace that does not exist is refused", func(t *testing.T) {
		_, err := dyn.Resource(widgets).Namespace("nowhere").Create(ctx, widget("x", map[string]interface{}{}), metav1.CreateOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("want NotFound, got %v", err)
		}
	})
}

func expectEvent(t *testing.T, w watch.Interface, typ watch.EventType, name string) {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		u, _ := e.Object.(*unstructured.Unstructured)
		if e.Type != typ || u == nil || u.GetName() != name {
			t.Fatalf("event %s %v, want %s %s", e.Type, e.Object, typ, name)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s event for %s", typ, name)
	}
}

// TestCustomResourceDefinitionDeletionCleansUp: deleting a CRD deletes its
// custom resources first, then the CRD, and the resources stop being
// served.
func TestCustomResourceDefinitionDeletionCleansUp(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	crds := apiextensionsClient(t, s.ClientConfig)
	createCRD(t, crds, referenceCRD(t))
	ws := dynamicClient(t, s.ClientConfig).Resource(widgets).Namespace("default")
	for _, name := range []string{"one", "two"} {
		u := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]interface{}{"name": name}}}
		if _, err := ws.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := crds.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "widgets.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatal("the CRD was never deleted")
	}
	// The server stops serving the resource once its CRD informer sees
	// the deletion, a moment after the CRD is gone from storage (in
	// kube-apiserver too).
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := ws.List(ctx, metav1.ListOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Error("the custom resources were still served 30 s after their CRD was gone")
	}
	// Created again, the CRD starts empty: the cleanup removed the data.
	createCRD(t, crds, referenceCRD(t))
	list, err := ws.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("after re-creating the CRD: %v %v", list, err)
	}
}

// TestCustomResourceDefinitionsShareAGroup: CRDs of one API group are
// served side by side in its group version; deleting one leaves the other
// served and discovered, and the group goes with the last of them.
func TestCustomResourceDefinitionsShareAGroup(t *testing.T) {
	s := startKapi(t)
	ctx := context.Background()
	crds := apiextensionsClient(t, s.ClientConfig)
	pools := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal([]byte(replicaSetsCRD), pools); err != nil {
		t.Fatal(err)
	}
	createCRD(t, crds, referenceCRD(t))
	createCRD(t, crds, pools)
	disco := clientset(t, s.ClientConfig).Discovery()
	dyn := dynamicClient(t, s.ClientConfig)
	poolsGVR := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "pools"}

	resourcesOfGroup := func() []string {
		t.Helper()
		list, err := disco.ServerResourcesForGroupVersion("example.com/v1")
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range list.APIResources {
			names = append(names, r.Name)
		}
		return names
	}
	if got, want := resourcesOfGroup(), []string{"pools", "pools/scale", "pools/status", "widgets", "widgets/status"}; !slices.Equal(got, want) {
		t.Errorf("example.com/v1 has %v, want %v", got, want)
	}
	for _, gvr := range []schema.GroupVersionResource{widgets, poolsGVR} {
		if _, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("list %s: %v", gvr.Resource, err)
		}
	}

	deleted := func(name string) {
		t.Helper()
		if err := crds.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("%s was never deleted", name)
		}
		// Discovery drops the resource once the server's CRD informer
		// sees the deletion, a moment after the CRD is gone.
		plural, _, _ := strings.Cut(name, ".")
		err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			return !slices.Contains(resourcesOfGroup(), plural), nil
		})
		if err != nil {
			t.Fatalf("%s was still discovered 30 s after its CRD was gone", plural)
		}
	}
	deleted("widgets.example.com")
	if got, want := resourcesOfGroup(), []string{"pools", "pools/scale", "pools/status"}; !slices.Equal(got, want) {
		t.Errorf("after deleting widgets, example.com/v1 has %v, want %v", got, want)
	}
	if _, err := dyn.Resource(poolsGVR).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("pools after deleting widgets: %v", err)
	}
	if _, err := dyn.Resource(widgets).Namespace("default").List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("widgets after their CRD was deleted: want NotFound, got %v", err)
	}

	deleted("pools.example.com")
	if got := resourcesOfGroup(); got != nil {
		t.Errorf("after deleting both, example.com/v1 has %v", got)
	}
}

// TestCustomResourceDefinitionNameConflicts: a CRD asking for a kind
// another CRD of its group has is not accepted, and is not served.
func TestCustomResourceDefinitionNameConflicts(t *testing.T) {
	s := startKapi(t)
	crds := apiextensionsClient(t, s.ClientConfig)
	createCRD(t, crds, referenceCRD(t))
	other := referenceCRD(t)
	other.Name = "gadgets.example.com"
	other.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Kind: "Widget", ShortNames: []string{"wd"}}
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crd := waitForCondition(t, crds, "gadgets.example.com", apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionFalse)
	for _, c := range crd.Status.Conditions {
		// kube-apiserver reports the last conflict it finds: the list kind
		// follows from the kind.
		if c.Type == apiextensionsv1.NamesAccepted && (c.Reason != "ListKindConflict" || c.Message != `"WidgetList" is already in use`) {
			t.Errorf("NamesAccepted = %+v", c)
		}
		if c.Type == apiextensionsv1.Established && c.Status != apiextensionsv1.ConditionFalse {
			t.Errorf("Established = %+v", c)
		}
	}
	gadgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	if _, err := dynamicClient(t, s.ClientConfig).Resource(gadgets).Namespace("default").List(context.Background(), metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list of a CRD that is not established: want NotFound, got %v", err)
	}
}

// TestCustomResourcesServedAfterRestart: a restarted kapi is ready only
// once it serves every stored CRD, so that clients that saw a CRD
// established never meet a 404 for its resources.
func TestCustomResourcesServedAfterRestart(t *testing.T) {
	dir := t.TempDir()
	s1 := testserver.Start(t, testserver.Options{DataDir: dir})
	ctx := context.Background()
	createCRD(t, apiextensionsClient(t, s1.ClientConfig), referenceCRD(t))
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]interface{}{"name": "kept"},
		"spec": map[string]interface{}{}}}
	if _, err := dynamicClient(t, s1.ClientConfig).Resource(widgets).Namespace("default").Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A default added after the object was written applies when it is read.
	patch := `[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/shape","value":{"type":"string","default":"round"}}]`
	if _, err := apiextensionsClient(t, s1.ClientConfig).ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, "widgets.example.com", types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s1.Stop(); err != nil {
		t.Fatal(err)
	}

	s2 := testserver.Start(t, testserver.Options{DataDir: dir})
	// No polling: ready means served.
	got, err := dynamicClient(t, s2.ClientConfig).Resource(widgets).Namespace("default").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("right after ready: %v", err)
	}
	spec, _ := got.Object["spec"].(map[string]interface{})
	if spec["color"] != "blue" || spec["shape"] != "round" {
		t.Errorf("spec = %v, want the default color written and the default shape read", spec)
	}
	disc := getJSON(t, s2.ClientConfig, "/apis/example.com/v1", "application/json")
	if len(disc["resources"].([]interface{})) != 2 {
		t.Errorf("discovery after restart: %v", disc)
	}
}

// TestProtectedGroupsNeedApproval: CRDs in the Kubernetes project's groups
// need the api-approved.kubernetes.io annotation, and say whether they
// conform to the policy.
func TestProtectedGroupsNeedApproval(t *testing.T) {
	s := startKapi(t)
	crds := apiextensionsClient(t, s.ClientConfig)
	crd := referenceCRD(t)
	crd.Name, crd.Spec.Group = "widgets.x.k8s.io", "x.k8s.io"
	_, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `protected groups must have approval annotation "api-approved.kubernetes.io"`) {
		t.Fatalf("want the approval error, got %v", err)
	}
	crd.Annotations = map[string]string{"api-approved.kubernetes.io": "unapproved, experimental-only"}
	createCRD(t, crds, crd)
	got := waitForCondition(t, crds, crd.Name, apiextensionsv1.KubernetesAPIApprovalPolicyConformant, apiextensionsv1.ConditionFalse)
	for _, c := range got.Status.Conditions {
		if c.Type == apiextensionsv1.KubernetesAPIApprovalPolicyConformant && c.Reason != "UnapprovedAnnotation" {
			t.Errorf("condition %+v", c)
		}
	}
}
