package schema

import (
	"sort"
)

// Prune removes from obj, in place, every object field the schema does not
// specify, the way kube-apiserver drops unknown fields of custom resources:
//
//   - below x-kubernetes-preserve-unknown-fields nothing is dropped, until
//     properties or additionalProperties apply again;
//   - embedded resources (and the root, if isResourceRoot) keep apiVersion,
//     kind and metadata, which are the server's to handle (see Coerce);
//   - fields covered by additionalProperties are kept, and pruned below
//     following its schema (everything below is dropped if it has none).
//
// It returns the paths of the dropped fields, sorted, in the form the
// handler reports them: `unknown field "spec.foo"` or
// `unknown field "spec.items[0].bar"`.
func Prune(obj interface{}, s *Structural, isResourceRoot bool) []string {
	if isResourceRoot {
		s = asResourceRoot(s)
	}
	p := pruner{path: newPathStack()}
	p.prune(obj, s)
	sort.Strings(p.pruned)
	return p.pruned
}

type pruner struct {
	path   *pathStack
	pruned []string
}

func (p *pruner) record(name string) {
	p.path.pushField(name)
	p.pruned = append(p.pruned, p.path.dotted())
	p.path.pop()
}

func (p *pruner) prune(x interface{}, s *Structural) {
	if s != nil && s.XPreserveUnknownFields {
		p.pruneKnown(x, s)
		return
	}

	switch x := x.(type) {
	case map[string]interface{}:
		if s == nil {
			for name := range x {
				p.record(name)
				delete(x, name)
			}
			return
		}
		for name, v := range x {
			if s.XEmbeddedResource && isTypeOrObjectMetaField(name) {
				continue
			}
			if prop, found := s.Properties[name]; found {
				p.path.pushField(name)
				p.prune(v, prop)
				p.path.pop()
			} else if s.AdditionalProperties != nil {
				p.path.pushField(name)
				p.prune(v, s.AdditionalProperties.Schema)
				p.path.pop()
			} else {
				// apiVersion, kind and metadata at the root of a value
				// that is not a resource are dropped silently.
				if len(p.path.steps) > 0 || !isTypeOrObjectMetaField(name) {
					p.record(name)
				}
				delete(x, name)
			}
		}
	case []interface{}:
		var items *Structural
		if s != nil {
			items = s.Items
		}
		for i, v := range x {
			p.path.pushIndex(i)
			p.prune(v, items)
			p.path.pop()
		}
	}
}

// pruneKnown walks a value under x-kubernetes-preserve-unknown-fields: it
// keeps unknown fields but prunes inside the ones the schema specifies.
func (p *pruner) pruneKnown(x interface{}, s *Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]interface{}:
		for name, v := range x {
			if s.XEmbeddedResource && isTypeOrObjectMetaField(name) {
				continue
			}
			if prop, found := s.Properties[name]; found {
				p.path.pushField(name)
				p.prune(v, prop)
				p.path.pop()
			} else if s.AdditionalProperties != nil {
				p.path.pushField(name)
				p.prune(v, s.AdditionalProperties.Schema)
				p.path.pop()
			}
		}
	case []interface{}:
		for i, v := range x {
			p.path.pushIndex(i)
			p.pruneKnown(v, s.Items)
			p.path.pop()
		}
	}
}
