package valuevalidation

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/pkg/apiextensions/schema/internal/schematest"
)

// The value validator reports errors in an order that follows map
// iteration, as kube-apiserver's does; the tests compare sorted lists.

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		object string
		want   []string
	}{
		{
			name: "types",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    properties:
			      replicas: {type: integer}
			      nn: {type: number}
			      b: {type: boolean}
			      s: {type: string}
			      l: {type: array, items: {type: string}}
			      o: {type: object}
			`,
			object: `{spec: {replicas: "3", nn: x, b: 1, s: 2, l: {}, o: []}}`,
			want: []string{
				"spec.b: Invalid value: \"integer\": spec.b in body must be of type boolean: \"integer\"",
				"spec.l: Invalid value: \"object\": spec.l in body must be of type array: \"object\"",
				"spec.nn: Invalid value: \"string\": spec.nn in body must be of type number: \"string\"",
				"spec.o: Invalid value: \"array\": spec.o in body must be of type object: \"array\"",
				"spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"",
				"spec.s: Invalid value: \"integer\": spec.s in body must be of type string: \"integer\"",
			},
		},
		{
			name:   "number accepts integers, integer rejects fractions",
			schema: `{type: object, properties: {nn: {type: number}, i: {type: integer}, j: {type: integer}}}`,
			object: `{nn: 3, i: 1.5, j: 2.0}`,
			want: []string{
				"<nil>: Invalid value: \"\": Checked value must be of type integer (default format) in i",
				"i: Invalid value: \"number\": i in body must be of type integer: \"number\"",
			},
		},
		{
			name:   "nulls",
			schema: `{type: object, properties: {a: {type: string}, b: {type: string, nullable: true}, c: {type: object}}}`,
			object: `{a: null, b: null, c: null}`,
			want: []string{
				"a: Invalid value: \"null\": a in body must be of type string: \"null\"",
				"c: Invalid value: \"null\": c in body must be of type object: \"null\"",
			},
		},
		{
			name: "int or string",
			schema: `
			type: object
			properties:
			  p: {x-kubernetes-int-or-string: true}
			  q: {x-kubernetes-int-or-string: true}
			  r: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
			`,
			object: `{p: 1.5, q: true, r: false}`,
			want: []string{
				"<nil>: Invalid value: \"\": \"r\" must validate at least one schema (anyOf)",
				"p: Invalid value: \"number\": p in body must be of type integer,string: \"number\"",
				"q: Invalid value: \"boolean\": q in body must be of type integer,string: \"boolean\"",
				"r: Invalid value: \"boolean\": r in body must be of type integer,string: \"boolean\"",
				"r: Invalid value: \"boolean\": r in body must be of type integer: \"boolean\"",
			},
		},
		{
			name: "required",
			schema: `
			type: object
			required: [spec]
			properties:
			  spec: {type: object, required: [a, b], properties: {a: {type: string}, b: {type: string}}}
			`,
			object: `{spec: {a: x}}`,
			want: []string{
				"spec.b: Required value",
			},
		},
		{
			name:   "required at root",
			schema: `{type: object, required: [spec], properties: {spec: {type: object}}}`,
			object: `{}`,
			want: []string{
				"spec: Required value",
			},
		},
		{
			name: "enum",
			schema: `
			type: object
			properties:
			  s: {type: string, enum: [a, b]}
			  i: {type: integer, enum: [1, 2]}
			  o: {type: object, enum: [{a: 1}]}
			`,
			object: `{s: x, i: 3, o: {a: 2}}`,
			want: []string{
				"i: Unsupported value: 3: supported values: \"1\", \"2\"",
				"o: Unsupported value: {\"a\":2}: supported values: \"{\\\"a\\\":1}\"",
				"s: Unsupported value: \"x\": supported values: \"a\", \"b\"",
			},
		},
		{
			name: "string bounds",
			schema: `
			type: object
			properties:
			  long: {type: string, maxLength: 5}
			  one: {type: string, maxLength: 1}
			  short: {type: string, minLength: 3}
			  p: {type: string, pattern: "^[a-z]+$"}
			`,
			object: `{long: abcdefgh, one: ab, short: a, p: A1}`,
			want: []string{
				"long: Too long: may not be more than 5 bytes",
				"one: Too long: may not be more than 1 byte",
				"p: Invalid value: \"A1\": p in body should match '^[a-z]+$'",
				"short: Invalid value: \"a\": short in body should be at least 3 chars long",
			},
		},
		{
			name: "number bounds",
			schema: `
			type: object
			properties:
			  a: {type: integer, maximum: 10}
			  b: {type: integer, maximum: 10, exclusiveMaximum: true}
			  c: {type: integer, minimum: 5}
			  d: {type: number, minimum: 5, exclusiveMinimum: true}
			  e: {type: integer, multipleOf: 3}
			  f: {type: number, multipleOf: 0.5}
			  g: {type: integer, format: int32}
			`,
			object: `{a: 11, b: 10, c: 4, d: 5, e: 4, f: 0.7, g: 3000000000}`,
			want: []string{
				"<nil>: Invalid value: \"\": Checked value must be of type integer with format int32 in g",
				"a: Invalid value: 11: a in body should be less than or equal to 10",
				"b: Invalid value: 10: b in body should be less than 10",
				"c: Invalid value: 4: c in body should be greater than or equal to 5",
				"d: Invalid value: 5: d in body should be greater than 5",
				"e: Invalid value: 4: e in body should be a multiple of 3",
				"f: Invalid value: 0.7: f in body should be a multiple of 0.5",
			},
		},
		{
			name: "array bounds",
			schema: `
			type: object
			properties:
			  many: {type: array, maxItems: 2, items: {type: integer}}
			  one: {type: array, maxItems: 1, items: {type: integer}}
			  few: {type: array, minItems: 2, items: {type: integer}}
			`,
			object: `{many: [1, 2, 3], one: [1, 2], few: [1]}`,
			want: []string{
				"few: Invalid value: 1: few in body should have at least 2 items",
				"many: Too many: 3: must have at most 2 items",
				"one: Too many: 2: must have at most 1 item",
			},
		},
		{
			name: "object bounds",
			schema: `
			type: object
			properties:
			  many: {type: object, maxProperties: 1, additionalProperties: {type: string}}
			  few: {type: object, minProperties: 2, additionalProperties: {type: string}}
			`,
			object: `{many: {a: x, b: yy}, few: {a: x}}`,
			want: []string{
				"few: Invalid value: 1: few in body should have at least 2 properties",
				"many: Too many: 2: must have at most 1 item",
			},
		},
		{
			name:   "additionalProperties false",
			schema: `{type: object, properties: {f: {type: object, additionalProperties: false}}}`,
			object: `{f: {a: 1}}`,
			want: []string{
				"f: Invalid value: \"a\": f.a in body is a forbidden property",
			},
		},
		{
			name: "formats",
			schema: `
			type: object
			properties:
			  ip: {type: string, format: ipv4}
			  ip6: {type: string, format: ipv6}
			  cidr: {type: string, format: cidr}
			  dt: {type: string, format: date-time}
			  date: {type: string, format: date}
			  uri: {type: string, format: uri}
			  email: {type: string, format: email}
			  uuid: {type: string, format: uuid}
			  byte: {type: string, format: byte}
			  dur: {type: string, format: duration}
			  host: {type: string, format: hostname}
			  short: {type: string, format: k8s-short-name}
			  long: {type: string, format: k8s-long-name}
			  ignored: {type: string, format: bogus}
			  int32str: {type: string, format: int32}
			  ios: {x-kubernetes-int-or-string: true, format: ipv4}
			`,
			object: `
			ip: "1.2.3"
			ip6: "1.2.3.4"
			cidr: "10.0.0.0"
			dt: yesterday
			date: "2020-13-01"
			uri: "not a uri"
			email: nope
			uuid: x
			byte: "!!"
			dur: forever
			host: "-a-"
			short: Ab
			long: a_b
			ignored: anything
			int32str: x
			ios: nope
			`,
			want: []string{
				"byte: Invalid value: \"!!\": byte in body must be of type byte: \"!!\"",
				"cidr: Invalid value: \"10.0.0.0\": cidr in body must be of type cidr: \"10.0.0.0\"",
				"date: Invalid value: \"2020-13-01\": date in body must be of type date: \"2020-13-01\"",
				"dt: Invalid value: \"yesterday\": dt in body must be of type date-time: \"yesterday\"",
				"dur: Invalid value: \"forever\": dur in body must be of type duration: \"forever\"",
				"email: Invalid value: \"nope\": email in body must be of type email: \"nope\"",
				"host: Invalid value: \"-a-\": host in body must be of type hostname: \"-a-\"",
				"ios: Invalid value: \"nope\": ios in body must be of type ipv4: \"nope\"",
				"ip6: Invalid value: \"1.2.3.4\": ip6 in body must be of type ipv6: \"1.2.3.4\"",
				"ip: Invalid value: \"1.2.3\": ip in body must be of type ipv4: \"1.2.3\"",
				"long: Invalid value: \"a_b\": long in body must be of type k8s-long-name: \"a_b\"",
				"short: Invalid value: \"Ab\": short in body must be of type k8s-short-name: \"Ab\"",
				"uri: Invalid value: \"not a uri\": uri in body must be of type uri: \"not a uri\"",
				"uuid: Invalid value: \"x\": uuid in body must be of type uuid: \"x\"",
			},
		},
		{
			name: "valid formats",
			schema: `
			type: object
			properties:
			  ip: {type: string, format: ipv4}
			  dt: {type: string, format: date-time}
			  short: {type: string, format: k8s-short-name}
			  ios: {x-kubernetes-int-or-string: true, format: ipv4}
			`,
			object: `{ip: "1.2.3.4", dt: "2020-01-02T03:04:05Z", short: a-b, ios: 3}`,
			want:   nil,
		},
		{
			name: "junctors",
			schema: `
			type: object
			properties:
			  any: {type: string, anyOf: [{maxLength: 1}, {pattern: "^a"}]}
			  one: {type: string, oneOf: [{maxLength: 3}, {pattern: "^a"}]}
			  none: {type: string, oneOf: [{maxLength: 1}, {pattern: "^a"}]}
			  all: {type: string, allOf: [{maxLength: 1}, {pattern: "^a"}]}
			  not: {type: string, not: {pattern: "^a"}}
			`,
			object: `{any: bb, one: ab, none: bb, all: bb, not: abc}`,
			want: []string{
				"<nil>: Invalid value: \"\": \"all\" must validate all the schemas (allOf). None validated",
				"<nil>: Invalid value: \"\": \"any\" must validate at least one schema (anyOf)",
				"<nil>: Invalid value: \"\": \"none\" must validate one and only one schema (oneOf). Found none valid",
				"<nil>: Invalid value: \"\": \"not\" must not validate the schema (not)",
				"<nil>: Invalid value: \"\": \"one\" must validate one and only one schema (oneOf). Found 2 valid alternatives",
				"all: Invalid value: \"bb\": all in body should match '^a'",
				"all: Too long: may not be more than 1 byte",
				"any: Too long: may not be more than 1 byte",
				"none: Too long: may not be more than 1 byte",
			},
		},
		{
			name: "list set duplicates",
			schema: `
			type: object
			properties:
			  s: {type: array, x-kubernetes-list-type: set, items: {type: string}}
			  nn: {type: array, x-kubernetes-list-type: set, items: {x-kubernetes-int-or-string: true}}
			  o:
			    type: array
			    x-kubernetes-list-type: set
			    items: {type: object, x-kubernetes-map-type: atomic, x-kubernetes-preserve-unknown-fields: true}
			`,
			object: `{s: [a, b, a, a, b, c], nn: [1, "1", 1], o: [{a: 1}, {a: 1}, {}]}`,
			want: []string{
				"nn[2]: Duplicate value: 1",
				"o[1]: Duplicate value: {\"a\":1}",
				"s[2]: Duplicate value: \"a\"",
				"s[4]: Duplicate value: \"b\"",
			},
		},
		{
			name: "list map duplicates",
			schema: `
			type: object
			properties:
			  one:
			    type: array
			    x-kubernetes-list-type: map
			    x-kubernetes-list-map-keys: [name]
			    items: {type: object, properties: {name: {type: string}, v: {type: integer}}}
			  two:
			    type: array
			    x-kubernetes-list-type: map
			    x-kubernetes-list-map-keys: [name, port]
			    items: {type: object, properties: {name: {type: string}, port: {type: integer}}}
			  bad:
			    type: array
			    x-kubernetes-list-type: map
			    x-kubernetes-list-map-keys: [name]
			    items: {type: object, properties: {name: {type: string}}}
			`,
			object: `
			one: [{name: a, v: 1}, {name: a, v: 2}, {v: 3}, {v: 4}]
			two: [{name: a, port: 1}, {name: a, port: 2}, {port: 1, name: a}]
			bad: [{name: a}, x]
			`,
			want: []string{
				"bad[1]: Invalid value: \"string\": bad[1] in body must be of type object: \"string\"",
				"bad[1]: Invalid value: \"x\": must be an object for an array of list-type map",
				"one[1]: Duplicate value: {\"name\":\"a\"}",
				"one[3]: Duplicate value: {}",
				"two[2]: Duplicate value: {\"name\":\"a\",\"port\":1}",
			},
		},
		{
			name: "nested list map duplicates",
			schema: `
			type: object
			properties:
			  m:
			    type: object
			    additionalProperties: {type: array, x-kubernetes-list-type: set, items: {type: string}}
			`,
			object: `{m: {k: [x, x]}}`,
			want: []string{
				"m[k][1]: Duplicate value: \"x\"",
			},
		},
		{
			name: "embedded resources",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			  l:
			    type: array
			    items:
			      type: object
			      x-kubernetes-embedded-resource: true
			      x-kubernetes-preserve-unknown-fields: true
			`,
			object: `
			e: {metadata: {name: a/b}}
			l: [{apiVersion: a/b/c, kind: "Foo Bar", metadata: {name: Foo, namespace: NS, labels: {"a b": c}}}, {apiVersion: "", kind: ""}, {apiVersion: v1, kind: Foo, metadata: {generateName: x/}}]
			`,
			want: []string{
				"e.apiVersion: Required value",
				"e.kind: Required value",
				"e.metadata.name: Invalid value: \"a/b\": may not contain '/'",
				"l[0].apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c",
				"l[0].kind: Invalid value: \"Foo Bar\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
				"l[0].metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
				"l[0].metadata.namespace: Invalid value: \"NS\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
				"l[1].apiVersion: Invalid value: \"\": must not be empty",
				"l[1].kind: Invalid value: \"\": must not be empty",
				"l[2].metadata.generateName: Invalid value: \"x/\": may not contain '/'",
			},
		},
		{
			name: "valid embedded resource",
			schema: `
			type: object
			properties:
			  e:
			    type: object
			    x-kubernetes-embedded-resource: true
			    x-kubernetes-preserve-unknown-fields: true
			`,
			object: `{e: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, labels: {app: web}}}}`,
			want:   nil,
		},
		{
			name:   "the root's metadata is not checked here",
			schema: `{type: object, properties: {spec: {type: object}}}`,
			object: `{apiVersion: a/b/c, kind: "", metadata: {name: "Bad Name"}}`,
			want:   nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewValidator(schematest.Schema(t, tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			got := v.Validate(nil, schematest.Object(t, tt.object))
			schematest.DiffStrings(t, tt.want, schematest.SortedErrorStrings(got))
		})
	}
}

func TestValidateUpdateRatchets(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		old    string
		object string
		want   []string
	}{
		{
			name: "unchanged invalid field is ratcheted",
			schema: `
			type: object
			properties:
			  spec:
			    type: object
			    properties: {a: {type: string, maxLength: 2}, b: {type: string, maxLength: 2}}
			`,
			old:    `{spec: {a: toolong, b: ok}}`,
			object: `{spec: {a: toolong, b: xx}}`,
			want:   nil,
		},
		{
			name:   "changed invalid field is reported",
			schema: `{type: object, properties: {spec: {type: object, properties: {a: {type: string, maxLength: 2}}}}}`,
			old:    `{spec: {a: toolong}}`,
			object: `{spec: {a: stilltoolong}}`,
			want: []string{
				"spec.a: Too long: may not be more than 2 bytes",
			},
		},
		{
			name: "map list items correlate by key",
			schema: `
			type: object
			properties:
			  l:
			    type: array
			    x-kubernetes-list-type: map
			    x-kubernetes-list-map-keys: [name]
			    items: {type: object, properties: {name: {type: string}, v: {type: string, maxLength: 1}}}
			`,
			old:    `{l: [{name: a, v: long}, {name: b, v: x}]}`,
			object: `{l: [{name: b, v: z}, {name: a, v: long}, {name: c, v: long}]}`,
			want: []string{
				"l[2].v: Too long: may not be more than 1 byte",
			},
		},
		{
			name: "atomic list items do not correlate",
			schema: `
			type: object
			properties: {l: {type: array, items: {type: object, properties: {v: {type: string, maxLength: 1}}}}}
			`,
			old:    `{l: [{v: long}]}`,
			object: `{l: [{v: long}, {v: x}]}`,
			want: []string{
				"l[0].v: Too long: may not be more than 1 byte",
			},
		},
		{
			name:   "unchanged atomic list is ratcheted as a whole",
			schema: `{type: object, properties: {l: {type: array, items: {type: string, maxLength: 1}}}}`,
			old:    `{l: [long]}`,
			object: `{l: [long]}`,
			want:   nil,
		},
		{
			name: "required is ratcheted when the object is unchanged",
			schema: `
			type: object
			properties:
			  spec: {type: object, required: [a], properties: {a: {type: string}, b: {type: string}}}
			  other: {type: string}
			`,
			old:    `{spec: {b: x}, other: a}`,
			object: `{spec: {b: x}, other: b}`,
			want:   nil,
		},
		{
			name:   "an unchanged object is ratcheted as a whole",
			schema: `{type: object, properties: {kind: {type: string, maxLength: 1}}}`,
			old:    `{kind: Foo}`,
			object: `{kind: Foo}`,
			want:   nil,
		},
		{
			name: "kind and apiVersion at the root are never ratcheted",
			schema: `
			type: object
			properties:
			  kind: {type: string, maxLength: 1}
			  apiVersion: {type: string, maxLength: 1}
			  spec: {type: string}
			`,
			old:    `{kind: Foo, apiVersion: v1, spec: a}`,
			object: `{kind: Foo, apiVersion: v1, spec: b}`,
			want: []string{
				"apiVersion: Too long: may not be more than 1 byte",
				"kind: Too long: may not be more than 1 byte",
			},
		},
		{
			name:   "fields under additionalProperties correlate by key",
			schema: `{type: object, properties: {m: {type: object, additionalProperties: {type: string, maxLength: 1}}}}`,
			old:    `{m: {a: long, b: long}}`,
			object: `{m: {a: long, b: longer}}`,
			want: []string{
				"m.b: Too long: may not be more than 1 byte",
			},
		},
		{
			name: "a changed value does not ratchet its own errors even if its fields are unchanged",
			schema: `
			type: object
			properties:
			  spec: {type: object, required: [a], properties: {a: {type: string}, b: {type: string}}}
			`,
			old:    `{spec: {b: x}}`,
			object: `{spec: {b: x, c: "y"}}`,
			want: []string{
				"spec.a: Required value",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := NewValidator(schematest.Schema(t, tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			got := v.ValidateUpdate(nil, schematest.Object(t, tt.object), schematest.Object(t, tt.old))
			schematest.DiffStrings(t, tt.want, schematest.SortedErrorStrings(got))
		})
	}
}

func TestValidateAtPath(t *testing.T) {
	// The status subresource validates status alone, against the status
	// schema, and reports errors below "status".
	v, err := NewValidator(schematest.Schema(t, `{type: object, required: [ready], properties: {ready: {type: boolean}, conditions: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [type], items: {type: object, required: [type], properties: {type: {type: string}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := v.Validate(field.NewPath("status"), schematest.Object(t, `{conditions: [{type: A}, {type: A}]}`))
	schematest.DiffStrings(t, []string{
		"status.conditions[1]: Duplicate value: {\"type\":\"A\"}",
		"status.ready: Required value",
	}, schematest.SortedErrorStrings(got))
}

func TestValidateUpdateSkipsListChecksIfOldBrokeThem(t *testing.T) {
	v, err := NewValidator(schematest.Schema(t, `{type: object, properties: {s: {type: array, x-kubernetes-list-type: set, items: {type: string}}, t: {type: string}}}`))
	if err != nil {
		t.Fatal(err)
	}
	old := schematest.Object(t, `{s: [a, a], t: x}`)
	schematest.DiffStrings(t, nil, schematest.ErrorStrings(v.ValidateUpdate(nil, schematest.Object(t, `{s: [b, b], t: z}`), old)))
	schematest.DiffStrings(t, []string{`s[1]: Duplicate value: "b"`}, schematest.ErrorStrings(v.ValidateUpdate(nil, schematest.Object(t, `{s: [b, b], t: z}`), schematest.Object(t, `{s: [a], t: x}`))))
}

func TestValidatorWithoutSchema(t *testing.T) {
	v, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	if errs := v.Validate(nil, schematest.Object(t, `{anything: [1, {x: y}]}`)); len(errs) != 0 {
		t.Errorf("got %v", errs)
	}
}

func TestValidatorForNonStructuralSchema(t *testing.T) {
	// Legacy schemas that are not structural still get their value
	// validations.
	v, err := NewValidator(schematest.Schema(t, `{properties: {a: {maxLength: 1}, b: {patternProperties: {"^x": {type: integer}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v.Structural() != nil {
		t.Errorf("expected no structural schema")
	}
	schematest.DiffStrings(t, []string{
		"a: Too long: may not be more than 1 byte",
		`b.xa: Invalid value: "string": b.xa in body must be of type integer: "string"`,
	}, schematest.SortedErrorStrings(v.Validate(nil, schematest.Object(t, `{a: long, b: {xa: s}}`))))
}

func TestNewValidatorRejectsRef(t *testing.T) {
	if _, err := NewValidator(schematest.Schema(t, `{type: object, properties: {a: {$ref: "#/x"}}}`)); err == nil {
		t.Error("expected an error")
	}
}

func TestValidatorIsSafeForConcurrentUse(t *testing.T) {
	v, err := NewValidator(schematest.Schema(t, `{type: object, properties: {s: {type: string, maxLength: 2, oneOf: [{pattern: "^a"}, {pattern: "^b"}]}, l: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	valid := schematest.Object(t, `{s: ab, l: [a, b]}`)
	invalid := schematest.Object(t, `{s: abc, l: [a, a]}`)
	done := make(chan struct{})
	for i := 0; i < 4; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for j := 0; j < 50; j++ {
				if errs := v.Validate(nil, valid); len(errs) != 0 {
					t.Errorf("valid object: %v", errs)
				}
				if errs := v.ValidateUpdate(nil, invalid, valid); len(errs) != 2 {
					t.Errorf("invalid object: %v", errs)
				}
			}
		}()
	}
	for i := 0; i < 4; i++ {
		<-done
	}
}
