package cel

import (
	"testing"
)

func TestValidFieldPath(t *testing.T) {
	schema := mustSchema(t, `type: object
properties:
  spec:
    type: object
    properties:
      a.b: {type: string}
      list: {type: array, items: {type: string}}
      labels: {type: object, additionalProperties: {type: string}}
      any: {type: object, additionalProperties: true}
`)
	tests := []struct {
		path    string
		noArray bool
		want    string
		wantErr string
	}{
		{path: ".spec", want: "spec"},
		{path: ".spec['a.b']", want: "spec.a.b"},
		{path: ".spec.labels['app.kubernetes.io/name']", want: "spec.labels[app.kubernetes.io/name]"},
		{path: ".spec.labels.app", want: "spec.labels[app]"},
		{path: `.spec.labels['it\'s']`, want: "spec.labels[it's]"},
		{path: ".spec.list", want: "spec.list"},
		{path: ".spec.any.x", want: "spec.any[x]"},
		{path: "", want: "<nil>"},
		{path: "spec", wantErr: "expected [ or . but got: spec"},
		{path: ".spec.missing", wantErr: "does not refer to a valid field"},
		{path: ".spec.list[0]", wantErr: "expected single quoted string but got 0"},
		{path: ".spec.list.x", wantErr: "does not refer to a valid field"},
		{path: ".spec.", wantErr: "unexpected end of JSON path"},
		{path: ".spec['a.b'", wantErr: "unexpected end of JSON path"},
		{path: ".spec['a.b'.", wantErr: "expected ] but got ."},
		{path: `.spec['\x']`, wantErr: `invalid string literal: invalid escape char \x`},
		{path: ".spec['a.b']", noArray: true, wantErr: "array notation is not allowed"},
	}
	for _, tt := range tests {
		p, _, err := ValidFieldPath(tt.path, schema, !tt.noArray)
		switch {
		case tt.wantErr != "":
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ValidFieldPath(%q): error %v, want %q", tt.path, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("ValidFieldPath(%q): unexpected error %v", tt.path, err)
		case p.String() != tt.want:
			t.Errorf("ValidFieldPath(%q) = %q, want %q", tt.path, p.String(), tt.want)
		}
	}
}

func TestValidFieldPathReturnsTheSchema(t *testing.T) {
	schema := mustSchema(t, specSchema("type: object\nproperties:\n  size: {type: integer}\n"))
	_, found, err := ValidFieldPath(".spec.size", schema, false)
	if err != nil || found == nil || found.Type != "integer" {
		t.Fatalf("got %v, %v; want the integer schema", found, err)
	}
}
