package openapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The v2 document describes everything the server serves: with a thousand
// CRDs it is tens of megabytes, which take seconds to build, encode and
// convert to protobuf. It is assembled instead from parts, one per group
// version (and per discovery document), each built and encoded once and
// kept until its group version changes: after a CRD changes, only its part
// is built again, and the document is the concatenation of the parts'
// encodings, in both JSON and protobuf. The result is the document
// buildV2 would build from all the operations at once, to the byte.

// v2Part is what the operations of one group version contribute to the v2
// document: paths, the shared parameters they refer to, and the
// definitions they need.
type v2Part struct {
	paths      map[string]spec.PathItem
	parameters map[string]spec.Parameter
	// custom are the definitions the part brings; goTypes are the roots of
	// the definitions of Go types it refers to, shared by all parts.
	custom  map[string]*customModel
	goTypes []reflect.Type

	jsonOnce sync.Once
	json     *v2Sections
	jsonErr  error

	protoOnce sync.Once
	proto     *v2ProtoSections
	protoErr  error
}

// v2Sections are encoded entries of the sections of a document: paths,
// definitions and parameters, each sorted by name as the document has them.
type v2Sections struct {
	paths, definitions, parameters []v2Entry
}

type v2Entry struct {
	name string
	json []byte
}

// v2ProtoSections are the same entries encoded in protobuf, as the
// messages gnostic makes of them (NamedPathItem, NamedSchema and
// NamedParameter).
type v2ProtoSections struct {
	paths, definitions, parameters []v2ProtoEntry
}

type v2ProtoEntry struct {
	name string
	pb   []byte
}

// newV2Part describes operations in Swagger 2.0.
func newV2Part(ops []operation) (*v2Part, error) {
	shared, err := newSharedParams(ops)
	if err != nil {
		return nil, err
	}
	part := &v2Part{paths: map[string]spec.PathItem{}, parameters: shared.byName}
	var models documentModels
	for path, pathOps := range byPath(ops) {
		common := commonParams(pathOps)
		item := spec.PathItem{}
		for _, p := range common {
			item.Parameters = append(item.Parameters, shared.param(p))
		}
		for _, o := range pathOps {
			models.addOperation(&o)
			setOperation(&item, o.method, v2Operation(o, common, shared))
		}
		part.paths[path] = item
	}
	part.custom, part.goTypes = models.custom, models.goTypes
	return part, nil
}

// encoded returns the JSON encodings of the part's entries.
func (p *v2Part) encoded() (*v2Sections, error) {
	p.jsonOnce.Do(func() {
		s := &v2Sections{}
		for name, item := range p.paths {
			s.paths = append(s.paths, v2Entry{name: name})
			if s.paths[len(s.paths)-1].json, p.jsonErr = item.MarshalJSON(); p.jsonErr != nil {
				return
			}
		}
		for name, c := range p.custom {
			s.definitions = append(s.definitions, v2Entry{name: name})
			if s.definitions[len(s.definitions)-1].json, p.jsonErr = c.v2.MarshalJSON(); p.jsonErr != nil {
				return
			}
		}
		for name, param := range p.parameters {
			s.parameters = append(s.parameters, v2Entry{name: name})
			if s.parameters[len(s.parameters)-1].json, p.jsonErr = param.MarshalJSON(); p.jsonErr != nil {
				return
			}
		}
		for _, entries := range [][]v2Entry{s.paths, s.definitions, s.parameters} {
			sortEntries(entries)
		}
		p.json = s
	})
	return p.json, p.jsonErr
}

// protos returns the part's entries as gnostic parses them.
func (p *v2Part) protos() (*v2ProtoSections, error) {
	p.protoOnce.Do(func() {
		var s *v2Sections
		if s, p.protoErr = p.encoded(); p.protoErr != nil {
			return
		}
		p.proto, p.protoErr = parseSections(s)
	})
	return p.proto, p.protoErr
}

// parseSections has gnostic parse encoded entries, in a document of
// their own, and encodes its messages.
func parseSections(s *v2Sections) (*v2ProtoSections, error) {
	var b bytes.Buffer
	writeV2JSON(&b, &v2Head{info: []byte(`{"title":"","version":""}`)}, s)
	doc, err := openapi_v2.ParseDocument(b.Bytes())
	if err != nil {
		return nil, err
	}
	out := &v2ProtoSections{}
	if doc.Paths != nil {
		if out.paths, err = encodeNamed(doc.Paths.Path); err != nil {
			return nil, err
		}
	}
	if doc.Definitions != nil {
		if out.definitions, err = encodeNamed(doc.Definitions.AdditionalProperties); err != nil {
			return nil, err
		}
	}
	if doc.Parameters != nil {
		if out.parameters, err = encodeNamed(doc.Parameters.AdditionalProperties); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// namedMessage is a gnostic message of a named entry.
type namedMessage interface {
	proto.Message
	GetName() string
}

func encodeNamed[T namedMessage](messages []T) ([]v2ProtoEntry, error) {
	out := make([]v2ProtoEntry, len(messages))
	for i, m := range messages {
		pb, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		out[i] = v2ProtoEntry{name: m.GetName(), pb: pb}
	}
	return out, nil
}

func sortEntries(entries []v2Entry) {
	slices.SortFunc(entries, func(a, b v2Entry) int { return strings.Compare(a.name, b.name) })
}

// v2Head is what the document has besides its paths, definitions and
// parameters, encoded.
type v2Head struct {
	info, securityDefinitions, security []byte
}

// writeV2JSON writes a Swagger 2.0 document as spec.Swagger's MarshalJSON
// does: compact, its fields in their order, map keys sorted.
func writeV2JSON(b *bytes.Buffer, head *v2Head, s *v2Sections) {
	b.WriteString(`{"swagger":"2.0","info":`)
	b.Write(head.info)
	b.WriteString(`,"paths":`)
	writeV2Map(b, s.paths)
	if len(s.definitions) > 0 {
		b.WriteString(`,"definitions":`)
		writeV2Map(b, s.definitions)
	}
	if len(s.parameters) > 0 {
		b.WriteString(`,"parameters":`)
		writeV2Map(b, s.parameters)
	}
	if head.securityDefinitions != nil {
		b.WriteString(`,"securityDefinitions":`)
		b.Write(head.securityDefinitions)
	}
	if head.security != nil {
		b.WriteString(`,"security":`)
		b.Write(head.security)
	}
	b.WriteByte('}')
}

func writeV2Map(b *bytes.Buffer, entries []v2Entry) {
	b.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, e.name)
		b.WriteByte(':')
		b.Write(e.json)
	}
	b.WriteByte('}')
}

// writeJSONString writes a string as kube-openapi's encoder does, which
// does not escape <, > and & as encoding/json does by default.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode adds a newline
}

// v2DefinitionCache keeps the encodings of the definitions of Go types,
// which are the same in every document a Service builds.
type v2DefinitionCache struct {
	kinds kindIndex

	mu    sync.Mutex
	json  map[string][]byte
	proto map[string][]byte
}

func newV2DefinitionCache(kinds kindIndex) *v2DefinitionCache {
	return &v2DefinitionCache{kinds: kinds, json: map[string][]byte{}, proto: map[string][]byte{}}
}

// encoded returns the sorted entries of definitions.
func (c *v2DefinitionCache) encoded(defs map[string]*definition) ([]v2Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := make([]v2Entry, 0, len(defs))
	for name, d := range defs {
		data, ok := c.json[name]
		if !ok {
			s := withKinds(d, c.kinds[d.typ])
			var err error
			if data, err = s.MarshalJSON(); err != nil {
				return nil, err
			}
			c.json[name] = data
		}
		entries = append(entries, v2Entry{name: name, json: data})
	}
	sortEntries(entries)
	return entries, nil
}

// protos returns the protobuf encodings of sorted entries, parsing those
// it has not parsed yet in one document.
func (c *v2DefinitionCache) protos(entries []v2Entry) ([]v2ProtoEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var missing []v2Entry
	for _, e := range entries {
		if _, ok := c.proto[e.name]; !ok {
			missing = append(missing, e)
		}
	}
	if len(missing) > 0 {
		parsed, err := parseSections(&v2Sections{definitions: missing})
		if err != nil {
			return nil, err
		}
		for _, e := range parsed.definitions {
			c.proto[e.name] = e.pb
		}
	}
	out := make([]v2ProtoEntry, len(entries))
	for i, e := range entries {
		out[i] = v2ProtoEntry{name: e.name, pb: c.proto[e.name]}
	}
	return out, nil
}

// v2Document is the v2 document of one generation of the served
// resources, assembled from the parts of its sources when asked for.
type v2Document struct {
	info    Info
	sources []*v3Source
	defs    *v2DefinitionCache

	once sync.Once
	// parts are those of the sources, or one part of all their operations.
	parts []*v2Part
	// goDefs are the definitions of Go types the parts need, goEntries
	// their encodings.
	goDefs    map[string]*definition
	goEntries []v2Entry
	// sections are the merged encoded entries of the document.
	sections *v2Sections
	err      error
}

// assemble puts the parts of the sources together, once. Parts that cannot
// be put together, which give a path, a definition or a parameter name two
// meanings, are replaced by one part of all the operations, as
// kube-apiserver would build it, which names parameters apart. (Parameter
// names end with a hash of their content: two parts naming different
// parameters alike is all but impossible.)
func (d *v2Document) assemble() error {
	d.once.Do(func() {
		for _, src := range d.sources {
			part, err := src.v2Part()
			if err != nil {
				d.err = err
				return
			}
			d.parts = append(d.parts, part)
		}
		if ok, err := d.merge(); err != nil || ok {
			d.err = err
			return
		}
		var all []operation
		for _, src := range d.sources {
			all = append(all, src.ops...)
		}
		part, err := newV2Part(all)
		if err != nil {
			d.err = err
			return
		}
		d.parts = []*v2Part{part}
		if ok, err := d.merge(); err != nil {
			d.err = err
		} else if !ok {
			d.err = fmt.Errorf("definition names are claimed by both Go types and custom resources")
		}
	})
	return d.err
}

// merge merges the encoded entries of the parts and of the definitions of
// Go types they need, and tells whether no name has two meanings.
func (d *v2Document) merge() (bool, error) {
	var roots []reflect.Type
	for _, p := range d.parts {
		roots = append(roots, p.goTypes...)
	}
	var err error
	if d.goDefs, err = v2Definitions.closure(roots); err != nil {
		return false, err
	}
	if d.goEntries, err = d.defs.encoded(d.goDefs); err != nil {
		return false, err
	}
	all := &v2Sections{definitions: slices.Clone(d.goEntries)}
	for _, p := range d.parts {
		s, err := p.encoded()
		if err != nil {
			return false, err
		}
		all.paths = append(all.paths, s.paths...)
		all.definitions = append(all.definitions, s.definitions...)
		all.parameters = append(all.parameters, s.parameters...)
	}
	var ok [3]bool
	for i, entries := range []*[]v2Entry{&all.paths, &all.definitions, &all.parameters} {
		sortEntries(*entries)
		// Parts share parameters; paths are their own.
		*entries, ok[i] = withoutRepeats(*entries, i == 2)
	}
	d.sections = all
	return ok[0] && ok[1] && ok[2], nil
}

// withoutRepeats drops the entries that repeat the one before them, and
// tells whether they all were allowed to: a name may repeat, with the same
// content, only if repeatable.
func withoutRepeats(sorted []v2Entry, repeatable bool) ([]v2Entry, bool) {
	ok := true
	out := sorted[:0]
	for i, e := range sorted {
		if i > 0 && e.name == sorted[i-1].name {
			ok = ok && repeatable && bytes.Equal(e.json, sorted[i-1].json)
			continue
		}
		out = append(out, e)
	}
	return out, ok
}

func (d *v2Document) head() (*v2Head, error) {
	info, err := json.Marshal(spec.Info{InfoProps: spec.InfoProps{Title: d.info.Title, Version: d.info.Version}})
	if err != nil {
		return nil, err
	}
	security := v2Security()
	securityDefinitions, err := json.Marshal(security.SecurityDefinitions)
	if err != nil {
		return nil, err
	}
	requirements, err := json.Marshal(security.Security)
	if err != nil {
		return nil, err
	}
	return &v2Head{info: info, securityDefinitions: securityDefinitions, security: requirements}, nil
}

// JSON encodes the document.
func (d *v2Document) JSON() ([]byte, error) {
	if err := d.assemble(); err != nil {
		return nil, err
	}
	head, err := d.head()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	size := 256
	for _, entries := range [][]v2Entry{d.sections.paths, d.sections.definitions, d.sections.parameters} {
		for _, e := range entries {
			size += len(e.name) + len(e.json) + 4
		}
	}
	b.Grow(size)
	writeV2JSON(&b, head, d.sections)
	return b.Bytes(), nil
}

// Protobuf encodes the document as gnostic does the JSON one: the
// encodings of the entries, in their sections, between the fields before
// and after them. Protocol buffers encode fields in the order of their
// numbers; the sections are fields 8 (paths), 9 (definitions) and 10
// (parameters) of the Document, their entries fields 2, 1 and 1.
func (d *v2Document) Protobuf() ([]byte, error) {
	if err := d.assemble(); err != nil {
		return nil, err
	}
	head, err := d.head()
	if err != nil {
		return nil, err
	}
	all := &v2ProtoSections{}
	if all.definitions, err = d.defs.protos(d.goEntries); err != nil {
		return nil, err
	}
	for _, p := range d.parts {
		s, err := p.protos()
		if err != nil {
			return nil, err
		}
		all.paths = append(all.paths, s.paths...)
		all.definitions = append(all.definitions, s.definitions...)
		all.parameters = append(all.parameters, s.parameters...)
	}

	var b bytes.Buffer
	writeV2JSON(&b, head, &v2Sections{})
	doc, err := openapi_v2.ParseDocument(b.Bytes())
	if err != nil {
		return nil, err
	}
	before, err := proto.Marshal(&openapi_v2.Document{Swagger: doc.Swagger, Info: doc.Info})
	if err != nil {
		return nil, err
	}
	after, err := proto.Marshal(&openapi_v2.Document{Security: doc.Security, SecurityDefinitions: doc.SecurityDefinitions})
	if err != nil {
		return nil, err
	}

	size := len(before) + len(after) + 3*(1+binary.MaxVarintLen64)
	for _, entries := range [][]v2ProtoEntry{all.paths, all.definitions, all.parameters} {
		for _, e := range entries {
			size += 1 + binary.MaxVarintLen64 + len(e.pb)
		}
	}
	out := append(make([]byte, 0, size), before...)
	out = appendSection(out, 8, 2, all.paths)
	if len(all.definitions) > 0 {
		out = appendSection(out, 9, 1, all.definitions)
	}
	if len(all.parameters) > 0 {
		out = appendSection(out, 10, 1, all.parameters)
	}
	return append(out, after...), nil
}

// appendSection appends the message field of a section, its entries sorted
// by name, each once.
func appendSection(b []byte, field, entryField protowire.Number, entries []v2ProtoEntry) []byte {
	// Entries named alike are alike (see v2Document.merge).
	slices.SortFunc(entries, func(a, b v2ProtoEntry) int { return strings.Compare(a.name, b.name) })
	entries = slices.CompactFunc(entries, func(a, b v2ProtoEntry) bool { return a.name == b.name })
	size := 0
	for _, e := range entries {
		size += protowire.SizeTag(entryField) + protowire.SizeBytes(len(e.pb))
	}
	b = protowire.AppendTag(b, field, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	for _, e := range entries {
		b = protowire.AppendTag(b, entryField, protowire.BytesType)
		b = protowire.AppendBytes(b, e.pb)
	}
	return b
}

// Swagger assembles the document in memory.
func (d *v2Document) Swagger() (*spec.Swagger, error) {
	if err := d.assemble(); err != nil {
		return nil, err
	}
	parts, goDefs := d.parts, d.goDefs
	doc := v2Security()
	doc.Swagger = "2.0"
	doc.Info = &spec.Info{InfoProps: spec.InfoProps{Title: d.info.Title, Version: d.info.Version}}
	doc.Paths = &spec.Paths{Paths: map[string]spec.PathItem{}}
	doc.Definitions = make(spec.Definitions, len(goDefs))
	doc.Parameters = map[string]spec.Parameter{}
	for name, def := range goDefs {
		doc.Definitions[name] = withKinds(def, d.defs.kinds[def.typ])
	}
	for _, p := range parts {
		for path, item := range p.paths {
			doc.Paths.Paths[path] = item
		}
		for name, c := range p.custom {
			if _, ok := doc.Definitions[name]; ok {
				return nil, fmt.Errorf("two definitions are named %s", name)
			}
			doc.Definitions[name] = *c.v2
		}
		for name, param := range p.parameters {
			doc.Parameters[name] = param
		}
	}
	return &spec.Swagger{SwaggerProps: *doc}, nil
}

// v2Security is the security kube-apiserver declares: bearer tokens.
func v2Security() *spec.SwaggerProps {
	return &spec.SwaggerProps{
		SecurityDefinitions: spec.SecurityDefinitions{bearerToken: &spec.SecurityScheme{SecuritySchemeProps: spec.SecuritySchemeProps{
			Type: "apiKey", Name: "authorization", In: "header", Description: "Bearer Token authentication",
		}}},
		Security: []map[string][]string{{bearerToken: {}}},
	}
}
