// Package walk holds what the walks of a custom resource along its
// structural schema (pruning, coercion of metadata, list and embedded
// resource checks) share: the path they are at, and the order in which
// they visit an object's fields.
package walk

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Path is the path to the value being walked, as a stack of steps
// that the walk pushes and pops. It is only rendered (as a field.Path or a
// string) when something is reported, so walking a well-formed object
// costs no allocation beyond the stack itself.
type Path struct {
	steps []pathStep
}

type pathStep struct {
	kind  stepKind
	name  string
	index int
}

type stepKind uint8

const (
	// fieldStep is a property: .name
	fieldStep stepKind = iota
	// keyStep is a map key under additionalProperties: [name]
	keyStep
	// indexStep is a list item: [index]
	indexStep
)

// NewPath returns an empty path.
func NewPath() *Path {
	return &Path{steps: make([]pathStep, 0, 16)}
}

// PushField, PushKey and PushIndex descend into a property, a map key
// and a list item; Pop goes back up.
func (p *Path) PushField(name string) {
	p.steps = append(p.steps, pathStep{kind: fieldStep, name: name})
}

func (p *Path) PushKey(name string) {
	p.steps = append(p.steps, pathStep{kind: keyStep, name: name})
}

func (p *Path) PushIndex(i int) {
	p.steps = append(p.steps, pathStep{kind: indexStep, index: i})
}

func (p *Path) Pop() {
	p.steps = p.steps[:len(p.steps)-1]
}

// Len is the number of steps: 0 at the root.
func (p *Path) Len() int { return len(p.steps) }

// FieldPath renders the current path below root.
func (p *Path) FieldPath(root *field.Path) *field.Path {
	path := root
	for _, step := range p.steps {
		switch step.kind {
		case keyStep:
			path = path.Key(step.name)
		case indexStep:
			path = path.Index(step.index)
		default:
			path = path.Child(step.name)
		}
	}
	return path
}

// Dotted renders the current path the way unknown fields are reported:
// spec.items[0].name (map keys are written like fields).
func (p *Path) Dotted() string {
	var b strings.Builder
	for i, step := range p.steps {
		if step.kind == indexStep {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(step.index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(step.name)
	}
	return b.String()
}
