package controller

import (
	"context"
	"log/slog"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/pkg/apis/apiextensions"
)

// fakeCRDs is a Lister whose StatusWriter stores what it is given.
type fakeCRDs struct {
	byName map[string]*apiextensionsv1.CustomResourceDefinition
	writes int
}

func newFakeCRDs(crds ...*apiextensionsv1.CustomResourceDefinition) *fakeCRDs {
	f := &fakeCRDs{byName: map[string]*apiextensionsv1.CustomResourceDefinition{}}
	for _, c := range crds {
		f.byName[c.Name] = c
	}
	return f
}

func (f *fakeCRDs) Get(name string) (*apiextensionsv1.CustomResourceDefinition, bool) {
	c, ok := f.byName[name]
	return c, ok
}

func (f *fakeCRDs) ListGroup(group string) []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range f.byName {
		if c.Spec.Group == group {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeCRDs) write(_ context.Context, crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
	f.writes++
	f.byName[crd.Name] = crd
	return crd, nil
}

func crd(group, plural, kind string, accepted *apiextensionsv1.CustomResourceDefinitionNames) *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: plural[:len(plural)-1], Kind: kind, ListKind: kind + "List"},
		},
	}
	if accepted != nil {
		c.Status.AcceptedNames = *accepted
	}
	return c
}

func TestNamingDecides(t *testing.T) {
	widgetNames := &apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wd"}}
	tests := []struct {
		name         string
		crd          *apiextensionsv1.CustomResourceDefinition
		others       []*apiextensionsv1.CustomResourceDefinition
		builtin      func(group, resource string) bool
		wantReason   string
		wantMessage  string
		wantAccepted apiextensionsv1.CustomResourceDefinitionNames
	}{{
		name:         "a group of its own accepts every name",
		crd:          crd("example.com", "widgets", "Widget", nil),
		wantReason:   "NoConflicts",
		wantMessage:  "no conflicts found",
		wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
	}, {
		name:         "another group may use the same names",
		crd:          crd("example.com", "widgets", "Widget", nil),
		others:       []*apiextensionsv1.CustomResourceDefinition{crd("other.com", "widgets", "Widget", widgetNames)},
		wantReason:   "NoConflicts",
		wantMessage:  "no conflicts found",
		wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
	}, {
		name:         "a plural taken as a short name",
		crd:          crd("example.com", "wd", "Wd", nil),
		others:       []*apiextensionsv1.CustomResourceDefinition{crd("example.com", "widgets", "Widget", widgetNames)},
		wantReason:   "PluralConflict",
		wantMessage:  `"wd" is already in use`,
		wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Singular: "w", Kind: "Wd", ListKind: "WdList"},
	}, {
		name:         "a kind taken in the group",
		crd:          crd("example.com", "gadgets", "Widget", nil),
		others:       []*apiextensionsv1.CustomResourceDefinition{crd("example.com", "widgets", "Widget", widgetNames)},
		wantReason:   "ListKindConflict",
		wantMessage:  `"WidgetList" is already in use`,
		wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget"},
	}, {
		name:         "names it already has stay its own",
		crd:          crd("example.com", "widgets", "Widget", widgetNames),
		others:       []*apiextensionsv1.CustomResourceDefinition{crd("example.com", "widgets2", "Widget2", widgetNames)},
		wantReason:   "NoConflicts",
		wantMessage:  "no conflicts found",
		wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
	}, {
		name:         "a built-in resource's name",
		crd:          crd("apps", "deployments", "MyDeployment", nil),
		builtin:      func(group, resource string) bool { return group == "apps" && resource == "deployments" },
		wantReason:   "PluralConflict",
		wantMessage:  `"deployments" is already in use by a built-in resource`,
		wantAccepted: apiextensionsv1.CustomResourceDefinitionNames{Singular: "deployment", Kind: "MyDeployment", ListKind: "MyDeploymentList"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeCRDs(append(tt.others, tt.crd)...)
			var established []string
			n := NewNaming(fake, fake.write, tt.builtin, func(name string) { established = append(established, name) }, slog.Default())
			if err := n.sync(context.Background(), tt.crd.Name); err != nil {
				t.Fatal(err)
			}
			got := fake.byName[tt.crd.Name]
			accepted := apiextensions.GetCondition(got, apiextensionsv1.NamesAccepted)
			if accepted == nil || accepted.Reason != tt.wantReason || accepted.Message != tt.wantMessage {
				t.Fatalf("NamesAccepted = %+v, want %s: %s", accepted, tt.wantReason, tt.wantMessage)
			}
			if !reflect.DeepEqual(got.Status.AcceptedNames, tt.wantAccepted) {
				t.Errorf("accepted names %+v, want %+v", got.Status.AcceptedNames, tt.wantAccepted)
			}
			est := apiextensions.GetCondition(got, apiextensionsv1.Established)
			if tt.wantReason == "NoConflicts" {
				if est.Reason != "Installing" || len(established) != 1 {
					t.Errorf("Established = %+v, told establishing: %v", est, established)
				}
			} else if est.Reason != "NotAccepted" || len(established) != 0 {
				t.Errorf("Established = %+v, told establishing: %v", est, established)
			}
			// A second pass changes nothing.
			writes := fake.writes
			if err := n.sync(context.Background(), tt.crd.Name); err != nil || fake.writes != writes {
				t.Errorf("second sync wrote again (%v)", err)
			}
		})
	}
}

func TestEstablishingWaitsForAcceptedNames(t *testing.T) {
	c := crd("example.com", "widgets", "Widget", nil)
	fake := newFakeCRDs(c)
	var served []*apiextensionsv1.CustomResourceDefinition
	e := NewEstablishing(fake, fake.write, func(c *apiextensionsv1.CustomResourceDefinition) { served = append(served, c) }, slog.Default())
	if err := e.sync(context.Background(), c.Name); err != nil || fake.writes != 0 {
		t.Fatalf("established before the names were accepted (%v)", err)
	}
	apiextensions.SetCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue})
	if err := e.sync(context.Background(), c.Name); err != nil {
		t.Fatal(err)
	}
	got := apiextensions.GetCondition(fake.byName[c.Name], apiextensionsv1.Established)
	if got == nil || got.Status != apiextensionsv1.ConditionTrue || got.Reason != "InitialNamesAccepted" || got.Message != "the initial names have been accepted" {
		t.Errorf("Established = %+v", got)
	}
	if len(served) != 1 {
		t.Errorf("the handlers were not told to serve before the condition was written")
	}
}

func TestNonStructuralCondition(t *testing.T) {
	c := crd("example.com", "widgets", "Widget", nil)
	c.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Schema: &apiextensionsv1.CustomResourceValidation{
		OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {}}},
	}}}
	cond := nonStructuralCondition(c)
	want := "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"
	if cond == nil || cond.Reason != "Violations" || cond.Message != want {
		t.Fatalf("condition %+v, want message %q", cond, want)
	}
	c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object"}
	if cond := nonStructuralCondition(c); cond != nil {
		t.Errorf("a structural schema got %+v", cond)
	}
}
