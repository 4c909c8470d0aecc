package schema

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ResolveFieldPath follows a JSON path made of field accessors (`.foo`)
// and quoted map keys (`['foo.bar']`) through s, as used by the fieldPath of
// x-kubernetes-validations rules. It returns the path as a field.Path and
// the schema it leads to, or an error with kube-apiserver's wording if the
// path is malformed or names a field the schema does not specify.
//
// With allowArrayNotation false, the `[...]` form is rejected.
func ResolveFieldPath(jsonPath string, s *Structural, allowArrayNotation bool) (*field.Path, *Structural, error) {
	tokens := tokenizeFieldPath(jsonPath)
	var path *field.Path
	current := s

	// step descends into the field or map key name of the current schema.
	step := func(name string) error {
		if current == nil {
			return fmt.Errorf("does not refer to a valid field")
		}
		switch {
		case current.Properties != nil:
			prop, found := current.Properties[name]
			if !found {
				return fmt.Errorf("does not refer to a valid field")
			}
			path = path.Child(name)
			current = prop
		case current.AdditionalProperties != nil:
			path = path.Key(name)
			current = current.AdditionalProperties.Schema
		default:
			return fmt.Errorf("does not refer to a valid field")
		}
		return nil
	}

	for i := 0; i < len(tokens); i++ {
		switch tokens[i] {
		case "[":
			if !allowArrayNotation {
				return nil, nil, fmt.Errorf("array notation is not allowed")
			}
			i++
			if i >= len(tokens) {
				return nil, nil, fmt.Errorf("unexpected end of JSON path")
			}
			tok := tokens[i]
			if len(tok) < 2 || tok[0] != '\'' || tok[len(tok)-1] != '\'' {
				return nil, nil, fmt.Errorf("expected single quoted string but got %s", tok)
			}
			key, err := unescapeSingleQuoted(tok[1 : len(tok)-1])
			if err != nil {
				return nil, nil, fmt.Errorf("invalid string literal: %w", err)
			}
			if err := step(key); err != nil {
				return nil, nil, err
			}
			i++
			if i >= len(tokens) {
				return nil, nil, fmt.Errorf("unexpected end of JSON path")
			}
			if tokens[i] != "]" {
				return nil, nil, fmt.Errorf("expected ] but got %s", tokens[i])
			}
		case ".":
			i++
			if i >= len(tokens) {
				return nil, nil, fmt.Errorf("unexpected end of JSON path")
			}
			if err := step(tokens[i]); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("expected [ or . but got: %s", tokens[i])
		}
	}
	return path, current, nil
}

// tokenizeFieldPath splits a JSON path into the delimiters '.', '[' and ']'
// (one token each), single-quoted strings (quotes included, delimiters
// inside them ignored) and the names between delimiters.
func tokenizeFieldPath(s string) []string {
	var tokens []string
	for len(s) > 0 {
		if s[0] == '\'' {
			end := -1
			for i := 1; i < len(s); i++ {
				if s[i] == '\'' && s[i-1] != '\\' {
					end = i
					break
				}
			}
			if end < 0 {
				// an unterminated string runs to the end
				tokens = append(tokens, s)
				return tokens
			}
			tokens = append(tokens, s[:end+1])
			s = s[end+1:]
			continue
		}
		switch s[0] {
		case '.', '[', ']':
			tokens = append(tokens, s[:1])
			s = s[1:]
			continue
		}
		end := len(s)
		for i := 0; i < len(s); i++ {
			if s[i] == '.' || s[i] == '[' || s[i] == ']' {
				end = i
				break
			}
		}
		tokens = append(tokens, s[:end])
		s = s[end:]
	}
	return tokens
}

var escapeSequence = regexp.MustCompile(`\\.`)

// unescapeSingleQuoted resolves the backslash escapes of a single-quoted
// CEL-style string literal.
func unescapeSingleQuoted(s string) (string, error) {
	var err error
	out := escapeSequence.ReplaceAllStringFunc(s, func(seq string) string {
		switch seq[1] {
		case 'a':
			return "\a"
		case 'b':
			return "\b"
		case 'f':
			return "\f"
		case 'n':
			return "\n"
		case 'r':
			return "\r"
		case 't':
			return "\t"
		case 'v':
			return "\v"
		case '\'':
			return "'"
		case '\\':
			return "\\"
		default:
			err = fmt.Errorf("invalid escape char %s", seq)
			return ""
		}
	})
	return out, err
}
