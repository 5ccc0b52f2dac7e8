package devcfg

import (
	"bytes"
	"encoding/json"
	"errors"
)

// DecodeObject reads a document that must be exactly one JSON object, as
// the parsers of JSON running configurations take it.
func DecodeObject(raw []byte) (map[string]json.RawMessage, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, errors.New("the document is not an object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the document")
	}
	return top, nil
}

// ParseValue re-encodes a JSON value compactly, strings as String writes
// them and numbers verbatim, so parsed and rendered values compare byte
// for byte.
func ParseValue(raw json.RawMessage) (Value, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return String(s), nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return Value(b), nil
}
