package gnmipath

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

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
	// Paths are built as strings from the base's canonical form: the same
	// result as formatting each leaf's elements, without a slice per leaf.
	root := Format(&gnmipb.Path{Origin: base.GetOrigin(), Elem: Elems(base)})
	if root == "/" || strings.HasSuffix(root, ":/") {
		root = root[:len(root)-1]
	}
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		if depth > maxDepth {
			return
		}
		var text string
		switch x := v.(type) {
		case map[string]any:
			for name, child := range x {
				if name == "" {
					continue
				}
				var b strings.Builder
				b.Grow(len(prefix) + len(name) + 1)
				b.WriteString(prefix)
				b.WriteByte('/')
				escape(&b, name, `\/[]`)
				walk(b.String(), child, depth+1)
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
			out[prefix] = n
		}
	}
	walk(root, obj, 0)
	return out
}
