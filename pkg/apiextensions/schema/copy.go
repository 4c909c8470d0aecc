package schema

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopy returns a copy of s that shares nothing with it.
func (s *Structural) DeepCopy() *Structural {
	if s == nil {
		return nil
	}
	out := *s
	out.Default = runtime.DeepCopyJSONValue(s.Default)
	out.Example = runtime.DeepCopyJSONValue(s.Example)
	if s.ExternalDocs != nil {
		docs := *s.ExternalDocs
		out.ExternalDocs = &docs
	}
	if s.Properties != nil {
		out.Properties = make(map[string]*Structural, len(s.Properties))
		for name, prop := range s.Properties {
			out.Properties[name] = prop.DeepCopy()
		}
	}
	out.Items = s.Items.DeepCopy()
	if s.AdditionalProperties != nil {
		out.AdditionalProperties = &AdditionalProperties{
			Allows: s.AdditionalProperties.Allows,
			Schema: s.AdditionalProperties.Schema.DeepCopy(),
		}
	}
	out.XListType = copyPtr(s.XListType)
	out.XMapType = copyPtr(s.XMapType)
	if s.XListMapKeys != nil {
		out.XListMapKeys = append([]string{}, s.XListMapKeys...)
	}
	if s.XValidations != nil {
		out.XValidations = make([]apiextensionsv1.ValidationRule, len(s.XValidations))
		for i := range s.XValidations {
			s.XValidations[i].DeepCopyInto(&out.XValidations[i])
		}
	}
	out.ValueValidation = *s.ValueValidation.deepCopy()
	return &out
}

func (v *ValueValidation) deepCopy() *ValueValidation {
	out := *v
	out.Maximum = copyPtr(v.Maximum)
	out.Minimum = copyPtr(v.Minimum)
	out.MaxLength = copyPtr(v.MaxLength)
	out.MinLength = copyPtr(v.MinLength)
	out.MaxItems = copyPtr(v.MaxItems)
	out.MinItems = copyPtr(v.MinItems)
	out.MultipleOf = copyPtr(v.MultipleOf)
	out.MaxProperties = copyPtr(v.MaxProperties)
	out.MinProperties = copyPtr(v.MinProperties)
	if v.Enum != nil {
		out.Enum = make([]interface{}, len(v.Enum))
		for i := range v.Enum {
			out.Enum[i] = runtime.DeepCopyJSONValue(v.Enum[i])
		}
	}
	if v.Required != nil {
		out.Required = append([]string{}, v.Required...)
	}
	out.AllOf = copyList(v.AllOf)
	out.AnyOf = copyList(v.AnyOf)
	out.OneOf = copyList(v.OneOf)
	out.Not = v.Not.DeepCopy()
	return &out
}

func copyList(in []*Structural) []*Structural {
	if in == nil {
		return nil
	}
	out := make([]*Structural, len(in))
	for i := range in {
		out[i] = in[i].DeepCopy()
	}
	return out
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
