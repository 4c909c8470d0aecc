package schema

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pathStack is the path to the value being walked, as a stack of steps
// that the walk pushes and pops. It is only rendered (as a field.Path or a
// string) when something is reported, so walking a well-formed object
// costs no allocation beyond the stack itself.
type pathStack struct {
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

func newPathStack() *pathStack {
	return &pathStack{steps: make([]pathStep, 0, 16)}
}

func (p *pathStack) pushField(name string) {
	p.steps = append(p.steps, pathStep{kind: fieldStep, name: name})
}

func (p *pathStack) pushKey(name string) {
	p.steps = append(p.steps, pathStep{kind: keyStep, name: name})
}

func (p *pathStack) pushIndex(i int) {
	p.steps = append(p.steps, pathStep{kind: indexStep, index: i})
}

func (p *pathStack) pop() {
	p.steps = p.steps[:len(p.steps)-1]
}

// fieldPath renders the current path below root.
func (p *pathStack) fieldPath(root *field.Path) *field.Path {
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

// dotted renders the current path the way unknown fields are reported:
// spec.items[0].name (map keys are written like fields).
func (p *pathStack) dotted() string {
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
