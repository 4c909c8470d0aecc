package schema

import (
	"testing"
)

func TestResolveFieldPath(t *testing.T) {
	s := structuralFromYAML(t, `
		type: object
		properties:
		  a: {type: object, properties: {b: {type: string}, "x.y": {type: string}}}
		  m: {type: object, additionalProperties: {type: object, properties: {c: {type: string}}}}
		  free: {type: object, additionalProperties: true}
		  l: {type: array, items: {type: string}}
		`)
	tests := []struct {
		path       string
		noArrays   bool
		want       string
		wantSchema string
		wantErr    string
	}{
		{path: "", want: "<nil>", wantSchema: "object"},
		{path: ".a.b", want: "a.b", wantSchema: "string"},
		{path: ".a['b']", want: "a.b", wantSchema: "string"},
		{path: "['a']['x.y']", want: "a.x.y", wantSchema: "string"},
		{path: ".m.k.c", want: "m[k].c", wantSchema: "string"},
		{path: ".m['k.z'].c", want: "m[k.z].c", wantSchema: "string"},
		{path: ".l", want: "l", wantSchema: "array"},
		{path: ".free.k", want: "free[k]"},
		{path: ".a['b']", noArrays: true, wantErr: "array notation is not allowed"},
		{path: ".a.x.y", wantErr: "does not refer to a valid field"},
		{path: ".l.x", wantErr: "does not refer to a valid field"},
		{path: ".free.k.x", wantErr: "does not refer to a valid field"},
		{path: ".l[0]", wantErr: "expected single quoted string but got 0"},
		{path: ".a.", wantErr: "unexpected end of JSON path"},
		{path: "['a'", wantErr: "unexpected end of JSON path"},
		{path: "['a']x", wantErr: "expected [ or . but got: x"},
		{path: "a", wantErr: "expected [ or . but got: a"},
		{path: `['a\q']`, wantErr: `invalid string literal: invalid escape char \q`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, gotSchema, err := ResolveFieldPath(tt.path, s, !tt.noArrays)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("got path %q, want %q", got.String(), tt.want)
			}
			gotType := ""
			if gotSchema != nil {
				gotType = gotSchema.Type
			}
			if gotType != tt.wantSchema {
				t.Errorf("got schema of type %q, want %q", gotType, tt.wantSchema)
			}
		})
	}
}
