package schema

// Views of a structural schema for publishing it in OpenAPI documents.
// Each returns a modified copy and leaves s alone.

// Unfold spells out x-kubernetes-int-or-string as value validations, so
// that OpenAPI clients that ignore the extension still see the two types:
// an anyOf of integer and string is added (wrapped in allOf if anyOf is
// already used), unless one of those two spellings is already there.
func (s *Structural) Unfold() *Structural {
	out := s.DeepCopy()
	out.visit(func(n *Structural) {
		if !n.XIntOrString || IsIntOrStringAnyOf(n) || IsIntOrStringAllOf(n) {
			return
		}
		pair := []*Structural{{Type: "integer"}, {Type: "string"}}
		if n.AnyOf == nil {
			n.AnyOf = pair
			return
		}
		n.AllOf = append([]*Structural{{ValueValidation: ValueValidation{AnyOf: pair}}}, n.AllOf...)
	})
	return out
}

// StripValueValidations removes every value validation, keeping the
// structure.
func (s *Structural) StripValueValidations() *Structural {
	out := s.DeepCopy()
	out.visit(func(n *Structural) { n.ValueValidation = ValueValidation{} })
	return out
}

// StripNullable sets nullable to false everywhere in the structure.
func (s *Structural) StripNullable() *Structural {
	out := s.DeepCopy()
	out.visit(func(n *Structural) { n.Nullable = false })
	return out
}

// visit calls f on s and on every structural node below it (properties,
// items, additionalProperties), not on the schemas under junctors.
func (s *Structural) visit(f func(*Structural)) {
	if s == nil {
		return
	}
	f(s)
	s.Items.visit(f)
	for _, prop := range s.Properties {
		prop.visit(f)
	}
	if s.AdditionalProperties != nil {
		s.AdditionalProperties.Schema.visit(f)
	}
}
