package schema

import (
	"encoding/json"
	"testing"
)

func openAPIJSON(t *testing.T, s *Structural) string {
	t.Helper()
	b, err := json.Marshal(s.ToKubeOpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestViews(t *testing.T) {
	s := structuralFromYAML(t, `
		type: object
		properties:
		  port: {x-kubernetes-int-or-string: true}
		  spelled: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
		  restricted: {x-kubernetes-int-or-string: true, anyOf: [{maxLength: 3}]}
		  a: {type: string, nullable: true, maxLength: 3, format: date}
		`)
	tests := []struct {
		name string
		view *Structural
		want string
	}{
		{
			name: "ToKubeOpenAPI",
			view: s,
			want: `{"type":"object","properties":{"a":{"type":"string","nullable":true,"format":"date","maxLength":3},"port":{"x-kubernetes-int-or-string":true},"restricted":{"anyOf":[{"maxLength":3}],"x-kubernetes-int-or-string":true},"spelled":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}}}`,
		},
		{
			name: "Unfold",
			view: s.Unfold(),
			want: `{"type":"object","properties":{"a":{"type":"string","nullable":true,"format":"date","maxLength":3},"port":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true},"restricted":{"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]}],"anyOf":[{"maxLength":3}],"x-kubernetes-int-or-string":true},"spelled":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}}}`,
		},
		{
			name: "StripValueValidations and StripNullable",
			view: s.StripValueValidations().StripNullable(),
			want: `{"type":"object","properties":{"a":{"type":"string"},"port":{"x-kubernetes-int-or-string":true},"restricted":{"x-kubernetes-int-or-string":true},"spelled":{"x-kubernetes-int-or-string":true}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := openAPIJSON(t, tt.view); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	// the views leave the original alone
	if got := openAPIJSON(t, s); got != tests[0].want {
		t.Errorf("original changed: %s", got)
	}
}
