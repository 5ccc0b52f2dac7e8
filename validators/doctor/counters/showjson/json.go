package showjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// decode reads one JSON object, keeping numbers exact.
func decode(out []byte) (map[string]any, error) {
	out = bytes.TrimSpace(out)
	if i := bytes.IndexByte(out, '{'); i > 0 {
		// A prompt echo or banner before the object.
		out = out[i:]
	}
	if len(out) == 0 {
		return nil, errors.New("empty output, no JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("output is not a JSON object: %w", err)
	}
	return m, nil
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
