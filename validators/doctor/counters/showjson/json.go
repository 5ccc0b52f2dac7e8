package showjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// decode reads the command's JSON object. Text around it is skipped: an
// echo or banner before it, a Junos "{master:0}" line before or after it,
// the prompt after it.
func decode(out []byte) (map[string]any, error) {
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

// num reads a counter given as a number or a string of digits
// (NX-OS and Junos print counters as strings, EOS some of them).
func num(v any) (uint64, bool) {
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

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// rows is an NX-OS ROW_ value: one object when the table has one row, an
// array of objects otherwise.
func rows(v any) []map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return []map[string]any{x}
	case []any:
		var out []map[string]any
		for _, e := range x {
			if m := obj(e); m != nil {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// table is NX-OS's TABLE_<name>.ROW_<name> under m.
func table(m map[string]any, name string) []map[string]any {
	return rows(obj(m["TABLE_"+name])["ROW_"+name])
}

// leadingInt reads the priority or queue number (0-7, 802.1p's range) a
// label starts with: "3", "3 ", "TC3" after the prefix is cut. ok is false
// for labels such as "CONTROL QOS GROUP".
func leadingInt(s string) (int, bool) {
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

// label is a JSON value used as a key (a queue or priority number).
func label(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}
