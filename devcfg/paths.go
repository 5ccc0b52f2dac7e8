package devcfg

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Paths maps a path to a typed value. Path syntax is the platform's own:
// gNMI-style "/a/b[k=v]/c" for OpenConfig, "/TABLE/key/field" for SONiC
// config_db, "qos/pfc/default-global/..." for NVUE, the statement words for
// Junos. An optional "origin:" prefix selects a gNMI origin.
type Paths map[string]Value

// Value is the canonical JSON text of a value, so typed encodings survive:
// RFC 7951 puts uint64 in a string ("153600") and uint16 in a number (9216).
type Value string

// String makes a JSON string value, as encoding/json writes it. Plain
// ASCII text (names, enums, CLI lines with newlines) skips the encoder:
// rendering thousands of switches spends its time here otherwise.
func String(s string) Value {
	newlines := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n':
			newlines++
		case c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&':
			b, _ := json.Marshal(s)
			return Value(b)
		}
	}
	if newlines == 0 {
		return Value(`"` + s + `"`)
	}
	var b strings.Builder
	b.Grow(len(s) + newlines + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			b.WriteString(`\n`)
		} else {
			b.WriteByte(s[i])
		}
	}
	b.WriteByte('"')
	return Value(b.String())
}

// Int makes a JSON number value.
func Int(n int64) Value { return Value(strconv.FormatInt(n, 10)) }

// Uint64 makes an RFC 7951 uint64: a JSON string of digits.
func Uint64(n uint64) Value { return String(strconv.FormatUint(n, 10)) }

// Bool makes a JSON boolean value.
func Bool(b bool) Value { return Value(strconv.FormatBool(b)) }

// Empty is the JSON value of a presence container or empty object.
const Empty Value = "{}"

// JSON wraps any JSON-encodable value.
func JSON(v any) Value {
	b, err := json.Marshal(v)
	if err != nil {
		panic("devcfg: unencodable value: " + err.Error())
	}
	return Value(b)
}

// Text is the human form: strings without quotes, everything else as JSON.
func (v Value) Text() string {
	var s string
	if strings.HasPrefix(string(v), `"`) && json.Unmarshal([]byte(v), &s) == nil {
		return s
	}
	return string(v)
}

// Any decodes the value.
func (v Value) Any() any {
	var out any
	d := json.NewDecoder(strings.NewReader(string(v)))
	d.UseNumber()
	if err := d.Decode(&out); err != nil {
		return string(v)
	}
	return out
}

// Clone returns a copy.
func (p Paths) Clone() Paths {
	if p == nil {
		return nil
	}
	out := make(Paths, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// Keys returns the paths in sorted order.
func (p Paths) Keys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Text renders "path = value" lines in sorted order.
func (p Paths) Text() string {
	var b strings.Builder
	for _, k := range p.Keys() {
		b.WriteString(k)
		b.WriteString(" = ")
		b.WriteString(string(p[k]))
		b.WriteByte('\n')
	}
	return b.String()
}

// NaturalKeys returns the paths in natural order: runs of digits compare
// as numbers, so "fill-level 5" comes before "fill-level 20" and "dscp 9"
// before "dscp 10". Statement platforms (Junos, NVUE) print and push in
// this order, where a list's entries pair up by position.
func (p Paths) NaturalKeys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return NaturalLess(keys[i], keys[j]) })
	return keys
}

// NaturalLess orders strings with digit runs compared by value (then by
// length, so "007" and "7" still differ), the rest byte by byte.
func NaturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if da != db {
				return da < db
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
