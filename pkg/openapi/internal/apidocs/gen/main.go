// Command gen reads the Go source of the built-in API packages (k8s.io/api
// and the API packages of k8s.io/apimachinery, at the versions in go.mod)
// and writes the facts the OpenAPI builder cannot get by reflection: enum
// values, comment markers, and descriptions the SwaggerDoc methods do not
// give right.
//
// It follows the conventions of kube-openapi's openapi-gen, which produces
// kube-apiserver's documents from the same comments:
//
//   - a package (or a type) takes part in OpenAPI when its comment has
//     +k8s:openapi-gen=true; a type or field leaves it with
//     +k8s:openapi-gen=false;
//   - a type is an enum when its underlying type is string and its comment
//     has +enum; its values are the string constants of that type;
//   - a field is required when it is marked +required, or has no omitempty
//     and is not marked +optional;
//   - descriptions are comments without +tags, TODO lines and what follows
//     a "---" line, lines of a paragraph joined by spaces and indented
//     lines kept on their own lines.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// patterns are the packages whose types kapi serves or references.
var patterns = []string{
	"k8s.io/api/...",
	"k8s.io/apimachinery/pkg/apis/meta/v1",
	"k8s.io/apimachinery/pkg/api/resource",
	"k8s.io/apimachinery/pkg/util/intstr",
	"k8s.io/apimachinery/pkg/runtime",
	"k8s.io/apimachinery/pkg/version",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
}

func main() {
	out := flag.String("o", "", "output file (default: stdout)")
	flag.Parse()

	src, err := generate()
	if err != nil {
		log.Fatal(err)
	}
	if *out == "" {
		os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// generate returns the source of the generated file.
func generate() ([]byte, error) {
	listed, err := listPackages(patterns)
	if err != nil {
		return nil, err
	}
	u := &universe{
		fset:     token.NewFileSet(),
		comments: map[*ast.File]map[int]*ast.CommentGroup{},
		packages: map[string]*sourcePackage{},
		types:    map[string]*typeDecl{},
	}
	for _, p := range listed {
		if err := u.parse(p); err != nil {
			return nil, err
		}
	}
	types, err := u.collectTypes()
	if err != nil {
		return nil, err
	}
	return render(u.collectEnums(), types)
}

type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
}

func listPackages(patterns []string) ([]listedPackage, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Dir,GoFiles"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// universe is the parsed source of all the packages.
type universe struct {
	fset *token.FileSet
	// comments indexes each file's comments by the line they end on.
	comments map[*ast.File]map[int]*ast.CommentGroup

	packages map[string]*sourcePackage
	types    map[string]*typeDecl // by "<import path>.<name>"
	order    []*typeDecl
}

type sourcePackage struct {
	path  string
	files []*ast.File
	// openAPI is set when the package comment has +k8s:openapi-gen=true.
	openAPI bool
	// swaggerDocs are the maps the SwaggerDoc methods return, by type; a
	// nil map is a method whose result could not be read from the source.
	swaggerDocs map[string]map[string]string
	// consts are the constant declarations, by name.
	consts map[string]constDecl
}

// constDecl is the expression of a constant and the file it is in, which
// resolves the packages it names.
type constDecl struct {
	expr ast.Expr
	file *ast.File
}

type typeDecl struct {
	pkg  *sourcePackage
	file *ast.File
	spec *ast.TypeSpec
	doc  []string
}

func (t *typeDecl) name() string { return t.pkg.path + "." + t.spec.Name.Name }

func (u *universe) parse(p listedPackage) error {
	sp := &sourcePackage{path: p.ImportPath, swaggerDocs: map[string]map[string]string{}, consts: map[string]constDecl{}}
	u.packages[sp.path] = sp
	vars := map[string]ast.Expr{}
	var docMethods []*ast.FuncDecl
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(u.fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
		if err != nil {
			return err
		}
		sp.files = append(sp.files, f)
		byEnd := map[int]*ast.CommentGroup{}
		for _, c := range f.Comments {
			byEnd[u.fset.Position(c.End()).Line] = c
		}
		u.comments[f] = byEnd
		// Package tags are in any comment above the package clause.
		for _, c := range f.Comments {
			if c.End() < f.Package && hasTagValue(commentLines(c), "k8s:openapi-gen", "true") {
				sp.openAPI = true
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "SwaggerDoc" {
					docMethods = append(docMethods, d)
				}
			case *ast.GenDecl:
				u.addDecl(sp, f, d, vars)
			}
		}
	}
	for _, fd := range docMethods {
		recv := receiverName(fd.Recv.List[0].Type)
		sp.swaggerDocs[recv] = swaggerDoc(fd, vars)
	}
	return nil
}

func (u *universe) addDecl(sp *sourcePackage, f *ast.File, gd *ast.GenDecl, vars map[string]ast.Expr) {
	for _, s := range gd.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			t := &typeDecl{pkg: sp, file: f, spec: s, doc: u.docComment(f, s.Name.Pos())}
			u.types[t.name()] = t
			u.order = append(u.order, t)
		case *ast.ValueSpec:
			for i, name := range s.Names {
				if i >= len(s.Values) {
					break
				}
				switch gd.Tok {
				case token.VAR:
					vars[name.Name] = s.Values[i]
				case token.CONST:
					sp.consts[name.Name] = constDecl{expr: s.Values[i], file: f}
				}
			}
		}
	}
}

func receiverName(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// swaggerDoc evaluates the map a SwaggerDoc method returns, when it is a
// literal or a package variable holding one.
func swaggerDoc(fd *ast.FuncDecl, vars map[string]ast.Expr) map[string]string {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	expr := ret.Results[0]
	if id, ok := expr.(*ast.Ident); ok {
		expr = vars[id.Name]
	}
	lit, ok := expr.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	m := map[string]string{}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			return nil
		}
		k, ok1 := stringValue(kv.Key)
		v, ok2 := stringValue(kv.Value)
		if !ok1 || !ok2 {
			return nil
		}
		m[k] = v
	}
	return m
}

// stringValue evaluates a string literal or a concatenation of them.
func stringValue(e ast.Expr) (string, bool) {
	return (*universe)(nil).constant(nil, "", e)
}

// constant evaluates a string constant expression: literals, their
// concatenations, conversions (`Type("value")`) and other constants, of this
// package or of an imported one. Without a universe only literals are
// known.
func (u *universe) constant(file *ast.File, pkg string, e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok1 := u.constant(file, pkg, e.X)
		y, ok2 := u.constant(file, pkg, e.Y)
		return x + y, ok1 && ok2
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			return u.constant(file, pkg, e.Args[0])
		}
	case *ast.ParenExpr:
		return u.constant(file, pkg, e.X)
	case *ast.Ident:
		if u != nil {
			return u.named(pkg, e.Name)
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok && u != nil && file != nil {
			if path := fileImports(file)[x.Name]; path != "" {
				return u.named(path, e.Sel.Name)
			}
		}
	}
	return "", false
}

// named evaluates the constant pkg.name.
func (u *universe) named(pkg, name string) (string, bool) {
	p, ok := u.packages[pkg]
	if !ok {
		return "", false
	}
	c, ok := p.consts[name]
	if !ok {
		return "", false
	}
	return u.constant(c.file, pkg, c.expr)
}

// resolve returns the declaration of the named type an expression refers
// to, through pointers and aliases (`type ScopeType = v1.ScopeType`).
func (u *universe) resolve(file *ast.File, pkg string, e ast.Expr) *typeDecl {
	var t *typeDecl
	switch e := e.(type) {
	case *ast.StarExpr:
		return u.resolve(file, pkg, e.X)
	case *ast.Ident:
		t = u.types[pkg+"."+e.Name]
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if path := fileImports(file)[x.Name]; path != "" {
				t = u.types[path+"."+e.Sel.Name]
			}
		}
	}
	if t != nil && t.spec.Assign.IsValid() {
		return u.resolve(t.file, t.pkg.path, t.spec.Type)
	}
	return t
}

func fileImports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		m[name] = path
	}
	return m
}

type enumValue struct {
	Value, Name, Comment string
}

// collectEnums finds the enum types and their values, keyed by
// "<import path>.<type name>".
func (u *universe) collectEnums() map[string][]enumValue {
	enums := map[string][]enumValue{}
	for _, t := range u.order {
		if id, ok := t.spec.Type.(*ast.Ident); ok && id.Name == "string" && hasTag(t.doc, "enum") {
			enums[t.name()] = nil
		}
	}
	for _, p := range u.packages {
		for _, f := range p.files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					for i, name := range vs.Names {
						comment := strings.Join(u.docComment(f, name.Pos()), " ")
						if i >= len(vs.Values) {
							break
						}
						typ := vs.Type
						if call, ok := vs.Values[i].(*ast.CallExpr); ok && typ == nil {
							typ = call.Fun
						}
						value, ok := u.constant(f, p.path, vs.Values[i])
						decl := u.resolve(f, p.path, typ)
						if !ok || typ == nil || decl == nil {
							continue
						}
						if _, isEnum := enums[decl.name()]; isEnum {
							enums[decl.name()] = addIfNotPresent(enums[decl.name()], enumValue{Value: value, Name: name.Name, Comment: comment})
						}
					}
				}
			}
		}
	}
	return enums
}

// addIfNotPresent keeps one constant per value, as openapi-gen does when an
// enum is re-exported under other names: the longer comment wins, ties go
// to the lexically smaller comment.
func addIfNotPresent(values []enumValue, v enumValue) []enumValue {
	for i, existing := range values {
		if existing.Value != v.Value {
			continue
		}
		if len(existing.Comment) < len(v.Comment) || (len(existing.Comment) == len(v.Comment) && existing.Comment > v.Comment) {
			values[i] = v
		}
		return values
	}
	return append(values, v)
}

// typeFacts mirrors apidocs.Type.
type typeFacts struct {
	Docs       map[string]string
	StructType string
	Unions     []unionFacts
	Fields     map[string]fieldFacts
}

type fieldFacts struct {
	ListType    string
	ListMapKeys []string
	MapType     string
	Default     string
	Required    string
	Hidden      bool
	OpenEnded   bool
}

type unionFacts struct {
	Discriminator string
	Members       map[string]string
}

func (t *typeFacts) empty() bool {
	return len(t.Docs) == 0 && t.StructType == "" && len(t.Unions) == 0 && len(t.Fields) == 0
}

// member is a field of a struct as openapi-gen sees it.
type member struct {
	field    *ast.Field
	goName   string
	jsonTag  string
	hasJSON  bool
	embedded bool
	doc      []string
}

func (u *universe) members(t *typeDecl, st *ast.StructType) []member {
	var out []member
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			tag, _ = strconv.Unquote(f.Tag.Value)
		}
		jsonTag, hasJSON := reflect.StructTag(tag).Lookup("json")
		m := member{field: f, jsonTag: jsonTag, hasJSON: hasJSON, doc: u.docComment(t.file, f.Pos())}
		if len(f.Names) == 0 {
			m.embedded = true
			m.goName = typeIdent(f.Type)
			out = append(out, m)
			continue
		}
		for _, n := range f.Names {
			m.goName = n.Name
			out = append(out, m)
		}
	}
	return out
}

func typeIdent(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeIdent(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// jsonName is the property name of a member; "" when it has none.
func (m member) jsonName() string {
	if !m.hasJSON {
		return m.goName
	}
	name, _, _ := strings.Cut(m.jsonTag, ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return m.goName
	}
	return name
}

func (m member) inline() bool {
	return m.embedded && m.hasJSON && (m.jsonTag == "" || strings.HasPrefix(m.jsonTag, ","))
}

func (m member) omitEmpty() bool {
	return strings.HasSuffix(m.jsonTag, ",omitempty") || strings.Contains(m.jsonTag, ",omitempty,")
}

// collectTypes gathers the facts of the OpenAPI struct types.
func (u *universe) collectTypes() (map[string]typeFacts, error) {
	out := map[string]typeFacts{}
	for _, t := range u.order {
		st, ok := t.spec.Type.(*ast.StructType)
		if !ok || !ast.IsExported(t.spec.Name.Name) || !t.included() {
			continue
		}
		facts, err := u.typeFacts(t, st)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name(), err)
		}
		if !facts.empty() {
			out[t.name()] = facts
		}
	}
	return out, nil
}

func (t *typeDecl) included() bool {
	if hasTagValue(t.doc, "k8s:openapi-gen", "true") {
		return true
	}
	return t.pkg.openAPI && !hasTagValue(t.doc, "k8s:openapi-gen", "false")
}

func (u *universe) typeFacts(t *typeDecl, st *ast.StructType) (typeFacts, error) {
	facts := typeFacts{Docs: map[string]string{}, Fields: map[string]fieldFacts{}}
	swagger, hasSwagger := t.pkg.swaggerDocs[t.spec.Name.Name]
	docDiffers := func(key, desc string) bool {
		if !hasSwagger || swagger == nil {
			return desc != ""
		}
		got, ok := swagger[key]
		return got != desc || (!ok && desc != "")
	}
	if d := description(t.doc); docDiffers("", d) {
		facts.Docs[""] = d
	}
	facts.StructType = single(t.doc, "structType")
	facts.Unions = u.unions(t, st)

	for _, m := range u.members(t, st) {
		name := m.jsonName()
		if name == "" || m.inline() {
			continue
		}
		var f fieldFacts
		if hasTagValue(m.doc, "k8s:openapi-gen", "false") {
			f.Hidden = true
			facts.Fields[name] = f
			continue
		}
		if d := description(m.doc); docDiffers(name, d) {
			facts.Docs[name] = d
		}
		f.ListType = single(m.doc, "listType")
		f.ListMapKeys = tags(m.doc, "listMapKey")
		f.MapType = single(m.doc, "mapType")
		if f.MapType == "" {
			f.MapType = single(m.doc, "structType")
		}
		optional, required := hasTag(m.doc, "optional"), hasTag(m.doc, "required")
		switch {
		case required && m.omitEmpty():
			f.Required = "required"
		case optional && !required && !m.omitEmpty():
			f.Required = "optional"
		}
		def, err := u.defaultValue(t, m)
		if err != nil {
			return facts, fmt.Errorf("field %s: %w", m.goName, err)
		}
		f.Default = def
		f.OpenEnded = u.isEnum(t, m) && strings.HasSuffix(rawDescription(m.doc), "\n\n")
		if !reflect.DeepEqual(f, fieldFacts{}) {
			facts.Fields[name] = f
		}
	}
	if len(facts.Docs) == 0 {
		facts.Docs = nil
	}
	if len(facts.Fields) == 0 {
		facts.Fields = nil
	}
	return facts, nil
}

var refPattern = regexp.MustCompile(`^ref\(([^"]+)\)$`)

// defaultValue is the JSON of a member's +default marker, or of its type's.
func (u *universe) defaultValue(t *typeDecl, m member) (string, error) {
	tag, scope := single(m.doc, "default"), t
	if tag == "" {
		// A named type can carry the default of every field of its type.
		if decl := u.resolve(t.file, t.pkg.path, m.field.Type); decl != nil {
			tag, scope = single(decl.doc, "default"), decl
		}
	}
	if tag == "" {
		return "", nil
	}
	if ref := refPattern.FindStringSubmatch(tag); ref != nil {
		pkg, name := scope.pkg.path, ref[1]
		if i := strings.LastIndex(name, "."); i >= 0 {
			pkg, name = name[:i], name[i+1:]
		}
		v, ok := u.named(pkg, name)
		if !ok {
			return "", fmt.Errorf("default %s: unknown string constant", tag)
		}
		b, err := json.Marshal(v)
		return string(b), err
	}
	var v any
	if err := json.Unmarshal([]byte(tag), &v); err != nil {
		return "", fmt.Errorf("default %s: %w", tag, err)
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// unions returns the x-kubernetes-unions of a type: the type itself when
// marked +union, those of its inline members, and the members marked
// +unionDeprecated.
func (u *universe) unions(t *typeDecl, st *ast.StructType) []unionFacts {
	var out []unionFacts
	if hasTag(t.doc, "union") {
		un := unionFacts{Members: map[string]string{}}
		for _, m := range u.members(t, st) {
			name := m.jsonName()
			if name == "" || m.inline() || hasTag(m.doc, "unionDeprecated") {
				continue
			}
			if hasTag(m.doc, "unionDiscriminator") {
				un.Discriminator = name
				continue
			}
			un.Members[name] = m.goName
		}
		out = append(out, un)
	}
	for _, m := range u.members(t, st) {
		if !m.inline() || hasTagValue(m.doc, "k8s:openapi-gen", "false") {
			continue
		}
		if decl := u.resolve(t.file, t.pkg.path, m.field.Type); decl != nil {
			if est, ok := decl.spec.Type.(*ast.StructType); ok {
				out = append(out, u.unions(decl, est)...)
			}
		}
	}
	deprecated := unionFacts{Members: map[string]string{}}
	for _, m := range u.members(t, st) {
		name := m.jsonName()
		if name == "" || m.inline() {
			continue
		}
		if hasTag(m.doc, "unionDiscriminator") {
			deprecated.Discriminator = name
		}
		if hasTag(m.doc, "unionDeprecated") {
			deprecated.Members[name] = m.goName
		}
	}
	if len(deprecated.Members) > 0 {
		out = append(out, deprecated)
	}
	return out
}

// docComment returns the comment of the declaration at pos: as gengo (and
// so openapi-gen) reads it, the comment group that ends on the line above,
// which may be the trailing comment of the previous line.
func (u *universe) docComment(f *ast.File, pos token.Pos) []string {
	return commentLines(u.comments[f][u.fset.Position(pos).Line-1])
}

// commentLines splits a comment into lines without the comment markers.
func commentLines(cg *ast.CommentGroup) []string {
	if cg == nil {
		return nil
	}
	return strings.Split(strings.TrimRight(cg.Text(), "\n"), "\n")
}

// tags returns the values of the +name and +name=value tags of a comment.
func tags(lines []string, name string) []string {
	var values []string
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "+") {
			continue
		}
		k, v, _ := strings.Cut(line[1:], "=")
		if k == name {
			values = append(values, v)
		}
	}
	return values
}

func single(lines []string, name string) string {
	if v := tags(lines, name); len(v) > 0 {
		return v[0]
	}
	return ""
}

func hasTag(lines []string, name string) bool { return tags(lines, name) != nil }

func hasTagValue(lines []string, name, value string) bool {
	for _, v := range tags(lines, name) {
		if v == value {
			return true
		}
	}
	return false
}

// isEnum reports whether a member is of an enum type, or a pointer to one:
// openapi-gen appends the enum's values to its description.
func (u *universe) isEnum(t *typeDecl, m member) bool {
	decl := u.resolve(t.file, t.pkg.path, m.field.Type)
	if decl == nil {
		return false
	}
	id, ok := decl.spec.Type.(*ast.Ident)
	return ok && id.Name == "string" && hasTag(decl.doc, "enum")
}

// description turns a doc comment into an OpenAPI description.
func description(lines []string) string {
	return strings.TrimSpace(rawDescription(lines))
}

// rawDescription is the description of a doc comment before openapi-gen
// trims it: a comment that ends with a blank line, markers aside, ends
// with a paragraph break.
func rawDescription(lines []string) string {
	var b strings.Builder
	dropLast := func() {
		if b.Len() > 0 {
			s := b.String()
			b.Reset()
			b.WriteString(s[:len(s)-1])
		}
	}
	for _, line := range lines {
		if line == "---" {
			break
		}
		line = strings.TrimRight(line, " ")
		leading := strings.TrimLeft(line, " ")
		switch {
		case line == "":
			// A blank line ends a paragraph.
			dropLast()
			b.WriteString("\n\n")
		case strings.HasPrefix(leading, "TODO"), strings.HasPrefix(leading, "+"):
		case strings.HasPrefix(line, " "), strings.HasPrefix(line, "\t"):
			// Indented lines (examples, lists) keep their own line.
			dropLast()
			b.WriteString("\n" + line + "\n")
		default:
			b.WriteString(line + " ")
		}
	}
	return b.String()
}

func render(enums map[string][]enumValue, types map[string]typeFacts) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by gen (see doc.go); DO NOT EDIT.\n\npackage apidocs\n\n")
	b.WriteString("// Enums maps the enum types, named \"<import path>.<type name>\", to their\n// values, sorted by value.\n")
	b.WriteString("var Enums = map[string][]EnumValue{\n")
	for _, name := range sortedKeys(enums) {
		values := enums[name]
		if len(values) == 0 {
			continue
		}
		sort.Slice(values, func(i, j int) bool { return values[i].Value < values[j].Value })
		fmt.Fprintf(&b, "%q: {\n", name)
		for _, v := range values {
			fmt.Fprintf(&b, "{Value: %q, Name: %q, Comment: %q},\n", v.Value, v.Name, v.Comment)
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// Types maps struct types, named \"<import path>.<type name>\", to their\n// comment facts.\n")
	b.WriteString("var Types = map[string]Type{\n")
	for _, name := range sortedKeys(types) {
		t := types[name]
		fmt.Fprintf(&b, "%q: {\n", name)
		if len(t.Docs) > 0 {
			b.WriteString("Docs: map[string]string{\n")
			for _, k := range sortedKeys(t.Docs) {
				fmt.Fprintf(&b, "%q: %q,\n", k, t.Docs[k])
			}
			b.WriteString("},\n")
		}
		if t.StructType != "" {
			fmt.Fprintf(&b, "StructType: %q,\n", t.StructType)
		}
		if len(t.Unions) > 0 {
			b.WriteString("Unions: []Union{\n")
			for _, un := range t.Unions {
				fmt.Fprintf(&b, "{Discriminator: %q, Members: map[string]string{", un.Discriminator)
				for _, k := range sortedKeys(un.Members) {
					fmt.Fprintf(&b, "%q: %q, ", k, un.Members[k])
				}
				b.WriteString("}},\n")
			}
			b.WriteString("},\n")
		}
		if len(t.Fields) > 0 {
			b.WriteString("Fields: map[string]Field{\n")
			for _, k := range sortedKeys(t.Fields) {
				f := t.Fields[k]
				fmt.Fprintf(&b, "%q: {", k)
				if f.ListType != "" {
					fmt.Fprintf(&b, "ListType: %q, ", f.ListType)
				}
				if len(f.ListMapKeys) > 0 {
					fmt.Fprintf(&b, "ListMapKeys: %#v, ", f.ListMapKeys)
				}
				if f.MapType != "" {
					fmt.Fprintf(&b, "MapType: %q, ", f.MapType)
				}
				if f.Default != "" {
					fmt.Fprintf(&b, "Default: %q, ", f.Default)
				}
				if f.Required != "" {
					fmt.Fprintf(&b, "Required: %q, ", f.Required)
				}
				if f.Hidden {
					b.WriteString("Hidden: true, ")
				}
				if f.OpenEnded {
					b.WriteString("OpenEnded: true, ")
				}
				b.WriteString("},\n")
			}
			b.WriteString("},\n")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
