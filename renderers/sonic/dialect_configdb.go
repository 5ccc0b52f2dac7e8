package sonic

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rocefab/rocefab/devcfg"
)

// jsonPatchOp is one RFC 6902 operation, what `config apply-patch` takes.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// configDBPatch turns path updates and deletes ("/TABLE/key/field") into a
// JSON patch against the device's current config_db. JSON patch cannot add
// under a missing parent, so a new key or table is added whole; a key or
// table left empty by deletes is removed whole, as config_db keeps none.
func configDBPatch(current map[string]any, updates []devcfg.PathUpdate, deletes []string) ([]jsonPatchOp, error) {
	desired := deepCopy(current).(map[string]any)
	for _, p := range deletes {
		segs, err := splitConfigDBPath(p)
		if err != nil {
			return nil, err
		}
		removeAt(desired, segs)
	}
	for _, u := range updates {
		segs, err := splitConfigDBPath(u.Path)
		if err != nil {
			return nil, err
		}
		setAt(desired, segs, u.Value.Any())
	}
	var ops []jsonPatchOp
	diffObjects(&ops, "", current, desired)
	return ops, nil
}

// splitConfigDBPath splits a config_db path, "/TABLE/key/field" or
// "/TABLE/key", optionally behind a gNMI origin ("sonic-db:/..."). Elements
// use gNMI path-string escapes ("\\/" for a '/' inside a key), the form
// the sonic renderer writes; an unescaped key that contains "/" (such as
// "Ethernet0|10.0.0.1/31") is rejoined, since table and field names never
// contain one.
func splitConfigDBPath(p string) ([]string, error) {
	if i := strings.Index(p, ":/"); i > 0 && !strings.ContainsAny(p[:i], "/\\") {
		p = p[i+1:]
	}
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return nil, fmt.Errorf("config_db path %q does not start with /TABLE", p)
	}
	if !utf8.ValidString(p) {
		return nil, fmt.Errorf("config_db path %q is not UTF-8", p)
	}
	var segs []string
	var cur strings.Builder
	for i := 1; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 == len(p) {
				return nil, fmt.Errorf("config_db path %q ends in an escape", p)
			}
			i++
			cur.WriteByte(p[i])
		case '/':
			segs = append(segs, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	segs = append(segs, cur.String())
	if len(segs) > 3 {
		segs = []string{segs[0], strings.Join(segs[1:len(segs)-1], "/"), segs[len(segs)-1]}
	}
	for _, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("config_db path %q has an empty element", p)
		}
	}
	return segs, nil
}

func escapePointer(s string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(s) }

func setAt(root map[string]any, segs []string, v any) {
	cur := root
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[s] = next
		}
		cur = next
	}
	cur[segs[len(segs)-1]] = v
}

// removeAt deletes the path and then every ancestor it left empty.
func removeAt(root map[string]any, segs []string) {
	chain := []map[string]any{root}
	cur := root
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			return
		}
		chain = append(chain, next)
		cur = next
	}
	delete(cur, segs[len(segs)-1])
	for i := len(chain) - 1; i > 0; i-- {
		if len(chain[i]) > 0 {
			break
		}
		delete(chain[i-1], segs[i-1])
	}
}

// diffObjects emits add/remove/replace operations turning a into b, in
// sorted key order so the patch is deterministic.
func diffObjects(ops *[]jsonPatchOp, prefix string, a, b map[string]any) {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		path := prefix + "/" + escapePointer(k)
		av, inA := a[k]
		bv, inB := b[k]
		switch {
		case !inB:
			*ops = append(*ops, jsonPatchOp{Op: "remove", Path: path})
		case !inA:
			*ops = append(*ops, jsonPatchOp{Op: "add", Path: path, Value: bv})
		default:
			am, aObj := av.(map[string]any)
			bm, bObj := bv.(map[string]any)
			if aObj && bObj {
				diffObjects(ops, path, am, bm)
			} else if !jsonEqual(av, bv) {
				*ops = append(*ops, jsonPatchOp{Op: "replace", Path: path, Value: bv})
			}
		}
	}
}

func jsonEqual(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return reflect.DeepEqual(a, b)
	}
	return string(ab) == string(bb)
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}
