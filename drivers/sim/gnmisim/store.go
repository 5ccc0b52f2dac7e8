package gnmisim

import (
	"fmt"
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// tree is the configuration: canonical leaf path (with origin prefix) →
// canonical JSON value. Leaves only; containers and list entries exist
// while something is below them.
type tree devcfg.Paths

func (t tree) clone() tree { return tree(devcfg.Paths(t).Clone()) }

// under returns the leaves at or below p.
func (t tree) under(p *gnmipb.Path) map[string]devcfg.Value {
	base := gnmipath.Format(p)
	out := map[string]devcfg.Value{}
	for k, v := range t {
		if gnmipath.Under(k, base) {
			out[k] = v
		}
	}
	return out
}

// remove deletes everything at or below p and reports whether anything was.
func (t tree) remove(p *gnmipb.Path) bool {
	base := gnmipath.Format(p)
	found := false
	for k := range t {
		if gnmipath.Under(k, base) {
			delete(t, k)
			found = true
		}
	}
	return found
}

// merge writes a JSON value at p (gNMI update semantics): leaves in the
// value replace leaves at the same paths, others stay. A leaf that sits
// above a new leaf, or a subtree below a new leaf, goes away.
func (t tree) merge(p *gnmipb.Path, raw []byte) ([]string, error) {
	leaves := devcfg.Paths{}
	if err := gnmipath.Flatten(p, raw, leaves); err != nil {
		return nil, err
	}
	written := leaves.Keys()
	for _, k := range written {
		for existing := range t {
			if existing != k && (gnmipath.Under(existing, k) || gnmipath.Under(k, existing)) {
				delete(t, existing)
			}
		}
		t[k] = leaves[k]
	}
	return written, nil
}

// text is the whole tree in canonical "path = value" lines.
func (t tree) text() string { return devcfg.Paths(t).Text() }

// typedToJSON returns the JSON text of a TypedValue sent in a Set.
func typedToJSON(tv *gnmipb.TypedValue) ([]byte, error) {
	switch v := tv.GetValue().(type) {
	case *gnmipb.TypedValue_JsonIetfVal:
		return v.JsonIetfVal, nil
	case *gnmipb.TypedValue_JsonVal:
		return v.JsonVal, nil
	case *gnmipb.TypedValue_StringVal:
		return []byte(devcfg.String(v.StringVal)), nil
	case *gnmipb.TypedValue_AsciiVal:
		return []byte(devcfg.String(v.AsciiVal)), nil
	case *gnmipb.TypedValue_BoolVal:
		return []byte(devcfg.Bool(v.BoolVal)), nil
	case *gnmipb.TypedValue_IntVal:
		return []byte(devcfg.Int(v.IntVal)), nil
	case *gnmipb.TypedValue_UintVal:
		return []byte(fmt.Sprint(v.UintVal)), nil
	case *gnmipb.TypedValue_LeaflistVal:
		parts := make([]string, 0, len(v.LeaflistVal.GetElement()))
		for _, e := range v.LeaflistVal.GetElement() {
			b, err := typedToJSON(e)
			if err != nil {
				return nil, err
			}
			parts = append(parts, string(b))
		}
		return []byte("[" + strings.Join(parts, ",") + "]"), nil
	case nil:
		return nil, fmt.Errorf("empty value")
	}
	return nil, fmt.Errorf("unsupported value type %T", tv.GetValue())
}
