package gnmipath

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
)

// OpenConfig is the default origin: paths without a prefix belong to it.
const OpenConfig = "openconfig"

// ErrSyntax marks a malformed path string.
var ErrSyntax = errors.New("malformed gNMI path")

// Origin returns the canonical origin name: "" and "openconfig" are both
// openconfig.
func Origin(o string) string {
	if o == "" {
		return OpenConfig
	}
	return o
}

// IsOpenConfig reports whether the origin follows OpenConfig list
// conventions.
func IsOpenConfig(origin string) bool { return Origin(origin) == OpenConfig }

// SplitOrigin splits "origin:/a/b" into origin and path. A string starting
// with "/" has no origin.
func SplitOrigin(s string) (origin, rest string) {
	if strings.HasPrefix(s, "/") {
		return "", s
	}
	i := strings.Index(s, ":")
	if i <= 0 || strings.ContainsAny(s[:i], "/[]\\") {
		return "", s
	}
	rest = s[i+1:]
	if rest != "" && !strings.HasPrefix(rest, "/") {
		return "", s
	}
	return s[:i], rest
}

// Parse reads a path string. The origin is left empty for openconfig.
func Parse(s string) (*gnmipb.Path, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%w %q: not UTF-8", ErrSyntax, s)
	}
	origin, rest := SplitOrigin(s)
	if origin == OpenConfig {
		origin = ""
	}
	p := &gnmipb.Path{Origin: origin}
	if rest == "" || rest == "/" {
		return p, nil
	}
	if !strings.HasPrefix(rest, "/") {
		return nil, fmt.Errorf("%w %q: must start with '/'", ErrSyntax, s)
	}
	i := 1
	for i <= len(rest) {
		name, n, err := scanName(rest[i:])
		if err != nil {
			return nil, fmt.Errorf("%w %q at %d: %v", ErrSyntax, s, i, err)
		}
		i += n
		e := &gnmipb.PathElem{Name: name}
		for i < len(rest) && rest[i] == '[' {
			k, v, n, err := scanKey(rest[i+1:])
			if err != nil {
				return nil, fmt.Errorf("%w %q at %d: %v", ErrSyntax, s, i, err)
			}
			if e.Key == nil {
				e.Key = map[string]string{}
			}
			if _, dup := e.Key[k]; dup {
				return nil, fmt.Errorf("%w %q: key %q given twice", ErrSyntax, s, k)
			}
			e.Key[k] = v
			i += 1 + n
		}
		p.Elem = append(p.Elem, e)
		if i == len(rest) {
			break
		}
		if rest[i] != '/' {
			return nil, fmt.Errorf("%w %q at %d: expected '/'", ErrSyntax, s, i)
		}
		i++
		if i == len(rest) {
			return nil, fmt.Errorf("%w %q: trailing '/'", ErrSyntax, s)
		}
	}
	return p, nil
}

// MustParse parses a path known to be valid (tests, constants).
func MustParse(s string) *gnmipb.Path {
	p, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}

// scanName reads an element name up to '/', '[' or the end.
func scanName(s string) (string, int, error) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		switch c {
		case '\\':
			if i+1 >= len(s) {
				return "", 0, errors.New("dangling escape")
			}
			b.WriteByte(s[i+1])
			i += 2
			continue
		case '/', '[':
			if b.Len() == 0 {
				return "", 0, errors.New("empty element name")
			}
			return b.String(), i, nil
		case ']':
			return "", 0, errors.New("unexpected ']'")
		}
		b.WriteByte(c)
		i++
	}
	if b.Len() == 0 {
		return "", 0, errors.New("empty element name")
	}
	return b.String(), i, nil
}

// scanKey reads "name=value]" and returns the bytes consumed.
func scanKey(s string) (k, v string, n int, err error) {
	var b strings.Builder
	i := 0
	for ; i < len(s) && s[i] != '='; i++ {
		switch s[i] {
		case '\\':
			if i+1 >= len(s) {
				return "", "", 0, errors.New("dangling escape")
			}
			i++
		case ']':
			return "", "", 0, errors.New("key without '='")
		}
		b.WriteByte(s[i])
	}
	if i >= len(s) {
		return "", "", 0, errors.New("unterminated key")
	}
	if b.Len() == 0 {
		return "", "", 0, errors.New("empty key name")
	}
	k = b.String()
	b.Reset()
	for i++; i < len(s) && s[i] != ']'; i++ {
		if s[i] == '\\' {
			if i+1 >= len(s) {
				return "", "", 0, errors.New("dangling escape")
			}
			i++
		}
		b.WriteByte(s[i])
	}
	if i >= len(s) {
		return "", "", 0, errors.New("unterminated key")
	}
	return k, b.String(), i + 1, nil
}

// Format writes the canonical path string: origin prefix unless
// openconfig, keys sorted by name, special characters escaped.
func Format(p *gnmipb.Path) string {
	var b strings.Builder
	if o := p.GetOrigin(); o != "" && o != OpenConfig {
		b.WriteString(o)
		b.WriteByte(':')
	}
	elems := Elems(p)
	if len(elems) == 0 {
		b.WriteByte('/')
		return b.String()
	}
	for _, e := range elems {
		b.WriteByte('/')
		writeElem(&b, e)
	}
	return b.String()
}

func writeElem(b *strings.Builder, e *gnmipb.PathElem) {
	escape(b, e.GetName(), `\/[]`)
	keys := make([]string, 0, len(e.GetKey()))
	for k := range e.GetKey() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteByte('[')
		escape(b, k, `\=]`)
		b.WriteByte('=')
		escape(b, e.Key[k], `\]`)
		b.WriteByte(']')
	}
}

func escape(b *strings.Builder, s, special string) {
	if !strings.ContainsAny(s, special) {
		b.WriteString(s) // the common case: nothing to escape
		return
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(special, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
}

// Elems returns the path's elements, converting the deprecated string
// "element" form that old clients still send.
func Elems(p *gnmipb.Path) []*gnmipb.PathElem {
	//lint:ignore SA1019 reading the deprecated form is the point: old clients still send it
	element := p.GetElement()
	if len(p.GetElem()) > 0 || len(element) == 0 {
		return p.GetElem()
	}
	out := make([]*gnmipb.PathElem, 0, len(element))
	for _, s := range element {
		out = append(out, &gnmipb.PathElem{Name: s})
	}
	return out
}

// Join appends p's elements to prefix's; p's origin wins when set. In
// the openconfig origin, module prefixes on element names
// ("openconfig-qos:qos") are dropped, as RFC 7951 names mean the same node.
func Join(prefix, p *gnmipb.Path) *gnmipb.Path {
	out := &gnmipb.Path{Origin: prefix.GetOrigin(), Target: prefix.GetTarget()}
	if p.GetOrigin() != "" {
		out.Origin = p.GetOrigin()
	}
	if out.Origin == OpenConfig {
		out.Origin = ""
	}
	out.Elem = append(append(out.Elem, Elems(prefix)...), Elems(p)...)
	if out.Origin == "" {
		for i, e := range out.Elem {
			if short := stripPrefix(e.GetName()); short != e.GetName() {
				out.Elem[i] = &gnmipb.PathElem{Name: short, Key: e.GetKey()}
			}
		}
	}
	return out
}

// Child returns p extended by one element.
func Child(p *gnmipb.Path, e *gnmipb.PathElem) *gnmipb.Path {
	elems := make([]*gnmipb.PathElem, 0, len(p.GetElem())+1)
	elems = append(append(elems, p.GetElem()...), e)
	return &gnmipb.Path{Origin: p.GetOrigin(), Elem: elems}
}

// Under reports whether path string p equals base or lies below it.
// Both must be canonical (Format output).
func Under(p, base string) bool {
	if p == base {
		return true
	}
	if strings.HasSuffix(base, "/") { // root of an origin
		return strings.HasPrefix(p, base)
	}
	if !strings.HasPrefix(p, base) {
		return false
	}
	c := p[len(base)]
	return c == '/' || c == '['
}

// Canonical re-formats a path string (sorted keys, canonical escapes,
// "openconfig:" dropped).
func Canonical(s string) (string, error) {
	p, err := Parse(s)
	if err != nil {
		return "", err
	}
	return Format(p), nil
}

// SplitTarget splits "TARGET@/a/b" (or "TARGET@origin:/a/b") into the
// target and the path string. gNMI names a target in the request's prefix,
// not in a path: SONiC's gNMI server picks the Redis database that way
// (target COUNTERS_DB). A string without one has no target.
func SplitTarget(s string) (target, rest string) {
	at := strings.IndexByte(s, '@')
	if at <= 0 {
		return "", s
	}
	if strings.ContainsAny(s[:at], "/[]\\:=") {
		return "", s
	}
	return s[:at], s[at+1:]
}

// WithTarget is the path string SplitTarget reads back.
func WithTarget(target, path string) string {
	if target == "" {
		return path
	}
	return target + "@" + path
}
