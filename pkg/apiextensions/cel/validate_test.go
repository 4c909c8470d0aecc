package cel

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		obj, old string
		want     []string
		warnings []string
	}{{
		name: "passing rules report nothing",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.replicas <= self.maxReplicas"
properties:
  replicas: {type: integer}
  maxReplicas: {type: integer}
`),
		obj: `spec: {replicas: 1, maxReplicas: 3}`,
	}, {
		name: "a failing rule reports its message, or the rule",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.replicas <= self.maxReplicas"
  message: "  replicas must not exceed maxReplicas  "
- rule: "self.replicas < 2"
properties:
  replicas: {type: integer, x-kubernetes-validations: [{rule: "self % 2 == 0"}]}
  maxReplicas: {type: integer}
`),
		obj: `spec: {replicas: 5, maxReplicas: 3}`,
		want: []string{
			"spec: Invalid value: replicas must not exceed maxReplicas",
			"spec: Invalid value: failed rule: self.replicas < 2",
			"spec.replicas: Invalid value: 5: failed rule: self % 2 == 0",
		},
	}, {
		name: "messageExpression, and its fallbacks",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.replicas < 3"
  messageExpression: "'replicas of ' + self.name + ' must be below 3'"
- rule: "self.replicas < 3"
  message: static message
  messageExpression: "self.replicas / 0 > 1 ? 'a' : 'b'"
- rule: "self.replicas < 3"
  messageExpression: "'  '"
- rule: "self.replicas < 3"
  messageExpression: "'two\\nlines'"
properties:
  replicas: {type: integer}
  name: {type: string, maxLength: 63}
`),
		obj: `spec: {replicas: 5, name: web}`,
		want: []string{
			"spec: Invalid value: replicas of web must be below 3",
			"spec: Invalid value: static message",
			"spec: Invalid value: failed rule: self.replicas < 3",
			"spec: Invalid value: failed rule: self.replicas < 3",
		},
	}, {
		name: "reason and fieldPath",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.a > 0"
  reason: FieldValueForbidden
  fieldPath: ".a"
- rule: "self.a > 0"
  reason: FieldValueRequired
  fieldPath: ".labels['app.kubernetes.io/name']"
- rule: "self.a > 0"
  reason: FieldValueDuplicate
- rule: "self.a > 0"
  reason: FieldValueInvalid
  fieldPath: ".sub.b"
properties:
  a: {type: integer}
  labels: {type: object, additionalProperties: {type: string}}
  sub: {type: object, properties: {b: {type: string}}}
  name:
    type: string
    x-kubernetes-validations:
    - rule: "self != 'taken'"
      reason: FieldValueDuplicate
`),
		obj: `spec: {a: 0, name: taken}`,
		want: []string{
			"spec.a: Forbidden: failed rule: self.a > 0",
			"spec.labels[app.kubernetes.io/name]: Required value: failed rule: self.a > 0",
			"spec: Duplicate value",
			"spec.sub.b: Invalid value: failed rule: self.a > 0",
			`spec.name: Duplicate value: "taken"`,
		},
	}, {
		name: "evaluation errors",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.labels['missing'] == 'x'"
- rule: "self.a / 0 > 1"
- rule: "self.a + 9223372036854775807 > 0"
- rule: "self.optional > 0"
properties:
  a: {type: integer}
  optional: {type: integer}
  labels: {type: object, additionalProperties: {type: string}}
`),
		obj: `spec: {a: 1, labels: {}}`,
		want: []string{
			`spec: Invalid value: "object": no such key: missing evaluating rule: self.labels['missing'] == 'x'`,
			`spec: Invalid value: "object": division by zero evaluating rule: self.a / 0 > 1`,
			`spec: Invalid value: "object": integer overflow evaluating rule: self.a + 9223372036854775807 > 0`,
			`spec: Invalid value: "object": no such key: optional evaluating rule: self.optional > 0`,
		},
	}, {
		name: "transition rules are skipped on create",
		schema: specSchema(`type: object
properties:
  name:
    type: string
    x-kubernetes-validations:
    - rule: "self == oldSelf"
      message: name is immutable
`),
		obj: `spec: {name: a}`,
	}, {
		name: "immutability",
		schema: specSchema(`type: object
properties:
  name:
    type: string
    x-kubernetes-validations:
    - rule: "self == oldSelf"
      message: name is immutable
`),
		obj:  `spec: {name: b}`,
		old:  `spec: {name: a}`,
		want: []string{`spec.name: Invalid value: "b": name is immutable`},
	}, {
		name: "a field added by the update has no oldSelf",
		schema: specSchema(`type: object
properties:
  name:
    type: string
    x-kubernetes-validations:
    - rule: "self == oldSelf"
`),
		obj: `spec: {name: b}`,
		old: `spec: {}`,
	}, {
		name: "optionalOldSelf runs on create too",
		schema: specSchema(`type: object
properties:
  size:
    type: integer
    x-kubernetes-validations:
    - rule: "oldSelf.hasValue() ? self >= oldSelf.value() : self > 1"
      optionalOldSelf: true
      messageExpression: "oldSelf.hasValue() ? 'size may not shrink' : 'size must be above 1'"
`),
		obj:  `spec: {size: 1}`,
		want: []string{`spec.size: Invalid value: 1: size must be above 1`},
	}, {
		name: "optionalOldSelf on update",
		schema: specSchema(`type: object
properties:
  size:
    type: integer
    x-kubernetes-validations:
    - rule: "oldSelf.hasValue() ? self >= oldSelf.value() : self > 1"
      optionalOldSelf: true
      messageExpression: "oldSelf.hasValue() ? 'size may not shrink' : 'size must be above 1'"
`),
		obj:  `spec: {size: 2}`,
		old:  `spec: {size: 3}`,
		want: []string{`spec.size: Invalid value: 2: size may not shrink`},
	}, {
		name: "items of map lists correlate by key",
		schema: specSchema(`type: object
properties:
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [port, protocol]
    maxItems: 100
    items:
      type: object
      required: [port, protocol]
      properties:
        port: {type: integer}
        protocol: {type: string, maxLength: 3}
        name: {type: string, maxLength: 15}
      x-kubernetes-validations:
      - rule: "self.name == oldSelf.name"
        messageExpression: "'name of the ' + self.protocol + ' port changed from ' + oldSelf.name"
`),
		obj:  `spec: {ports: [{port: 80, protocol: TCP, name: http}, {port: 80, protocol: UDP, name: dns}, {port: 443, protocol: TCP, name: new}]}`,
		old:  `spec: {ports: [{port: 80, protocol: UDP, name: domain}, {port: 80, protocol: TCP, name: http}]}`,
		want: []string{"spec.ports[1]: Invalid value: name of the UDP port changed from domain"},
	}, {
		name: "set and map lists compare regardless of order; atomic lists do not",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.set == oldSelf.set"
  message: set changed
- rule: "self.map == oldSelf.map"
  message: map changed
- rule: "self.atomic == oldSelf.atomic"
  message: atomic changed
- rule: "self.set + ['c'] == ['c', 'b', 'a']"
  message: set union
properties:
  set: {type: array, x-kubernetes-list-type: set, items: {type: string}}
  atomic: {type: array, items: {type: string}}
  map:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    items: {type: object, required: [name], properties: {name: {type: string}, v: {type: integer}}}
`),
		obj:  `spec: {set: [a, b], atomic: [a, b], map: [{name: a, v: 1}, {name: b, v: 2}]}`,
		old:  `spec: {set: [b, a], atomic: [b, a], map: [{name: b, v: 2}, {name: a, v: 1}]}`,
		want: []string{"spec: Invalid value: atomic changed"},
	}, {
		name: "int-or-string",
		schema: specSchema(`type: object
properties:
  port:
    x-kubernetes-int-or-string: true
    x-kubernetes-validations:
    - rule: "type(self) == int ? self < 65536 : self.matches('^[a-z]+$')"
    - rule: "self > 0"
`),
		obj: `spec: {port: HTTP}`,
		want: []string{
			`spec.port: Invalid value: "HTTP": failed rule: type(self) == int ? self < 65536 : self.matches('^[a-z]+$')`,
			`spec.port: Invalid value: "": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 0`,
		},
	}, {
		name: "escaped property names",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.max__dash__surge < 10"
- rule: "self.a__dot__b < 10"
- rule: "self.__namespace__ < 10 && self.namespace < 10"
- rule: "!has(self.in__underscores__out)"
properties:
  max-surge: {type: integer}
  a.b: {type: integer}
  namespace: {type: integer}
  in__out: {type: integer}
`),
		obj: `spec: {max-surge: 10, a.b: 1, namespace: 10, in__out: 1}`,
		want: []string{
			"spec: Invalid value: failed rule: self.max__dash__surge < 10",
			"spec: Invalid value: failed rule: self.__namespace__ < 10 && self.namespace < 10",
			"spec: Invalid value: failed rule: !has(self.in__underscores__out)",
		},
	}, {
		name: "formats are durations, timestamps and bytes",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.timeout < duration('1m')"
- rule: "self.notAfter > timestamp('2024-01-01T00:00:00Z')"
- rule: "self.day.getDayOfWeek() == 1"
- rule: "self.data == b'hello'"
properties:
  timeout: {type: string, format: duration}
  notAfter: {type: string, format: date-time}
  day: {type: string, format: date}
  data: {type: string, format: byte}
`),
		obj: `spec: {timeout: 2m, notAfter: "2023-06-01T12:00:00Z", day: "2024-01-01", data: aGVsbG8=}`,
		want: []string{
			"spec: Invalid value: failed rule: self.timeout < duration('1m')",
			"spec: Invalid value: failed rule: self.notAfter > timestamp('2024-01-01T00:00:00Z')",
		},
	}, {
		name: "resource roots expose apiVersion, kind, metadata.name and metadata.generateName",
		schema: `type: object
x-kubernetes-validations:
- rule: "self.metadata.name.startsWith('web-') && self.kind == 'Widget'"
  message: bad name
properties:
  spec:
    type: object
    properties:
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
        x-kubernetes-validations:
        - rule: "self.apiVersion == 'v1' && self.kind == 'Pod'"
          message: template must be a Pod
`,
		obj: `{apiVersion: example.com/v1, kind: Widget, metadata: {name: db-1}, spec: {template: {apiVersion: apps/v1, kind: Deployment, metadata: {}}}}`,
		want: []string{
			"<nil>: Invalid value: bad name",
			"spec.template: Invalid value: template must be a Pod",
		},
	}, {
		name: "ratcheting: failures on unchanged values are warnings",
		schema: specSchema(`type: object
properties:
  replicas:
    type: integer
    x-kubernetes-validations:
    - rule: "self < 3"
  name:
    type: string
    x-kubernetes-validations:
    - rule: "self.size() < 5"
`),
		obj:      `spec: {replicas: 7, name: toolong}`,
		old:      `spec: {replicas: 7, name: toolon}`,
		want:     []string{`spec.name: Invalid value: "toolong": failed rule: self.size() < 5`},
		warnings: []string{`spec.replicas: Invalid value: 7: failed rule: self < 3`},
	}, {
		name: "the kubernetes libraries",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "self.image.find('[0-9]+$') == '42'"
- rule: "self.image.findAll('[a-z]+') == ['registry', 'app']"
- rule: "self.nums.isSorted() && self.nums.sum() == 6 && self.nums.min() == 1 && self.nums.max() == 3"
- rule: "self.nums.indexOf(2) == 1 && self.nums.lastIndexOf(9) == -1"
- rule: "url(self.endpoint).getHostname() == 'example.com' && url(self.endpoint).getQuery()['q'] == ['1']"
- rule: "quantity(self.memory).isGreaterThan(quantity('1Gi')) && quantity(self.memory).asInteger() == 2147483648"
- rule: "cidr('10.0.0.0/8').containsIP(self.ip) && ip(self.ip).family() == 4 && !ip(self.ip).isLoopback()"
- rule: "!format.dns1123Label().validate(self.name).hasValue()"
- rule: "format.dns1123Label().validate('Bad_Name').value()[0].startsWith('a lowercase RFC 1123 label')"
- rule: "semver(self.version).isGreaterThan(semver('1.2.0')) && semver('v1.2', true).minor() == 2"
- rule: "self.nums.exists_one(n, n == 2) && sets.contains(self.nums, [1, 3])"
properties:
  image: {type: string, maxLength: 256}
  nums: {type: array, maxItems: 10, items: {type: integer}}
  endpoint: {type: string, maxLength: 256}
  memory: {type: string, maxLength: 16}
  ip: {type: string, maxLength: 45}
  name: {type: string, maxLength: 63}
  version: {type: string, maxLength: 32}
`),
		obj: `spec: {image: registry/app:42, nums: [1, 2, 3], endpoint: "https://example.com/x?q=1", memory: 2Gi, ip: 10.1.2.3, name: web, version: 1.10.0}`,
	}, {
		name: "library errors at run time",
		schema: specSchema(`type: object
x-kubernetes-validations:
- rule: "quantity(self.s).isInteger()"
- rule: "semver(self.s).major() > 0"
- rule: "self.s.find(self.s) == ''"
- rule: "self.empty.min() == 0"
properties:
  s: {type: string, maxLength: 10}
  empty: {type: array, maxItems: 10, items: {type: integer}}
`),
		obj: `spec: {s: "(", empty: []}`,
		want: []string{
			`spec: Invalid value: "object": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: quantity(self.s).isInteger()`,
			`spec: Invalid value: "object": No Major.Minor.Patch elements found evaluating rule: semver(self.s).major() > 0`,
			"spec: Invalid value: \"object\": Illegal regex: error parsing regexp: missing closing ): `(` evaluating rule: self.s.find(self.s) == ''",
			`spec: Invalid value: "object": min called on empty list evaluating rule: self.empty.min() == 0`,
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := mustSchema(t, tt.schema)
			v, errs := Compile(schema, schemaPath)
			if len(errs) > 0 {
				t.Fatalf("schema does not compile: %v", errs)
			}
			// The validator of a served CRD must behave the same.
			for name, v := range map[string]*Validator{"Compile": v, "NewValidator": NewValidator(schema)} {
				got, warnings, _ := validate(t, v, mustObject(t, tt.obj), mustObject(t, tt.old), RuntimeCELCostBudget)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: errors (-want +got):\n%s", name, diff)
				}
				if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
					t.Errorf("%s: warnings (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

func TestValidateCost(t *testing.T) {
	t.Run("runtime cost is charged to the budget", func(t *testing.T) {
		v := NewValidator(mustSchema(t, specSchema(`type: object
x-kubernetes-validations:
- rule: "self.a > 0"
properties:
  a: {type: integer}
`)))
		_, _, remaining := validate(t, v, mustObject(t, `spec: {a: 1}`), nil, 100)
		if remaining != 97 {
			t.Errorf("remaining budget %d, want 97", remaining)
		}
	})

	t.Run("an exhausted budget stops validation", func(t *testing.T) {
		v := NewValidator(mustSchema(t, specSchema(`type: object
properties:
  items:
    type: array
    items:
      type: array
      maxItems: 100
      items: {type: integer}
      x-kubernetes-validations:
      - rule: "self.sum() >= 0"
`)))
		got, _, remaining := validate(t, v, mustObject(t, "spec: {items: ["+repeat("["+numbers(100)+"]", 300)+"]}"), nil, 20000)
		want := []string{`spec.items[196]: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run`}
		if diff := cmp.Diff(want, got); diff != "" || remaining != -1 {
			t.Errorf("remaining %d, errors (-want +got):\n%s", remaining, diff)
		}
	})

	t.Run("one evaluation may not exceed the per-call limit", func(t *testing.T) {
		v := NewValidator(mustSchema(t, specSchema(`type: object
properties:
  ints:
    type: array
    items: {type: integer}
    x-kubernetes-validations:
    - rule: "self.all(x, self.sum() > x)"
    - rule: "self.size() > 0"
`)))
		got, _, remaining := validate(t, v, mustObject(t, "spec: {ints: ["+numbers(2000)+"]}"), nil, RuntimeCELCostBudget)
		want := []string{`spec.ints: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.sum() > x)`}
		if diff := cmp.Diff(want, got); diff != "" || remaining != -1 {
			t.Errorf("remaining %d, errors (-want +got):\n%s", remaining, diff)
		}
	})

	t.Run("no budget, no validation", func(t *testing.T) {
		v := NewValidator(mustSchema(t, specSchema("type: object\nx-kubernetes-validations: [{rule: \"true\"}]\n")))
		got, _, remaining := validate(t, v, mustObject(t, "spec: {}"), nil, 0)
		want := []string{`spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run`}
		if diff := cmp.Diff(want, got); diff != "" || remaining != -1 {
			t.Errorf("remaining %d, errors (-want +got):\n%s", remaining, diff)
		}
	})
}

func TestNewValidatorReportsRulesThatDoNotCompile(t *testing.T) {
	v := NewValidator(mustSchema(t, specSchema("type: object\nx-kubernetes-validations: [{rule: \"self.nope\"}]\n")))
	got, _, _ := validate(t, v, mustObject(t, "spec: {}"), nil, RuntimeCELCostBudget)
	want := []string{"spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func numbers(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprint(i)
	}
	return strings.Join(s, ",")
}

func repeat(s string, n int) string {
	r := make([]string, n)
	for i := range r {
		r[i] = s
	}
	return strings.Join(r, ",")
}

func TestValidatorIsSafeForConcurrentUse(t *testing.T) {
	v := NewValidator(mustSchema(t, benchSchema))
	obj, old := mustObject(t, benchObject), mustObject(t, benchObject)
	done := make(chan field.ErrorList)
	for i := 0; i < 4; i++ {
		go func() {
			var errs field.ErrorList
			for j := 0; j < 20; j++ {
				e, _ := v.Validate(context.Background(), nil, obj, old, RuntimeCELCostBudget)
				errs = append(errs, e...)
			}
			done <- errs
		}()
	}
	for i := 0; i < 4; i++ {
		if errs := <-done; len(errs) > 0 {
			t.Error(errs)
		}
	}
}
