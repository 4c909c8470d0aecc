package pruning

import (
	"sort"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/walk"
	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/objectmeta"
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
func Prune(obj interface{}, s *schema.Structural, isResourceRoot bool) []string {
	if isResourceRoot {
		s = objectmeta.AsResourceRoot(s)
	}
	p := pruner{path: walk.NewPath()}
	p.prune(obj, s)
	sort.Strings(p.pruned)
	return p.pruned
}

type pruner struct {
	path   *walk.Path
	pruned []string
}

func (p *pruner) record(name string) {
	p.path.PushField(name)
	p.pruned = append(p.pruned, p.path.Dotted())
	p.path.Pop()
}

func (p *pruner) prune(x interface{}, s *schema.Structural) {
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
			if s.XEmbeddedResource && objectmeta.IsTypeOrObjectMetaField(name) {
				continue
			}
			if prop, found := s.Properties[name]; found {
				p.path.PushField(name)
				p.prune(v, prop)
				p.path.Pop()
			} else if s.AdditionalProperties != nil {
				p.path.PushField(name)
				p.prune(v, s.AdditionalProperties.Schema)
				p.path.Pop()
			} else {
				// apiVersion, kind and metadata at the root of a value
				// that is not a resource are dropped silently.
				if p.path.Len() > 0 || !objectmeta.IsTypeOrObjectMetaField(name) {
					p.record(name)
				}
				delete(x, name)
			}
		}
	case []interface{}:
		var items *schema.Structural
		if s != nil {
			items = s.Items
		}
		for i, v := range x {
			p.path.PushIndex(i)
			p.prune(v, items)
			p.path.Pop()
		}
	}
}

// pruneKnown walks a value under x-kubernetes-preserve-unknown-fields: it
// keeps unknown fields but prunes inside the ones the schema specifies.
func (p *pruner) pruneKnown(x interface{}, s *schema.Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]interface{}:
		for name, v := range x {
			if s.XEmbeddedResource && objectmeta.IsTypeOrObjectMetaField(name) {
				continue
			}
			if prop, found := s.Properties[name]; found {
				p.path.PushField(name)
				p.prune(v, prop)
				p.path.Pop()
			} else if s.AdditionalProperties != nil {
				p.path.PushField(name)
				p.prune(v, s.AdditionalProperties.Schema)
				p.path.Pop()
			}
		}
	case []interface{}:
		for i, v := range x {
			p.path.PushIndex(i)
			p.pruneKnown(v, s.Items)
			p.path.Pop()
		}
	}
}
