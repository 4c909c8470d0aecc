package cel

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specSchema wraps the schema of spec in the schema of a resource.
func specSchema(spec string) string {
	lines := strings.Split(strings.TrimRight(spec, "\n"), "\n")
	for i, line := range lines {
		lines[i] = "    " + line
	}
	return "type: object\nproperties:\n  spec:\n" + strings.Join(lines, "\n") + "\n"
}

const rulePrefix = "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations"

const costHint = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"

func TestCompile(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		opts   []CompileOption
		want   []string
	}{{
		name: "valid rules compile",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.replicas <= self.maxReplicas"
  message: "replicas must not exceed maxReplicas"
- rule: "self.name.startsWith('web-')"
  messageExpression: "'name ' + self.name + ' must start with web-'"
  reason: FieldValueForbidden
  fieldPath: ".name"
properties:
  replicas: {type: integer}
  maxReplicas: {type: integer}
  name: {type: string, maxLength: 63}
`),
	}, {
		name:   "syntax error",
		schema: specSchema("type: object\nx-kubernetes-validations:\n- rule: \"self.replicas >\"\nproperties:\n  replicas: {type: integer}\n"),
		want: []string{rulePrefix + `[0].rule: Invalid value: {"Rule":"self.replicas \u003e","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | self.replicas >
 | ...............^`},
	}, {
		name:   "result must be a bool",
		schema: specSchema("type: object\nx-kubernetes-validations:\n- rule: \"self.replicas\"\nproperties:\n  replicas: {type: integer}\n"),
		want:   []string{rulePrefix + `[0].rule: Invalid value: {"Rule":"self.replicas","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`},
	}, {
		name:   "undefined field",
		schema: specSchema("type: object\nx-kubernetes-validations:\n- rule: \"self.nope == 1\"\nproperties:\n  replicas: {type: integer}\n"),
		want: []string{rulePrefix + `[0].rule: Invalid value: {"Rule":"self.nope == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'
 | self.nope == 1
 | ....^`},
	}, {
		name:   "type mismatch names the generated type",
		schema: specSchema("type: object\nx-kubernetes-validations:\n- rule: \"self == 1\"\nproperties:\n  replicas: {type: integer}\n"),
		want: []string{rulePrefix + `[0].rule: Invalid value: {"Rule":"self == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(selfTypeN, int)'
 | self == 1
 | .....^`},
	}, {
		name: "messageExpression must be a string",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.replicas > 0"
  messageExpression: "self.replicas"
- rule: "self.replicas > 0"
  messageExpression: "self.nope"
properties:
  replicas: {type: integer}
`),
		want: []string{
			rulePrefix + `[0].messageExpression: Invalid value: {"Rule":"self.replicas \u003e 0","Message":"","MessageExpression":"self.replicas","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`,
			rulePrefix + `[1].messageExpression: Invalid value: {"Rule":"self.replicas \u003e 0","Message":"","MessageExpression":"self.nope","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'nope'
 | self.nope
 | ....^`,
		},
	}, {
		name: "problems of the rules themselves, reported before any compilation",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: " "
- rule: "self.a > 0"
  message: " "
- rule: "self.a > 0"
  message: "two\nlines"
- rule: "self.a >\n 0"
- rule: "self.a > 0"
  messageExpression: " "
- rule: "self.a > 0"
  reason: FieldValueBogus
- rule: "self.a > 0"
  fieldPath: ".b"
- rule: "self.a > 0"
  fieldPath: "a"
- rule: "self.a >"
properties:
  a: {type: integer}
`),
		want: []string{
			rulePrefix + `[0].rule: Required value: rule is not specified`,
			rulePrefix + `[1].message: Invalid value: " ": must be non-empty if specified`,
			rulePrefix + `[2].message: Invalid value: "two\nlines": must not contain line breaks`,
			rulePrefix + `[3].message: Required value: message must be specified if rule contains line breaks`,
			rulePrefix + `[4].messageExpression: Required value: messageExpression must be non-empty if specified`,
			rulePrefix + `[5].reason: Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
			rulePrefix + `[6].fieldPath: Invalid value: ".b": must be a valid path`,
			rulePrefix + `[7].fieldPath: Invalid value: "a": must be a valid path`,
		},
	}, {
		name: "a problem below stops compilation above",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.a >"
properties:
  a:
    type: integer
    x-kubernetes-validations:
    - rule: "self > 0"
      reason: Bogus
`),
		want: []string{rulePrefix[:len(rulePrefix)-len(".x-kubernetes-validations")] + `.properties[a].x-kubernetes-validations[0].reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`},
	}, {
		name: "nested loop over an unbounded list exceeds the cost limits",
		schema: specSchema(`type: object
properties:
  hosts:
    type: array
    items: {type: string}
    x-kubernetes-validations:
    - rule: "self.all(x, self.exists_one(y, x == y))"
      message: hosts must be unique
`),
		want: []string{
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[hosts].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x " + costHint,
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[hosts].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x " + costHint,
		},
	}, {
		name: "maxItems and maxLength bring the same rule within budget",
		schema: specSchema(`type: object
properties:
  hosts:
    type: array
    maxItems: 100
    items: {type: string, maxLength: 253}
    x-kubernetes-validations:
    - rule: "self.all(x, self.exists_one(y, x == y))"
`),
	}, {
		name: "a rule just over the limit reports the factor",
		schema: specSchema(`type: object
properties:
  hosts:
    type: array
    maxItems: 1800
    items: {type: string, maxLength: 5}
    x-kubernetes-validations:
    - rule: "self.all(x, self.all(y, x == y || x.startsWith(y)))"
`),
		want: []string{
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[hosts].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 3.6x " + costHint,
		},
	}, {
		name: "the per-expression limit can be lifted for unchanged schemas, not the total",
		schema: specSchema(`type: object
properties:
  hosts:
    type: array
    items: {type: string}
    x-kubernetes-validations:
    - rule: "self.all(x, self.exists_one(y, x == y))"
`),
		opts: []CompileOption{WithoutPerExpressionCostLimit()},
		want: []string{
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[hosts].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x " + costHint,
		},
	}, {
		name: "oldSelf needs correlatable values: not the items of atomic or set lists",
		schema: specSchema(`type: object
properties:
  names:
    type: array
    maxItems: 10
    items:
      type: string
      maxLength: 10
      x-kubernetes-validations:
      - rule: "self == oldSelf"
`),
		want: []string{
			`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[names].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[names]`,
		},
	}, {
		name: "optionalOldSelf only with oldSelf",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.a > 0"
  optionalOldSelf: true
- rule: "!oldSelf.hasValue() || self.a >= oldSelf.value().a"
  optionalOldSelf: true
properties:
  a: {type: integer}
`),
		want: []string{rulePrefix + `[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`},
	}, {
		name: "escaped property names",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.max__dash__surge > 0 && self.a__dot__b > 0 && self.x__slash__y > 0"
- rule: "self.in__underscores__out > 0 && self.__namespace__ > 0 && self.namespace > 0"
properties:
  max-surge: {type: integer}
  a.b: {type: integer}
  x/y: {type: integer}
  in__out: {type: integer}
  namespace: {type: integer}
`),
	}, {
		name: "includes() is not yet available to new rules",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.names.includes('a')"
properties:
  names: {type: array, maxItems: 4, items: {type: string, maxLength: 4}}
`),
		want: []string{rulePrefix + `[0].rule: Invalid value: {"Rule":"self.names.includes('a')","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:20: undeclared reference to 'includes' (in container '')
 | self.names.includes('a')
 | ...................^`},
	}, {
		name: "includes() compiles when it was already stored",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.names.includes('a')"
properties:
  names: {type: array, maxItems: 4, items: {type: string, maxLength: 4}}
`),
		opts: []CompileOption{WithStoredExpressions(mustSchema(t, specSchema(`type: object
x-kubernetes-validations:
- rule: "self.names.includes('a')"
`)))},
	}, {
		name: "a rule CEL cannot type",
		schema: specSchema(`type: object
properties:
  anything:
    x-kubernetes-preserve-unknown-fields: true
    x-kubernetes-validations:
    - rule: "true"
`),
		want: []string{"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[anything].x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations"},
	}, {
		name: "libraries of 1.36 are available to new rules",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.s.find('[0-9]+') != '' && self.s.findAll('[a-z]').size() > 0"
- rule: "self.l.isSorted() && self.l.sum() < 10 && self.l.min() >= 0 && self.l.max() < 5 && self.l.indexOf(1) == 0 && self.l.lastIndexOf(1) >= 0"
- rule: "isURL(self.s) && url(self.s).getHost() != ''"
- rule: "quantity(self.s).isLessThan(quantity('1Gi')) && isQuantity(self.s)"
- rule: "isIP(self.s) && ip(self.s).family() == 4 && cidr('10.0.0.0/8').containsIP(self.s)"
- rule: "!format.dns1123Label().validate(self.s).hasValue()"
- rule: "semver(self.s, true).isGreaterThan(semver('1.0.0'))"
- rule: "sets.intersects(self.l, [1]) && self.l.all(i, v, i >= 0 && v >= 0) && self.l.distinct() == self.l"
- rule: "self.s.lowerAscii().split('.').size() > 0 && '%s'.format([self.s]) == self.s"
- rule: "self.?s.orValue('') != ''"
properties:
  s: {type: string, maxLength: 64}
  l: {type: array, maxItems: 10, items: {type: integer}}
`),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := Compile(mustSchema(t, tt.schema), schemaPath, tt.opts...)
			if diff := cmp.Diff(tt.want, errorStrings(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileReturnsNoValidatorWithoutRules(t *testing.T) {
	v, errs := Compile(mustSchema(t, specSchema("type: object\nproperties:\n  a: {type: integer}\n")), schemaPath)
	if v != nil || len(errs) != 0 {
		t.Fatalf("got %v, %v; want no validator and no errors", v, errs)
	}
	if NewValidator(mustSchema(t, specSchema("type: object\n"))) != nil {
		t.Fatal("NewValidator of a schema without rules is not nil")
	}
}
