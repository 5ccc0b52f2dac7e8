package observe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// DecodeJSON reads one JSON value keeping numbers as text: port IDs such
// as "541" come as numbers from some platforms.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// DecodeShowObject reads a show command's JSON object. Text around it is
// skipped: an echo or banner before it, a "{master:0}" line before or
// after it, the prompt after it.
func DecodeShowObject(out []byte) (map[string]any, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, errors.New("empty output, no JSON object")
	}
	var firstErr error
	for off := 0; off < len(out); {
		i := bytes.IndexByte(out[off:], '{')
		if i < 0 {
			break
		}
		dec := json.NewDecoder(bytes.NewReader(out[off+i:]))
		dec.UseNumber()
		var m map[string]any
		err := dec.Decode(&m)
		if err == nil {
			return m, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		// The next line that opens an object.
		nl := bytes.IndexByte(out[off+i:], '\n')
		if nl < 0 {
			break
		}
		off += i + nl + 1
	}
	if firstErr == nil {
		firstErr = errors.New("no object")
	}
	return nil, fmt.Errorf("output is not a JSON object: %w", firstErr)
}

// Str is a scalar as trimmed text; "" for anything else.
func Str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	}
	return ""
}

// Label is a JSON value used as a key (a queue or priority number),
// untrimmed.
func Label(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// List is v as a list: several platforms write one row as an object and
// several as an array.
func List(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}

// Obj is v as an object, or nil.
func Obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// Field reads a key ignoring a YANG module prefix (openconfig-lldp:state).
func Field(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	for k, v := range m {
		if _, name, ok := strings.Cut(k, ":"); ok && name == key {
			return v
		}
	}
	return nil
}

// SortedKeys are m's keys, sorted.
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Num reads a counter given as a number or a string of digits.
func Num(v any) (uint64, bool) {
	switch x := v.(type) {
	case json.Number:
		n, err := strconv.ParseUint(x.String(), 10, 64)
		return n, err == nil
	case string:
		n, err := strconv.ParseUint(strings.TrimSpace(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// Rows is a table value as objects: one object when the table has one
// row, an array of objects otherwise.
func Rows(v any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return []map[string]any{x}
	case []any:
		var out []map[string]any
		for _, e := range x {
			if m := Obj(e); m != nil {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// LeadingInt reads the priority or queue number (0-7, 802.1p's range) a
// label starts with: "3", "3 ", "TC3" after the prefix is cut. ok is false
// for labels such as "CONTROL QOS GROUP".
func LeadingInt(s string) (int, bool) {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end != 1 || s[0] > '7' {
		return 0, false
	}
	return int(s[0] - '0'), true
}
