package openapi

import (
	"reflect"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// model is what a request or response body holds: a Go type of the scheme,
// whose definitions are built by reflection, or a kind without Go type
// that brings its own definitions (a custom resource and its list). The
// zero model is no body, or a plain string in a response.
type model struct {
	goType reflect.Type
	custom *customModel
}

// customModel is a definition that is not built from a Go type.
type customModel struct {
	name   string
	v2, v3 *spec.Schema
	// deps are the Go types the definitions refer to: they join the
	// document with it.
	deps []reflect.Type
}

func goModel(t reflect.Type) model { return model{goType: t} }

func (m model) isZero() bool { return m.goType == nil && m.custom == nil }

// name is the name of the model's definition.
func (m model) name() string {
	if m.custom != nil {
		return m.custom.name
	}
	return definitionName(m.goType)
}

// ref is a schema referring to the model's definition, or a string schema
// for the zero model.
func (m model) ref(d dialect) *spec.Schema {
	if m.isZero() {
		return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}}
	}
	return &spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(d.refPrefix() + m.name())}}
}

// documentModels collects the models the operations of a document refer
// to: the Go types whose definitions (and their dependencies) the document
// needs, and the custom definitions it carries as they are.
type documentModels struct {
	goTypes []reflect.Type
	custom  map[string]*customModel
}

func (dm *documentModels) add(m model) {
	switch {
	case m.custom != nil:
		if dm.custom == nil {
			dm.custom = map[string]*customModel{}
		}
		if _, ok := dm.custom[m.custom.name]; !ok {
			dm.custom[m.custom.name] = m.custom
			dm.goTypes = append(dm.goTypes, m.custom.deps...)
		}
	case m.goType != nil:
		dm.goTypes = append(dm.goTypes, m.goType)
	}
}

func (dm *documentModels) addOperation(o *operation) {
	dm.add(o.body)
	for _, r := range o.responses {
		dm.add(r.body)
	}
}
