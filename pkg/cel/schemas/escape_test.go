package schemas

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct {
		name    string
		escaped string
		ok      bool
	}{
		{name: "replicas", escaped: "replicas", ok: true},
		{name: "_private", escaped: "_private", ok: true},
		{name: "max-surge", escaped: "max__dash__surge", ok: true},
		{name: "app.kubernetes.io/name", escaped: "app__dot__kubernetes__dot__io__slash__name", ok: true},
		{name: "in__out", escaped: "in__underscores__out", ok: true},
		{name: "a___b", escaped: "a__underscores___b", ok: true},
		{name: "namespace", escaped: "__namespace__", ok: true},
		{name: "if", escaped: "__if__", ok: true},
		{name: "true", escaped: "__true__", ok: true},
		{name: "1st", ok: false},
		{name: "", ok: false},
		{name: "a b", ok: false},
		{name: "a:b", ok: false},
		{name: "ünïcode", ok: false},
	}
	for _, tt := range tests {
		escaped, ok := Escape(tt.name)
		if escaped != tt.escaped || ok != tt.ok {
			t.Errorf("Escape(%q) = %q, %v; want %q, %v", tt.name, escaped, ok, tt.escaped, tt.ok)
		}
		if !ok {
			continue
		}
		if name, ok := Unescape(escaped); name != tt.name || !ok {
			t.Errorf("Unescape(%q) = %q, %v; want %q, true", escaped, name, ok, tt.name)
		}
	}
}

func TestUnescapeRejectsUnknownEscapes(t *testing.T) {
	for _, ident := range []string{"a__bogus__b", "x__namespace__", "__namespace__x"} {
		if name, ok := Unescape(ident); ok {
			t.Errorf("Unescape(%q) = %q, true; want false", ident, name)
		}
	}
	for ident, want := range map[string]string{"a__b": "a__b", "___dot__": "_.", "__": "__", "a__dash": "a__dash"} {
		if name, ok := Unescape(ident); !ok || name != want {
			t.Errorf("Unescape(%q) = %q, %v; want %q, true", ident, name, ok, want)
		}
	}
}
