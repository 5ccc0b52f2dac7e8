package intent

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Section is one platform's own settings of a switch or group: the value
// under a key named after the platform, kept as written. The intent does
// not know what a platform takes; the platform decodes it (Decode) and
// lint checks it through the platform registry (CheckSections).
type Section struct {
	// Node is the value as parsed, with its line numbers.
	Node *yaml.Node
	// At is where the key was written (its field path names the section).
	At Loc
	// decoded keeps Decode's result per target type: a platform decodes
	// its section on every render, and the node never changes.
	decoded *sectionMemo
}

type sectionMemo struct {
	mu     sync.Mutex
	byType map[reflect.Type]decodedSection
}

type decodedSection struct {
	value reflect.Value
	diags Diagnostics
}

// Decode decodes the section into the schema struct into points at, as
// the loader decodes the rest of the intent: yaml tags, Src, units, and
// diagnostics naming file, line and field.
func (s Section) Decode(into any) Diagnostics {
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("intent: Section.Decode needs a non-nil pointer")
	}
	if s.Node == nil {
		return nil
	}
	if s.decoded == nil {
		return s.decode(v)
	}
	t := v.Elem().Type()
	s.decoded.mu.Lock()
	defer s.decoded.mu.Unlock()
	if c, ok := s.decoded.byType[t]; ok {
		v.Elem().Set(c.value)
		return append(Diagnostics(nil), c.diags...)
	}
	diags := s.decode(v)
	if s.decoded.byType == nil {
		s.decoded.byType = map[reflect.Type]decodedSection{}
	}
	c := reflect.New(t).Elem()
	c.Set(v.Elem())
	s.decoded.byType[t] = decodedSection{value: c, diags: diags}
	return append(Diagnostics(nil), diags...)
}

func (s Section) decode(v reflect.Value) Diagnostics {
	var diags Diagnostics
	d := newDecoder(s.At.File, &diags, s.Node, typeCache{})
	d.decode(s.Node, v.Elem(), s.At.Field)
	return diags
}

// Sections are the platform sections of a switch or group, by platform
// name. Written keys that are not part of the schema land here; lint
// accepts only the names of platforms that take settings.
type Sections struct {
	m map[string]Section
}

var sectionsType = reflect.TypeOf(Sections{})

// Section returns the section written under name.
func (s Sections) Section(name string) (Section, bool) {
	sec, ok := s.m[name]
	return sec, ok
}

// SectionNames are the names of the sections, sorted.
func (s Sections) SectionNames() []string { return mapKeys(s.m) }

// SetSection sets one section, copying the map first: resolved switches
// share their group's.
func (s *Sections) SetSection(name string, sec Section) {
	m := make(map[string]Section, len(s.m)+1)
	for k, v := range s.m {
		m[k] = v
	}
	m[name] = sec
	s.m = m
}

// layer puts src's sections over dst's, each one whole: a device's
// section replaces its group's.
func (s *Sections) layer(src Sections) {
	if len(src.m) == 0 {
		return
	}
	if len(s.m) == 0 {
		s.m = src.m
		return
	}
	m := make(map[string]Section, len(s.m)+len(src.m))
	for k, v := range s.m {
		m[k] = v
	}
	for k, v := range src.m {
		m[k] = v
	}
	s.m = m
}

// Key is what the sections set, as a key for caches of a render: equal
// keys, equal settings. Positions and styles are left out.
func (s Sections) Key() string {
	if len(s.m) == 0 {
		return ""
	}
	var b strings.Builder
	for _, name := range s.SectionNames() {
		b.WriteString(strconv.Quote(name))
		b.WriteByte('=')
		budget := 10000
		nodeKey(&b, s.m[name].Node, &budget)
		b.WriteByte(';')
	}
	return b.String()
}

// nodeKey writes a node's content; the budget stops aliases that nest
// into themselves.
func nodeKey(b *strings.Builder, n *yaml.Node, budget *int) {
	if *budget--; *budget < 0 || n == nil {
		b.WriteString("…")
		return
	}
	n = resolveAlias(n)
	switch n.Kind {
	case yaml.ScalarNode:
		b.WriteString(n.ShortTag())
		b.WriteString(strconv.Quote(n.Value))
	case yaml.MappingNode, yaml.SequenceNode:
		open, end := byte('['), byte(']')
		if n.Kind == yaml.MappingNode {
			open, end = '{', '}'
		}
		b.WriteByte(open)
		for _, c := range n.Content {
			nodeKey(b, c, budget)
			b.WriteByte(',')
		}
		b.WriteByte(end)
	default:
		fmt.Fprintf(b, "?%d", n.Kind)
	}
}

// SectionDecoder decodes and checks one platform's section.
type SectionDecoder func(Section) Diagnostics

// CheckSections checks the sections of every group and switch as written:
// a key that names no platform in decoders is an unknown field (RF002, as
// the loader reports other keys), and each known one is decoded.
func CheckSections(r *Resolved, decoders map[string]SectionDecoder) Diagnostics {
	var diags Diagnostics
	types := typeCache{}
	check := func(spec reflect.Type, s Sections) {
		for _, name := range s.SectionNames() {
			sec := s.m[name]
			if dec, ok := decoders[name]; ok {
				diags = append(diags, dec(sec)...)
				continue
			}
			// The suggestion is the loader's, over the schema's keys and
			// the sections that would be accepted.
			known := map[string]*fieldInfo{}
			for k, v := range types.info(spec).fields {
				known[k] = v
			}
			for k := range decoders {
				known[k] = nil
			}
			diags.Errorf(sec.At, CodeUnknownField, "unknown field %q%s", name, suggest(name, known))
		}
	}
	for _, name := range mapKeys(r.Groups) {
		check(reflect.TypeOf(GroupSpec{}), r.Groups[name].Sections)
	}
	for _, sw := range r.Switches {
		if sw.Spec != nil {
			check(reflect.TypeOf(SwitchSpec{}), sw.Spec.Sections)
		}
	}
	return diags
}

// section records a key the schema does not have as a platform section;
// null is not written, as for any other object.
func (d *decoder) section(dst reflect.Value, name string, k, val *yaml.Node, field string) {
	if n := resolveAlias(val); n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	s := dst.Addr().Interface().(*Sections)
	if s.m == nil {
		s.m = map[string]Section{}
	}
	s.m[name] = Section{Node: val, At: d.loc(k, field), decoded: &sectionMemo{}}
}

// sectionsIndex is the index of a struct's Sections field, also through
// inline structs; nil when it has none.
func sectionsIndex(t reflect.Type) []int {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == sectionsType {
			return []int{i}
		}
		if strings.HasSuffix(f.Tag.Get("yaml"), ",inline") && f.Type.Kind() == reflect.Struct {
			if in := sectionsIndex(f.Type); in != nil {
				return append([]int{i}, in...)
			}
		}
	}
	return nil
}
