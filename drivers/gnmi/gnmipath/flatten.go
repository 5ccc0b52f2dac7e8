package gnmipath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
)

// maxDepth bounds recursion on hostile input.
const maxDepth = 256

// Flatten decodes a JSON or JSON_IETF value found at base and adds its
// leaves to into, keyed by canonical path string. When base ends in a
// keyed list element, the entry's key members are skipped (they are in the
// path already).
func Flatten(base *gnmipb.Path, raw []byte, into devcfg.Paths) error {
	v, err := decode(raw)
	if err != nil {
		return fmt.Errorf("value at %s: %w", Format(base), err)
	}
	f := flattener{oc: IsOpenConfig(base.GetOrigin()), into: into, origin: base.GetOrigin()}
	elems := Elems(base)
	var skip map[string]string
	if n := len(elems); n > 0 && len(elems[n-1].GetKey()) > 0 {
		skip = elems[n-1].GetKey()
	}
	if obj, ok := v.(map[string]any); ok && skip != nil && f.oc {
		rest, err := withoutKeys(obj, skip)
		if err != nil {
			return fmt.Errorf("value at %s: %w", Format(base), err)
		}
		if len(rest) == 0 {
			return nil // a list entry holding only its keys
		}
		v = rest
	}
	return f.walk(append([]*gnmipb.PathElem(nil), elems...), v, 0)
}

// withoutKeys drops the scalar members of a list entry, which by the
// OpenConfig convention are its keys and must agree with the path's.
func withoutKeys(obj map[string]any, keys map[string]string) (map[string]any, error) {
	out := make(map[string]any, len(obj))
	for name, v := range obj {
		if !isScalar(v) {
			out[name] = v
			continue
		}
		short := stripPrefix(name)
		if want, isKey := keys[short]; !isKey || scalarText(v) != want {
			return nil, fmt.Errorf("list entry member %s=%s contradicts the path's keys", short, scalarText(v))
		}
	}
	return out, nil
}

type flattener struct {
	oc     bool
	origin string
	into   devcfg.Paths
}

func (f flattener) path(elems []*gnmipb.PathElem) string {
	return Format(&gnmipb.Path{Origin: f.origin, Elem: elems})
}

func (f flattener) walk(elems []*gnmipb.PathElem, v any, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("value nested deeper than %d at %s", maxDepth, f.path(elems))
	}
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			f.into[f.path(elems)] = devcfg.Empty
			return nil
		}
		seen := make(map[string]bool, len(t))
		for name, child := range t {
			if f.oc {
				name = stripPrefix(name)
			}
			if name == "" {
				return fmt.Errorf("empty member name under %s", f.path(elems))
			}
			if seen[name] {
				return fmt.Errorf("member %q appears twice under %s", name, f.path(elems))
			}
			seen[name] = true
			e := &gnmipb.PathElem{Name: name}
			if f.oc {
				if entries, ok := listEntries(child); ok {
					if err := f.list(elems, e, entries, depth); err != nil {
						return err
					}
					continue
				}
			}
			if err := f.walk(append(elems[:len(elems):len(elems)], e), child, depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		// An array straight at a list element (a Get of /a/list) holds entries.
		if n := len(elems); f.oc && n > 0 && len(elems[n-1].GetKey()) == 0 {
			if entries, ok := listEntries(t); ok {
				return f.list(elems[:n-1], elems[n-1], entries, depth)
			}
		}
	}
	f.into[f.path(elems)] = canonical(v)
	return nil
}

// list adds each entry of a YANG list named by e under parent.
func (f flattener) list(parent []*gnmipb.PathElem, e *gnmipb.PathElem, entries []map[string]any, depth int) error {
	for _, entry := range entries {
		keyed := &gnmipb.PathElem{Name: e.GetName(), Key: map[string]string{}}
		rest := map[string]any{}
		for name, v := range entry {
			short := stripPrefix(name)
			if isScalar(v) {
				if _, dup := keyed.Key[short]; dup || short == "" {
					return fmt.Errorf("list %s: bad or repeated key %q", e.GetName(), name)
				}
				keyed.Key[short] = scalarText(v)
				continue
			}
			rest[name] = v
		}
		elems := append(parent[:len(parent):len(parent)], keyed)
		if len(rest) == 0 {
			continue // only keys: nothing to hold as a leaf
		}
		if err := f.walk(elems, rest, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// listEntries reports whether v is a YANG list: a non-empty array of
// objects that each have at least one scalar member (the keys).
func listEntries(v any) ([]map[string]any, bool) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, false
	}
	out := make([]map[string]any, 0, len(arr))
	for _, x := range arr {
		obj, ok := x.(map[string]any)
		if !ok {
			return nil, false
		}
		hasKey := false
		for _, m := range obj {
			if isScalar(m) {
				hasKey = true
				break
			}
		}
		if !hasKey {
			return nil, false
		}
		out = append(out, obj)
	}
	return out, true
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, json.Number, bool:
		return true
	}
	return false
}

// scalarText is a key value as it appears in a path predicate.
func scalarText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		if t {
			return "true"
		}
		return "false"
	}
	return ""
}

// stripPrefix drops an RFC 7951 module prefix from a member name.
func stripPrefix(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func decode(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// canonical re-encodes a decoded value: sorted members, numbers verbatim.
func canonical(v any) devcfg.Value {
	b, err := json.Marshal(v)
	if err != nil {
		return devcfg.Value("null")
	}
	return devcfg.Value(b)
}

// CanonicalValue re-encodes raw JSON canonically.
func CanonicalValue(raw []byte) (devcfg.Value, error) {
	v, err := decode(raw)
	if err != nil {
		return "", err
	}
	return canonical(v), nil
}

// Encode writes leaves as the flat JSON object handed to Platform.Parse:
// {"<path>": <value>, ...} with keys sorted.
func Encode(leaves devcfg.Paths) ([]byte, error) {
	m := make(map[string]json.RawMessage, len(leaves))
	for p, v := range leaves {
		if !json.Valid([]byte(v)) {
			return nil, fmt.Errorf("value at %s is not JSON: %q", p, v)
		}
		m[p] = json.RawMessage(v)
	}
	return json.Marshal(m)
}

// Decode reads the flat JSON object back into paths: the default Parse
// for platforms that give none.
func Decode(raw []byte) (devcfg.Paths, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("flat gNMI JSON: %w", err)
	}
	out := make(devcfg.Paths, len(m))
	for p, v := range m {
		cv, err := CanonicalValue(v)
		if err != nil {
			return nil, fmt.Errorf("flat gNMI JSON at %s: %w", p, err)
		}
		out[p] = cv
	}
	return out, nil
}

// Rel returns p's elements below base, or false when p is not under base.
func Rel(base, p *gnmipb.Path) ([]*gnmipb.PathElem, bool) {
	if Origin(base.GetOrigin()) != Origin(p.GetOrigin()) {
		return nil, false
	}
	be, pe := Elems(base), Elems(p)
	if len(pe) < len(be) {
		return nil, false
	}
	for i, e := range be {
		if e.GetName() != pe[i].GetName() {
			return nil, false
		}
		// A keyless base element selects every entry of the list.
		if len(e.GetKey()) > 0 && !sameKeys(e.GetKey(), pe[i].GetKey()) {
			return nil, false
		}
	}
	return pe[len(be):], true
}

func sameKeys(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
