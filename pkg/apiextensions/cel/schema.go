package cel

import (
	"encoding/json"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/kapi-dev/kapi/pkg/cel/schemas"
)

// node is what CEL needs of one schema of a structural schema tree: the
// spine (type, properties, items, additionalProperties), the extensions
// that shape values, and the value validations that bound sizes. Nested
// value validations (allOf, anyOf...) play no part: a structural schema
// may not declare rules there.
type node struct {
	typ             string
	format          string
	nullable        bool
	intOrString     bool
	preserveUnknown bool
	embedded        bool
	// listType is x-kubernetes-list-type, "" when unset (atomic).
	listType    string
	listMapKeys []string
	// mapType is x-kubernetes-map-type, nil when unset.
	mapType *string

	maxLength, maxItems, maxProperties *int64
	// stringEnum holds the string values of enum, which bound lengths.
	stringEnum []string
	hasEnum    bool
	required   map[string]bool
	defaulted  bool

	properties map[string]*node
	// propertyNames lists properties in a stable order for walks whose
	// output is ordered (errors).
	propertyNames []string
	items         *node
	// additionalProperties is the schema of map values; hasAdditional is
	// set whenever additionalProperties is present, even as a bare true.
	additionalProperties *node
	hasAdditional        bool

	rules []apiextensionsv1.ValidationRule

	// withMeta is the node as seen from CEL when it is the root of a
	// resource: see resourceRoot.
	withMeta *node
}

// newNode converts a JSONSchemaProps tree. It expects a structural schema
// and ignores what a structural schema may not contain.
func newNode(s *apiextensionsv1.JSONSchemaProps) *node {
	if s == nil {
		return nil
	}
	n := &node{
		typ:             s.Type,
		format:          s.Format,
		nullable:        s.Nullable,
		intOrString:     s.XIntOrString,
		preserveUnknown: s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields,
		embedded:        s.XEmbeddedResource,
		listMapKeys:     s.XListMapKeys,
		mapType:         s.XMapType,
		maxLength:       s.MaxLength,
		maxItems:        s.MaxItems,
		maxProperties:   s.MaxProperties,
		defaulted:       s.Default != nil && len(s.Default.Raw) > 0 && string(s.Default.Raw) != "null",
		rules:           s.XValidations,
		hasEnum:         len(s.Enum) > 0,
	}
	if s.XListType != nil {
		n.listType = *s.XListType
	}
	for _, e := range s.Enum {
		var str string
		if json.Unmarshal(e.Raw, &str) == nil {
			n.stringEnum = append(n.stringEnum, str)
		}
	}
	if len(s.Required) > 0 {
		n.required = make(map[string]bool, len(s.Required))
		for _, r := range s.Required {
			n.required[r] = true
		}
	}
	if s.Properties != nil {
		n.properties = make(map[string]*node, len(s.Properties))
		for name := range s.Properties {
			prop := s.Properties[name]
			n.properties[name] = newNode(&prop)
			n.propertyNames = append(n.propertyNames, name)
		}
		sort.Strings(n.propertyNames)
	}
	if s.Items != nil {
		n.items = newNode(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		n.hasAdditional = true
		n.additionalProperties = newNode(s.AdditionalProperties.Schema)
	}
	if n.embedded {
		n.withMeta = withTypeAndObjectMeta(n)
	}
	return n
}

// resourceRoot returns how CEL sees n as the root of a resource (the root
// of the custom resource, or an embedded resource): apiVersion, kind and
// metadata are always there, and of metadata only name and generateName.
func (n *node) resourceRoot() *node {
	if n.withMeta != nil {
		return n.withMeta
	}
	return withTypeAndObjectMeta(n)
}

// newRootNode converts the schema of a custom resource.
func newRootNode(s *apiextensionsv1.JSONSchemaProps) *node {
	n := newNode(s)
	if n != nil && n.withMeta == nil {
		n.withMeta = withTypeAndObjectMeta(n)
	}
	return n
}

// withTypeAndObjectMeta returns n with apiVersion and kind declared as
// strings and metadata reduced to name and generateName, or n itself when
// it already declares exactly that much.
func withTypeAndObjectMeta(n *node) *node {
	meta := n.properties["metadata"]
	if n.properties != nil &&
		typeOf(n.properties["kind"]) == "string" &&
		typeOf(n.properties["apiVersion"]) == "string" &&
		typeOf(meta) == "object" && meta.properties != nil &&
		typeOf(meta.properties["name"]) == "string" &&
		typeOf(meta.properties["generateName"]) == "string" {
		return n
	}
	copied := *n
	copied.withMeta = nil
	copied.properties = make(map[string]*node, len(n.properties)+3)
	for name, prop := range n.properties {
		copied.properties[name] = prop
	}
	copied.properties["kind"] = &node{typ: "string"}
	copied.properties["apiVersion"] = &node{typ: "string"}
	var name, generateName *node
	if meta != nil {
		name, generateName = meta.properties["name"], meta.properties["generateName"]
	}
	copied.properties["metadata"] = &node{
		typ: "object",
		properties: map[string]*node{
			"name": cappedString(name, apimachineryvalidation.DNS1123SubdomainMaxLength),
			// a generated name has a suffix of at least one character
			"generateName": cappedString(generateName, apimachineryvalidation.DNS1123SubdomainMaxLength-1),
		},
		propertyNames: []string{"generateName", "name"},
	}
	copied.propertyNames = make([]string, 0, len(copied.properties))
	for name := range copied.properties {
		copied.propertyNames = append(copied.propertyNames, name)
	}
	sort.Strings(copied.propertyNames)
	return &copied
}

func typeOf(n *node) string {
	if n == nil {
		return ""
	}
	return n.typ
}

func cappedString(existing *node, limit int) *node {
	maxLength := int64(limit)
	if existing != nil && existing.maxLength != nil && *existing.maxLength < maxLength {
		maxLength = *existing.maxLength
	}
	return &node{typ: "string", maxLength: &maxLength}
}

// hasRules reports whether n or a schema below it declares
// x-kubernetes-validations.
func (n *node) hasRules() bool {
	if n == nil {
		return false
	}
	if len(n.rules) > 0 || n.items.hasRules() || n.additionalProperties.hasRules() {
		return true
	}
	for _, p := range n.properties {
		if p.hasRules() {
			return true
		}
	}
	return false
}

// declTypeOf is the CEL type of n's values (see schemas.SchemaDeclType),
// nil for no schema.
func declTypeOf(n *node, isResourceRoot bool) *schemas.DeclType {
	return schemas.SchemaDeclType(asSchema(n), isResourceRoot)
}

// celSchema is a node as the schemas.Schema CEL types values by.
type celSchema struct{ n *node }

var _ schemas.Schema = celSchema{}

// asSchema keeps a nil node a nil Schema.
func asSchema(n *node) schemas.Schema {
	if n == nil {
		return nil
	}
	return celSchema{n}
}

func (s celSchema) Type() string                 { return s.n.typ }
func (s celSchema) Format() string               { return s.n.format }
func (s celSchema) IntOrString() bool            { return s.n.intOrString }
func (s celSchema) Embedded() bool               { return s.n.embedded }
func (s celSchema) MaxLength() *int64            { return s.n.maxLength }
func (s celSchema) MaxItems() *int64             { return s.n.maxItems }
func (s celSchema) MaxProperties() *int64        { return s.n.maxProperties }
func (s celSchema) Enum() []string               { return s.n.stringEnum }
func (s celSchema) HasEnum() bool                { return s.n.hasEnum }
func (s celSchema) Required(name string) bool    { return s.n.required[name] }
func (s celSchema) Defaulted() bool              { return s.n.defaulted }
func (s celSchema) PropertyNames() []string      { return s.n.propertyNames }
func (s celSchema) ResourceRoot() schemas.Schema { return celSchema{s.n.resourceRoot()} }
func (s celSchema) Property(name string) schemas.Schema {
	return asSchema(s.n.properties[name])
}
func (s celSchema) Items() schemas.Schema { return asSchema(s.n.items) }
func (s celSchema) AdditionalProperties() schemas.Schema {
	return asSchema(s.n.additionalProperties)
}
