package openapi

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// clientGoSchema returns the structured-merge-diff schema client-go ships
// for server-side apply. It is generated from kube-apiserver's OpenAPI
// definitions, so it knows, for every type with an apply configuration, the
// fields, list and map types, defaults and unions that came from comment
// markers.
func clientGoSchema(t *testing.T) *smdschema.Schema {
	t.Helper()
	// The schema is in client-go's internal package; its exported type
	// converter hands it out with any value it types.
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
	typed, err := applyconfigurations.NewTypeConverter(s).ObjectToTyped(cm)
	if err != nil {
		t.Fatal(err)
	}
	return typed.Schema()
}

// allDefinitions builds the v3 definitions of every kind client-go knows.
func allDefinitions(t *testing.T) map[string]*definition {
	t.Helper()
	var roots []reflect.Type
	for _, typ := range scheme.Scheme.AllKnownTypes() {
		if typ.Kind() == reflect.Struct {
			roots = append(roots, typ)
		}
	}
	defs, err := v3Definitions.closure(roots)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// The markers read from the Go comments agree with client-go's copy of
// kube-apiserver's definitions: same fields, list types and keys, map types,
// defaults and unions, for every type both know.
func TestMarkersAgreeWithClientGoApplySchema(t *testing.T) {
	smd := clientGoSchema(t)
	defs := allDefinitions(t)
	compared := 0
	for _, td := range smd.Types {
		d, ok := defs[td.Name]
		if !ok || td.Map == nil {
			continue
		}
		compared++
		for _, problem := range compareWithSMD(smd, td, d.schema) {
			t.Errorf("%s: %s", td.Name, problem)
		}
	}
	if compared < 500 {
		t.Errorf("compared %d types, want most of client-go's %d", compared, len(smd.Types))
	}
}

func compareWithSMD(smd *smdschema.Schema, td smdschema.TypeDef, s *spec.Schema) []string {
	var problems []string
	ext := func(s spec.Schema, name string) any { return s.Extensions[name] }

	wantStruct := ""
	if td.Map.ElementRelationship == smdschema.Atomic {
		wantStruct = "atomic"
	}
	if got, _ := s.Extensions["x-kubernetes-map-type"].(string); got != wantStruct && !(got == "granular" && wantStruct == "") {
		problems = append(problems, fmt.Sprintf("x-kubernetes-map-type %q, want %q", got, wantStruct))
	}

	var smdFields, ours []string
	for _, f := range td.Map.Fields {
		smdFields = append(smdFields, f.Name)
	}
	for name := range s.Properties {
		ours = append(ours, name)
	}
	sort.Strings(smdFields)
	sort.Strings(ours)
	if !slices.Equal(smdFields, ours) {
		problems = append(problems, fmt.Sprintf("properties %v, want %v", ours, smdFields))
	}

	for _, f := range td.Map.Fields {
		p, ok := s.Properties[f.Name]
		if !ok {
			continue
		}
		if !reflect.DeepEqual(normalizeDefault(f.Default), normalizeDefault(p.Default)) {
			problems = append(problems, fmt.Sprintf("%s: default %#v, want %#v", f.Name, p.Default, f.Default))
		}
		atom, _ := smd.Resolve(f.Type)
		switch {
		case atom.List != nil:
			want, keys := "atomic", []string(nil)
			if atom.List.ElementRelationship == smdschema.Associative {
				want, keys = "set", nil
				if len(atom.List.Keys) > 0 {
					want, keys = "map", atom.List.Keys
				}
			}
			got, _ := ext(p, "x-kubernetes-list-type").(string)
			gotKeys := toStrings(ext(p, "x-kubernetes-list-map-keys"))
			if got == "" {
				// No marker: structured-merge-diff falls back on the
				// patch strategy, or atomic.
				got = "atomic"
				if strategy, _ := ext(p, "x-kubernetes-patch-strategy").(string); strategy == "merge" || strategy == "merge,retainKeys" {
					got = "set"
					if key, _ := ext(p, "x-kubernetes-patch-merge-key").(string); key != "" {
						got, gotKeys = "map", []string{key}
					}
				}
			}
			if got != want || !slices.Equal(gotKeys, keys) {
				problems = append(problems, fmt.Sprintf("%s: list type %s %v, want %s %v", f.Name, got, gotKeys, want, keys))
			}
		case atom.Map != nil && f.Type.NamedType == nil:
			want := mapType(atom.Map.ElementRelationship)
			if got, _ := ext(p, "x-kubernetes-map-type").(string); got != want {
				problems = append(problems, fmt.Sprintf("%s: map type %q, want %q", f.Name, got, want))
			}
		}
	}

	var wantUnions []any
	for _, u := range td.Map.Unions {
		union := map[string]any{}
		if u.Discriminator != nil {
			union["discriminator"] = *u.Discriminator
		}
		members := map[string]any{}
		for _, f := range u.Fields {
			members[f.FieldName] = f.DiscriminatorValue
		}
		union["fields-to-discriminateBy"] = members
		wantUnions = append(wantUnions, union)
	}
	gotUnions, _ := s.Extensions["x-kubernetes-unions"].([]any)
	if !reflect.DeepEqual(gotUnions, wantUnions) {
		problems = append(problems, fmt.Sprintf("unions %v, want %v", gotUnions, wantUnions))
	}
	return problems
}

func mapType(r smdschema.ElementRelationship) string {
	switch r {
	case smdschema.Atomic:
		return "atomic"
	case smdschema.Separable:
		return "granular"
	}
	return ""
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// normalizeDefault makes YAML and JSON numbers comparable.
func normalizeDefault(v any) any {
	switch v := v.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = normalizeDefault(x)
		}
		return out
	case map[any]any:
		out := map[string]any{}
		for k, x := range v {
			out[fmt.Sprint(k)] = normalizeDefault(x)
		}
		return out
	}
	return v
}
