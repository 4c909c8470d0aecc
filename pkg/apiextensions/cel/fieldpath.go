package cel

import (
	"errors"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidFieldPath checks that jsonPath, the fieldPath of a rule (or a
// selectable field, with allowArrayNotation false), names a field within
// schema: a sequence of .name and ['name'] accessors ('name' may use the
// escapes \a \b \f \n \r \t \v \' \\), each naming a property of an object
// or a key of a map. It returns the path as a field.Path (".spec['a.b']"
// is "spec.a.b" for properties, "spec[a.b]" for map keys) and the schema
// it leads to, which is nil for the values of additionalProperties: true.
func ValidFieldPath(jsonPath string, schema *apiextensionsv1.JSONSchemaProps, allowArrayNotation bool) (*field.Path, *apiextensionsv1.JSONSchemaProps, error) {
	var path *field.Path
	err := walkFieldPath(jsonPath, allowArrayNotation, func(name string) error {
		switch {
		case schema != nil && schema.Properties != nil:
			prop, ok := schema.Properties[name]
			if !ok {
				return errors.New("does not refer to a valid field")
			}
			path, schema = path.Child(name), &prop
		case schema != nil && schema.AdditionalProperties != nil:
			path, schema = path.Key(name), schema.AdditionalProperties.Schema
		default:
			return errors.New("does not refer to a valid field")
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return path, schema, nil
}

// validFieldPath is ValidFieldPath on a node.
func validFieldPath(jsonPath string, n *node) (*field.Path, error) {
	var path *field.Path
	err := walkFieldPath(jsonPath, true, func(name string) error {
		switch {
		case n != nil && n.properties != nil:
			prop, ok := n.properties[name]
			if !ok {
				return errors.New("does not refer to a valid field")
			}
			path, n = path.Child(name), prop
		case n != nil && n.hasAdditional:
			path, n = path.Key(name), n.additionalProperties
		default:
			return errors.New("does not refer to a valid field")
		}
		return nil
	})
	return path, err
}

// walkFieldPath parses jsonPath, calling step with the name of each
// accessor in turn. It stops at the first error, of parsing or of step.
func walkFieldPath(jsonPath string, allowArrayNotation bool, step func(name string) error) error {
	tokens := tokenizeFieldPath(jsonPath)
	for i := 0; i < len(tokens); i++ {
		next := func() (string, bool) {
			i++
			if i >= len(tokens) {
				return "", false
			}
			return tokens[i], true
		}
		switch tokens[i] {
		case "[":
			if !allowArrayNotation {
				return errors.New("array notation is not allowed")
			}
			tok, ok := next()
			if !ok {
				return errors.New("unexpected end of JSON path")
			}
			if len(tok) < 2 || tok[0] != '\'' || tok[len(tok)-1] != '\'' {
				return fmt.Errorf("expected single quoted string but got %s", tok)
			}
			name, err := unescapeSingleQuoted(tok[1 : len(tok)-1])
			if err != nil {
				return fmt.Errorf("invalid string literal: %w", err)
			}
			if err := step(name); err != nil {
				return err
			}
			tok, ok = next()
			if !ok {
				return errors.New("unexpected end of JSON path")
			}
			if tok != "]" {
				return fmt.Errorf("expected ] but got %s", tok)
			}
		case ".":
			tok, ok := next()
			if !ok {
				return errors.New("unexpected end of JSON path")
			}
			if err := step(tok); err != nil {
				return err
			}
		default:
			return fmt.Errorf("expected [ or . but got: %s", tokens[i])
		}
	}
	return nil
}

// tokenizeFieldPath splits a path into the delimiters '.', '[' and ']',
// single quoted strings (which may contain delimiters and \' escapes), and
// the names between delimiters.
func tokenizeFieldPath(s string) []string {
	var tokens []string
	for len(s) > 0 {
		end := 0
		switch {
		case s[0] == '\'':
			// up to the first quote not preceded by a backslash, or the end
			end = len(s)
			for i := 1; i < len(s); i++ {
				if s[i] == '\'' && s[i-1] != '\\' {
					end = i + 1
					break
				}
			}
		case strings.IndexByte(".[]", s[0]) >= 0:
			end = 1
		default:
			end = strings.IndexAny(s, ".[]")
			if end < 0 {
				end = len(s)
			}
		}
		tokens = append(tokens, s[:end])
		s = s[end:]
	}
	return tokens
}

func unescapeSingleQuoted(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\'':
			b.WriteByte('\'')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf("invalid escape char %s", s[i-1:i+1])
		}
	}
	return b.String(), nil
}
