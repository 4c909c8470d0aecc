package schemas

import "strings"

// reservedSymbols are CEL's reserved words. A property with one of these
// names is accessed as __name__ (e.g. self.__namespace__).
var reservedSymbols = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

// escapes maps the characters of property names that are not valid in a
// CEL identifier to their escape sequences.
var escapes = map[byte]string{
	'.': "__dot__",
	'-': "__dash__",
	'/': "__slash__",
}

// Escape returns the CEL identifier of a property name, or false if the
// property cannot be accessed from CEL. Only names of the form
// [a-zA-Z_.-/][a-zA-Z0-9_.-/]* are accessible: "__" escapes to
// "__underscores__", "." to "__dot__", "-" to "__dash__", "/" to
// "__slash__", and a reserved word w to "__w__".
func Escape(name string) (string, bool) {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return "", false
	}
	if reservedSymbols[name] {
		return "__" + name + "__", true
	}
	plain := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_':
			if i+1 < len(name) && name[i+1] == '_' {
				plain = false
			}
		case c == '.', c == '-', c == '/':
			plain = false
		default:
			return "", false
		}
	}
	if plain {
		return name, true
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if esc, ok := escapes[c]; ok {
			b.WriteString(esc)
			continue
		}
		if c == '_' && i+1 < len(name) && name[i+1] == '_' {
			b.WriteString("__underscores__")
			i++
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// Unescape reverses Escape: it returns the property name of a CEL
// identifier, or false if the identifier contains an unknown escape
// sequence.
func Unescape(ident string) (string, bool) {
	if !strings.Contains(ident, "__") {
		return ident, true
	}
	var b strings.Builder
	last := 0
	for i := 0; i+1 < len(ident); {
		// An escape sequence is "__", one or more characters other than
		// '_', and "__".
		if ident[i] != '_' || ident[i+1] != '_' {
			i++
			continue
		}
		end := i + 2
		for end < len(ident) && ident[end] != '_' {
			end++
		}
		if end == i+2 || !strings.HasPrefix(ident[end:], "__") {
			i++
			continue
		}
		word := ident[i+2 : end]
		var unescaped string
		switch word {
		case "underscores":
			unescaped = "__"
		case "dot":
			unescaped = "."
		case "dash":
			unescaped = "-"
		case "slash":
			unescaped = "/"
		default:
			// A reserved word is only escaped as a whole identifier.
			if !reservedSymbols[word] || i != 0 || end+2 != len(ident) {
				return "", false
			}
			unescaped = word
		}
		b.WriteString(ident[last:i])
		b.WriteString(unescaped)
		i = end + 2
		last = i
	}
	b.WriteString(ident[last:])
	return b.String(), true
}

// IsReserved says whether word is one of CEL's reserved words, which a
// property name escapes as __word__.
func IsReserved(word string) bool { return reservedSymbols[word] }
