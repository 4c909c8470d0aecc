// Package apidocs holds the facts about the built-in API types that live
// only in their Go comments, where reflection cannot see them. kube-apiserver's
// openapi-gen reads them from the same comments:
//
//   - the values of string types marked +enum, and the comments of those
//     constants;
//   - the markers of fields and types: +listType, +listMapKey, +mapType,
//     +structType, +union, +default, and +optional or +required where they
//     disagree with the json tag's omitempty;
//   - descriptions, where the type's SwaggerDoc method has none or differs
//     from what openapi-gen makes of the comment (SwaggerDoc stops at the
//     first "---" in a comment, even inside a line, and unescapes
//     backslashes).
//
// Everything else about a type (fields, json names, descriptions, patch
// strategies) is read by reflection at run time.
//
// The data is generated from the source of the k8s.io/api,
// k8s.io/apimachinery, k8s.io/apiextensions-apiserver and
// k8s.io/kube-aggregator (their API types, which have no SwaggerDoc
// methods) versions in go.mod; regenerate it after bumping them.
package apidocs

//go:generate go run ./gen -o zz_generated.apidocs.go

// EnumValue is one constant of an enum type.
type EnumValue struct {
	// Value is the string value of the constant.
	Value string
	// Name is the Go name of the constant, which its comment usually starts
	// with.
	Name string
	// Comment is the constant's doc comment, lines joined by a space.
	Comment string
}

// Type holds the comment facts of a struct type.
type Type struct {
	// Docs are descriptions to use instead of the type's SwaggerDoc, in the
	// same shape: "" is the type, other keys are json field names.
	Docs map[string]string
	// StructType is the x-kubernetes-map-type of the type (+structType).
	StructType string
	// Unions are the x-kubernetes-unions of the type.
	Unions []Union
	// Fields are the markers of fields, by json name.
	Fields map[string]Field
}

// Field holds the markers of a field.
type Field struct {
	// ListType is the x-kubernetes-list-type (+listType): atomic, set or
	// map.
	ListType string
	// ListMapKeys is the x-kubernetes-list-map-keys (+listMapKey).
	ListMapKeys []string
	// MapType is the x-kubernetes-map-type (+mapType or +structType).
	MapType string
	// Default is the JSON of the +default marker, "" for none.
	Default string
	// Required is set when +required or +optional decides whether the
	// field is required against its json tag: "required" for a field with
	// omitempty, "optional" for one without.
	Required string
	// Hidden is set for fields marked +k8s:openapi-gen=false.
	Hidden bool
	// OpenEnded is set for fields of an enum type whose comment ends with
	// a blank line before its markers. openapi-gen appends the enum's
	// values to the comment as a paragraph of its own, and that blank line
	// leaves three newlines before it instead of two.
	OpenEnded bool
}

// Union is one element of x-kubernetes-unions.
type Union struct {
	// Discriminator is the json name of the field that says which member
	// is set; "" for none.
	Discriminator string
	// Members maps the json name of each member to its Go name, the
	// discriminator's value for it.
	Members map[string]string
}
