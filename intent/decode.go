package intent

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Src records where an object and each of its fields were written. Every
// schema struct embeds it; the decoder fills it in.
type Src struct {
	loc    Loc
	fields map[string]Loc
}

// Loc is where the object starts.
func (s Src) Loc() Loc { return s.loc }

// At is where a field was written, or the object's own location with the
// field's path when the field was not written (a default applies).
func (s Src) At(field string) Loc {
	if l, ok := s.fields[field]; ok {
		return l
	}
	l := s.loc
	l.Field = joinField(s.loc.Field, field)
	return l
}

// Has reports whether the field was written in the file.
func (s Src) Has(field string) bool {
	_, ok := s.fields[field]
	return ok
}

var srcType = reflect.TypeOf(Src{})

// scalar is implemented by schema types that parse their own text, such as
// sizes with units. Errors of type *codedError keep their code.
type scalar interface {
	parseScalar(text string, tag string) error
}

type codedError struct {
	code string
	msg  string
}

func (e *codedError) Error() string { return e.msg }

func codedf(code, format string, args ...any) error {
	return &codedError{code: code, msg: fmt.Sprintf(format, args...)}
}

// decoder turns a yaml.v3 node tree into schema structs, reporting unknown
// keys, wrong types, duplicate keys and bad values with their positions.
type decoder struct {
	file  string
	diags *Diagnostics
	types typeCache
	// budget bounds the values decoded, so aliases that expand one anchor
	// many times over cannot blow a small document up (a "billion laughs").
	budget    int
	exhausted bool
	// ports counts the ports that ranges expand to, across every file of
	// the fabric.
	ports *portBudget
}

// newDecoder sizes the budget from the document: without aliases every
// node is decoded a few times at most (a pointer, then its value).
func newDecoder(file string, diags *Diagnostics, root *yaml.Node, types typeCache) *decoder {
	return &decoder{file: file, diags: diags, types: types, budget: 8*countNodes(root) + 10000}
}

// typeCache holds what the decoder reads from struct tags, once per type
// rather than once per object: large intents have tens of thousands.
type typeCache map[reflect.Type]*structInfo

type structInfo struct {
	src      int   // index of the Src field, or -1
	sections []int // index of the Sections field, nil if none
	fields   map[string]*fieldInfo
	required []string // sorted
}

type fieldInfo struct {
	index []int
	enum  []string // allowed values, if the field is an enumeration
}

func (c typeCache) info(t reflect.Type) *structInfo {
	if si, ok := c[t]; ok {
		return si
	}
	si := &structInfo{src: -1, fields: map[string]*fieldInfo{}}
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type == srcType {
			si.src = i
		}
	}
	for name, f := range schemaFields(t) {
		fi := &fieldInfo{index: f.Index}
		if e := f.Tag.Get("enum"); e != "" {
			fi.enum = strings.Split(e, "|")
		}
		if f.Tag.Get("rf") == "required" {
			si.required = append(si.required, name)
		}
		si.fields[name] = fi
	}
	sort.Strings(si.required)
	si.sections = sectionsIndex(t)
	c[t] = si
	return si
}

// countNodes counts the nodes of a document without following aliases.
func countNodes(n *yaml.Node) int {
	c := 1
	for _, child := range n.Content {
		c += countNodes(child)
	}
	return c
}

func (d *decoder) loc(n *yaml.Node, field string) Loc {
	return Loc{File: d.file, Line: n.Line, Col: n.Column, Field: field}
}

func joinField(parent, field string) string {
	if parent == "" {
		return field
	}
	if strings.HasPrefix(field, "[") {
		return parent + field
	}
	return parent + "." + field
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, field string) {
	if d.budget--; d.budget < 0 {
		if !d.exhausted {
			d.exhausted = true
			d.diags.Errorf(d.loc(n, field), CodeSyntax, "the document expands aliases too often; write the values out or share them with groups")
		}
		return
	}
	n = resolveAlias(n)
	if v.CanAddr() {
		if s, ok := v.Addr().Interface().(scalar); ok {
			if n.Kind != yaml.ScalarNode && !acceptsSequence(v) {
				d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected a scalar value, got %s", kindName(n))
				return
			}
			text := n.Value
			if n.Kind == yaml.SequenceNode {
				var bad *yaml.Node
				if text, bad = joinSequence(n); bad != nil {
					d.diags.Errorf(d.loc(bad, field), CodeWrongType, "expected a list of scalar values, got %s in it", kindName(bad))
					return
				}
			}
			if err := s.parseScalar(text, n.Tag); err != nil {
				code := CodeWrongType
				if ce, ok := err.(*codedError); ok {
					code = ce.code
				}
				d.diags.Errorf(d.loc(n, field), code, "%s", err.Error())
			} else if pn, ok := s.(*PortNames); ok {
				d.countPorts(pn, n, field)
			}
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		if elem := v.Type().Elem(); isScalarType(elem) {
			// A value that does not decode stays unset, so the default
			// applies and lint does not report the zero value as well.
			before := len(*d.diags)
			nv := reflect.New(elem)
			d.decode(n, nv.Elem(), field)
			if len(*d.diags) == before {
				v.Set(nv)
			}
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), field)
	case reflect.Struct:
		d.decodeStruct(n, v, field)
	case reflect.Slice:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected a list, got %s", kindName(n))
			return
		}
		before := len(*d.diags)
		out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			d.decode(item, out.Index(i), fmt.Sprintf("%s[%d]", field, i))
		}
		// A list of numbers with a bad item stays unset, like a bad scalar;
		// lists of objects keep their good items.
		if len(*d.diags) == before || !isScalarType(v.Type().Elem()) {
			v.Set(out)
		}
	case reflect.Map:
		d.decodeMap(n, v, field)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected a string, got %s", kindName(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Int, reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected an integer, got %s", describe(n))
			return
		}
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected an integer, got %q", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!float" && n.Tag != "!!int") {
			d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected a number, got %s", describe(n))
			return
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected a number, got %q", n.Value)
			return
		}
		v.SetFloat(f)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected true or false, got %s", describe(n))
			return
		}
		v.SetBool(n.Value == "true" || n.Value == "True" || n.Value == "TRUE")
	default:
		panic("intent: unsupported schema kind " + v.Kind().String())
	}
}

// countPorts charges a port list to the fabric's budget and drops it once
// the fabric is over the limit, so what is expanded stays bounded.
func (d *decoder) countPorts(pn *PortNames, n *yaml.Node, field string) {
	ok, first := d.ports.take(len(pn.Names))
	if ok {
		return
	}
	pn.Names = nil
	if first {
		d.diags.Errorf(d.loc(n, field), CodeLimit, "the fabric has more than %d switch ports with these (--intent-max-ports)", d.ports.limit)
	}
}

// isScalarType reports whether values of t are written as one YAML scalar:
// plain kinds, and schema types that parse their own text (Bytes, Address).
func isScalarType(t reflect.Type) bool {
	if reflect.PointerTo(t).Implements(scalarType) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map, reflect.Pointer:
		return false
	}
	return true
}

var scalarType = reflect.TypeOf((*scalar)(nil)).Elem()

// acceptsSequence lets list-valued scalars (port names) take a YAML list.
func acceptsSequence(v reflect.Value) bool {
	_, ok := v.Addr().Interface().(interface{ acceptsList() })
	return ok
}

// joinSequence joins a list of scalars with commas, or returns the first
// item that is not a scalar.
func joinSequence(n *yaml.Node) (string, *yaml.Node) {
	parts := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		c = resolveAlias(c)
		if c.Kind != yaml.ScalarNode {
			return "", c
		}
		parts = append(parts, c.Value)
	}
	return strings.Join(parts, ","), nil
}

// resolveAlias follows an alias to the node its anchor names.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, field string) {
	si := d.types.info(v.Type())
	var src *Src
	if si.src >= 0 {
		src = v.Field(si.src).Addr().Interface().(*Src)
		src.loc = d.loc(n, field)
		src.fields = make(map[string]Loc, len(n.Content)/2)
	}
	if n.Kind != yaml.MappingNode {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			d.checkRequired(n, si, nil, field)
			return
		}
		d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected a mapping, got %s", kindName(n))
		return
	}
	// Known keys are recorded in src.fields as they are decoded, which
	// also finds duplicates; unknown ones only need a map when there are any.
	seen := src.fields
	if src == nil {
		seen = map[string]Loc{}
	}
	var unknown map[string]int
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		name := k.Value
		childField := joinField(field, name)
		prev, dup := seen[name].Line, seen[name].Line != 0
		if !dup {
			prev, dup = unknown[name]
		}
		if dup {
			d.diags.Errorf(d.loc(k, childField), CodeDuplicateKey, "duplicate key %q (first at line %d)", name, prev)
			continue
		}
		fi, ok := si.fields[name]
		if !ok && si.sections != nil && k.Tag != "!!merge" {
			// A platform's own section: the platform decodes it, and lint
			// reports a key that names no platform.
			seen[name] = d.loc(k, childField)
			d.section(v.FieldByIndex(si.sections), name, k, val, childField)
			continue
		}
		if !ok {
			if unknown == nil {
				unknown = map[string]int{}
			}
			unknown[name] = k.Line
			if k.Tag == "!!merge" {
				d.diags.Errorf(d.loc(k, childField), CodeUnknownField, "YAML merge keys (<<) are not supported; share attributes with groups")
				continue
			}
			d.diags.Errorf(d.loc(k, childField), CodeUnknownField, "unknown field %q%s", name, suggest(name, si.fields))
			continue
		}
		seen[name] = d.loc(k, childField)
		fv := v.FieldByIndex(fi.index)
		d.decode(val, fv, childField)
		if fi.enum != nil {
			d.checkEnum(val, fv, fi.enum, childField)
		}
	}
	d.checkRequired(n, si, seen, field)
}

// schemaFields maps YAML names to struct fields, flattening ",inline" ones.
func schemaFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == srcType {
			continue
		}
		if strings.HasSuffix(f.Tag.Get("yaml"), ",inline") && f.Type.Kind() == reflect.Struct {
			for name, inner := range schemaFields(f.Type) {
				inner.Index = append([]int{i}, inner.Index...)
				out[name] = inner
			}
			continue
		}
		if name := yamlName(f); name != "" {
			out[name] = f
		}
	}
	return out
}

func (d *decoder) checkRequired(n *yaml.Node, si *structInfo, seen map[string]Loc, field string) {
	for _, name := range si.required {
		if _, ok := seen[name]; !ok {
			d.diags.Errorf(d.loc(n, joinField(field, name)), CodeMissing, "required field %q is missing", name)
		}
	}
}

func (d *decoder) checkEnum(n *yaml.Node, v reflect.Value, opts []string, field string) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.String {
		return
	}
	for _, o := range opts {
		if v.String() == o {
			return
		}
	}
	d.diags.Errorf(d.loc(n, field), CodeBadEnum, "%q is not one of %s", v.String(), strings.Join(opts, ", "))
}

func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.MappingNode {
		d.diags.Errorf(d.loc(n, field), CodeWrongType, "expected a mapping, got %s", kindName(n))
		return
	}
	m := reflect.MakeMap(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			d.diags.Errorf(d.loc(k, joinField(field, k.Value)), CodeDuplicateKey, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, elem, joinField(field, k.Value))
		m.SetMapIndex(reflect.ValueOf(k.Value), elem)
	}
	v.Set(m)
}

func yamlName(f reflect.StructField) string {
	tag := f.Tag.Get("yaml")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return ""
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return "a scalar"
	}
	return "an unsupported node"
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	return kindName(n)
}

// suggest names the closest known field, for typos.
func suggest(name string, known map[string]*fieldInfo) string {
	best, bestDist := "", 3
	var names []string
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if dist := levenshtein(strings.ToLower(name), strings.ToLower(k)); dist < bestDist {
			best, bestDist = k, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
