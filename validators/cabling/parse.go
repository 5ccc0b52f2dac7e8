package cabling

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Parser turns one device's LLDP neighbour output into neighbours, with
// Device set to the name the intent gives that device.
type Parser func(device string, data []byte) ([]Neighbor, error)

// Parsers are the LLDP parsers by platform (the renderers' names; "linux"
// and "host" are lldpd's lldpcli).
var Parsers = map[string]Parser{
	"linux":      ParseLLDPCLI,
	"host":       ParseLLDPCLI,
	"openconfig": ParseOpenConfig,
	"nxos":       ParseNXOS,
	"eos":        ParseEOS,
	"cumulus":    ParseNVUE,
	"sonic":      ParseSONiC,
	"junos":      ParseJunos,
}

// decode reads JSON keeping numbers as text: port IDs such as "541" come
// as numbers from some platforms.
func decode(data []byte) (any, error) {
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

// str is a scalar as text; "" for anything else.
func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	}
	return ""
}

// list is v as a list: NX-OS and lldpd write one row as an object and
// several as an array.
func list(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// field reads a key ignoring a YANG module prefix (openconfig-lldp:state).
func field(m map[string]any, key string) any {
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

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// finish drops neighbours without a local port or any remote identity and
// sorts the rest, so maps' order never shows.
func finish(device string, in []Neighbor) []Neighbor {
	out := in[:0]
	for _, n := range in {
		n.Device = device
		if n.Port == "" || n.SysName == "" && n.PortID == "" && n.PortDescr == "" {
			continue
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Port != out[j].Port {
			return out[i].Port < out[j].Port
		}
		return out[i].SysName < out[j].SysName
	})
	if out == nil {
		out = []Neighbor{}
	}
	return out
}
