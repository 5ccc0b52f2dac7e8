package gnmipath

import (
	"bytes"
	"encoding/json"
	"strconv"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
)

// NumericLeaves reads a JSON object found at base as a subtree of
// counters: every member is a path element below base, and every leaf that
// is a whole number, or a string holding one (RFC 7951 writes uint64 as a
// string; SONiC's gNMI server writes every Redis field as one), is returned
// under its canonical path string. Anything else, and a value that is not
// an object, yields nothing.
func NumericLeaves(base *gnmipb.Path, raw []byte) map[string]uint64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&obj) != nil {
		return nil
	}
	out := map[string]uint64{}
	var walk func(elems []*gnmipb.PathElem, v any, depth int)
	walk = func(elems []*gnmipb.PathElem, v any, depth int) {
		if depth > maxDepth {
			return
		}
		var text string
		switch x := v.(type) {
		case map[string]any:
			for name, child := range x {
				if name != "" {
					walk(append(elems[:len(elems):len(elems)], &gnmipb.PathElem{Name: name}), child, depth+1)
				}
			}
			return
		case string:
			text = x
		case json.Number:
			text = x.String()
		default:
			return
		}
		if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			out[Format(&gnmipb.Path{Origin: base.GetOrigin(), Elem: elems})] = n
		}
	}
	walk(append([]*gnmipb.PathElem(nil), Elems(base)...), obj, 0)
	return out
}
