package patch_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/pkg/admission/plugin/policy/mutating/patch"
	"github.com/kapi-dev/kapi/pkg/api/scheme"
	"github.com/kapi-dev/kapi/pkg/cel/mutation"
	"github.com/kapi-dev/kapi/pkg/endpoints/fieldmanager"
)

// The expected results and messages below are kube-apiserver 1.37.1's,
// observed on the oracle with the same policies (test/corpus/
// testdata-admission/mutatingadmissionpolicy records the same answers
// through a whole server).

var configMap = `
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: ns, labels: {a: "1"}}
data: {a: "1"}
`

var deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec: {containers: [{name: c, image: nginx}]}
`

var pod = `
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers:
  - name: c
    image: nginx
    env: [{name: A, value: "1"}]
`

func TestApplyConfigurationMergesAsServerSideApply(t *testing.T) {
	for _, tc := range []struct {
		name, object, expression string
		// want is the merged object, as YAML; err the error instead.
		want, err string
	}{{
		name:       "labels are added and overridden, annotations added",
		object:     configMap,
		expression: `Object{metadata: Object.metadata{labels: {"added": "yes", "a": "overridden"}, annotations: {"x": "y"}}}`,
		want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: ns, labels: {a: overridden, added: "yes"}, annotations: {x: "y"}}
data: {a: "1"}
`,
	}, {
		name:       "the name may change",
		object:     configMap,
		expression: `Object{metadata: Object.metadata{name: "other2"}}`,
		want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: other2, namespace: ns, labels: {a: "1"}}
data: {a: "1"}
`,
	}, {
		name:       "an empty configuration changes nothing",
		object:     configMap,
		expression: `Object{}`,
		want:       configMap,
	}, {
		name:       "containers merge by name, env vars by name",
		object:     pod,
		expression: `Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", env: [Object.spec.containers.env{name: "E", value: "v"}]}, Object.spec.containers{name: "side", image: "busybox"}]}}`,
		want: `
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers:
  - name: c
    image: nginx
    env: [{name: A, value: "1"}, {name: E, value: v}]
  - {name: side, image: busybox}
`,
	}, {
		name:       "a field the kind does not have",
		object:     configMap,
		expression: `Object{spec: Object.spec{foo: "x"}}`,
		err:        `error applying patch: failed to convert patch object to typed object: .spec: field not declared in schema`,
	}, {
		name:       "a nested type not named after its field path",
		object:     configMap,
		expression: `Object{metadata: Object.spec{labels: {"a": "b"}}}`,
		err:        `type mismatch: unexpected type name "Object.spec", expected "Object.metadata", which matches field name path from root Object type`,
	}, {
		name:       "a value of the wrong type",
		object:     configMap,
		expression: `Object{data: Object.data{a: 1}}`,
		err:        `error applying patch: failed to convert patch object to typed object: .data.a: expected string, got &value.valueUnstructured{Value:1}`,
	}, {
		name:       "a map literal in a list (not an Object) is not converted",
		object:     configMap,
		expression: `Object{metadata: Object.metadata{ownerReferences: [{"uid": "x"}]}}`,
		err:        `error applying patch: failed to convert patch object to typed object: .metadata.ownerReferences: element 0: associative list with keys may not have non-map elements`,
	}, {
		name:       "a null in a map literal",
		object:     configMap,
		expression: `Object{metadata: Object.metadata{labels: {"a": null}}}`,
		err:        `error applying patch: failed to convert patch object to typed object: .metadata.labels.a: expected string, got &value.valueUnstructured{Value:0}`,
	}, {
		name:       "a null field",
		object:     configMap,
		expression: `Object{data: null}`,
		err:        `error applying patch: failed to convert patch object to typed object: .data: expected map, got &{NULL_VALUE}`,
	}, {
		name:       "an atomic struct",
		object:     deployment,
		expression: `Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {"x": "y"}}}}`,
		err:        `error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector`,
	}, {
		name:       "not an Object",
		object:     configMap,
		expression: `dyn({"a": 1})`,
		err:        `unsupported return type from ApplyConfiguration expression: map(dyn, dyn)`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			obj := typedObject(t, tc.object)
			before := obj.DeepCopyObject()
			tcv := fieldmanager.SchemeTypeConverter(scheme.Scheme, nil)
			got, err := patch.ApplyConfiguration(tcv, obj, evaluate(t, obj, tc.expression))
			checkResult(t, got, err, tc.want, tc.err)
			if !equalJSON(t, before, obj) {
				t.Errorf("the object given was changed")
			}
		})
	}
}

func TestJSONPatchAppliesOperationsInOrder(t *testing.T) {
	for _, tc := range []struct {
		name, object, expression string
		want, err                string
		// internal says the error is the request's answer, an internal
		// error, whatever the policy's failurePolicy.
		internal bool
	}{{
		name:       "replace the name",
		object:     configMap,
		expression: `[JSONPatch{op: "replace", path: "/metadata/name", value: "other"}]`,
		want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: other, namespace: ns, labels: {a: "1"}}
data: {a: "1"}
`,
	}, {
		name:       "keys escaped with jsonpatch.escapeKey",
		object:     configMap,
		expression: `[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("a.b/c~d"), value: "v"}]`,
		want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: ns, labels: {a: "1", "a.b/c~d": v}}
data: {a: "1"}
`,
	}, {
		name:       "a value built as an Object",
		object:     configMap,
		expression: `[JSONPatch{op: "add", path: "/metadata/annotations", value: Object.metadata.annotations{x: "y"}}]`,
		want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: cm, namespace: ns, labels: {a: "1"}, annotations: {x: "y"}}
data: {a: "1"}
`,
	}, {
		name:       "a failed test skips the whole patch",
		object:     configMap,
		expression: `[JSONPatch{op: "add", path: "/data/b", value: "x"}, JSONPatch{op: "test", path: "/data/a", value: "zzz"}]`,
		want:       configMap,
	}, {
		name:       "removing a missing key",
		object:     configMap,
		expression: `[JSONPatch{op: "remove", path: "/data/missing"}]`,
		err:        `JSON Patch: error in remove for path: '/data/missing': Unable to remove nonexistent key: missing: missing value`,
	}, {
		name:       "a value of the wrong type",
		object:     configMap,
		expression: `[JSONPatch{op: "add", path: "/data/x", value: 1}]`,
		err:        `Internal error occurred: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`,
		internal:   true,
	}, {
		name:       "another kind",
		object:     configMap,
		expression: `[JSONPatch{op: "replace", path: "/kind", value: "Secret"}]`,
		err:        `Internal error occurred: illegal base64 data at input byte 0`,
		internal:   true,
	}, {
		name:       "not a list",
		object:     configMap,
		expression: `dyn("x")`,
		err:        `type mismatch: JSONPatchType.expression should evaluate to array`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			obj := typedObject(t, tc.object)
			before := obj.DeepCopyObject()
			got, err := patch.JSONPatch(patch.Scheme{Creater: scheme.Scheme, Typer: scheme.Scheme},
				obj.GetObjectKind().GroupVersionKind(), obj, evaluate(t, obj, tc.expression))
			checkResult(t, got, err, tc.want, tc.err)
			var status apierrors.APIStatus
			if isStatus := errors.As(err, &status); err != nil && isStatus != tc.internal {
				t.Errorf("error %v: status error %v, want %v", err, isStatus, tc.internal)
			}
			if !equalJSON(t, before, obj) {
				t.Errorf("the object given was changed")
			}
		})
	}
}

func TestJSONPatchOfACustomResourceStaysUnstructured(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"size": int64(1)},
	}}
	got, err := patch.JSONPatch(patch.Scheme{Creater: scheme.Scheme, Typer: scheme.Scheme},
		schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, obj,
		evaluate(t, obj, `[JSONPatch{op: "replace", path: "/spec/size", value: object.spec.size + 1}]`))
	if err != nil {
		t.Fatal(err)
	}
	u, ok := got.(*unstructured.Unstructured)
	if !ok {
		t.Fatalf("got %T, want unstructured", got)
	}
	if size, _, _ := unstructured.NestedInt64(u.Object, "spec", "size"); size != 2 {
		t.Errorf("spec.size = %d, want 2", size)
	}
}

func TestEscapeKey(t *testing.T) {
	for in, want := range map[string]string{"a.b/c~d": "a.b~1c~0d", "~1": "~01", "plain": "plain", "//": "~1~1"} {
		if got := mutation.EscapeKey(in); got != want {
			t.Errorf("EscapeKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// evaluate evaluates expression with object bound to obj, in an
// environment with the mutation types.
func evaluate(t *testing.T, obj runtime.Object, expression string) ref.Val {
	t.Helper()
	base, err := cel.NewEnv()
	if err != nil {
		t.Fatal(err)
	}
	env, err := base.Extend(cel.CustomTypeProvider(mutation.Provider(base.CELTypeProvider())), mutation.Library(),
		cel.Variable("object", cel.DynType))
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(expression)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := prg.Eval(map[string]any{"object": content})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// typedObject decodes a YAML object to its Go type, with its kind set as
// admission hands it to a policy.
func typedObject(t *testing.T, y string) runtime.Object {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		t.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
	return obj
}

func checkResult(t *testing.T, got runtime.Object, err error, want, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || err.Error() != wantErr {
			t.Fatalf("error:\n got %v\nwant %s", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	// The plugin converts an unstructured result to the kind's Go type.
	if u, ok := got.(*unstructured.Unstructured); ok {
		typed, err := scheme.Scheme.New(u.GroupVersionKind())
		if err != nil {
			t.Fatal(err)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			t.Fatal(err)
		}
		got = typed
	}
	if w := typedObject(t, want); !equalJSON(t, w, got) {
		g, _ := json.Marshal(got)
		t.Errorf("got %s", g)
	}
}

func equalJSON(t *testing.T, a, b runtime.Object) bool {
	t.Helper()
	ua, err := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	if err != nil {
		t.Fatal(err)
	}
	ub, err := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(ua)
	jb, _ := json.Marshal(ub)
	return string(ja) == string(jb)
}
