package sonic

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
)

// FuzzSplitConfigDBPath: a path that splits gives one to three non-empty
// elements, and a plain path round-trips.
func FuzzSplitConfigDBPath(f *testing.F) {
	for _, s := range []string{"sonic-db:/PORT/Ethernet0/mtu", "/QUEUE/Ethernet0|3/wred_profile", `sonic-db:/VLAN_MEMBER/Vlan100|Eth1\/1/tagging_mode`,
		"/PORTCHANNEL_MEMBER/PortChannel1|Ethernet0", "/INTERFACE/Ethernet0|10.0.0.1/31/scope", "", "/", "x:/", `/a\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		segs, err := splitConfigDBPath(p)
		if err != nil {
			return
		}
		if len(segs) < 1 || len(segs) > 3 {
			t.Fatalf("%q split into %d elements", p, len(segs))
		}
		for _, s := range segs {
			if s == "" {
				t.Fatalf("%q has an empty element: %q", p, segs)
			}
		}
		if !strings.ContainsAny(p, `\:`) && strings.Count(p, "/") <= 3 && "/"+strings.Join(segs, "/") != p {
			t.Fatalf("%q split into %q", p, segs)
		}
	})
}

// FuzzConfigDBPatch: applying the generated JSON patch to the current
// config_db with RFC 6902 rules (add needs a parent; replace and remove need
// the target) gives exactly the config with the updates and deletes made.
func FuzzConfigDBPatch(f *testing.F) {
	f.Add(`{"PORT":{"Ethernet0":{"mtu":"9100","speed":"100000"}}}`, "/PORT/Ethernet0/mtu", `"9216"`, "")
	f.Add(`{"PORT":{"Ethernet0":{"mtu":"9100"}}}`, "/WRED_PROFILE/ROCEFAB_L/ecn", `"ecn_all"`, "/PORT/Ethernet0/mtu")
	f.Add(`{}`, "sonic-db:/PORTCHANNEL_MEMBER/Po1|Ethernet0", `{}`, "/NOPE/x/y")
	f.Add(`{"A":{"k":{"f":"1","g":"2"}},"B":{"k":{"f":"1"}}}`, "/A/k/g", `"3"`, "/B/k/f")
	f.Fuzz(func(t *testing.T, current, upPath, upValue, delPath string) {
		var cur map[string]any
		if json.Unmarshal([]byte(current), &cur) != nil || cur == nil || !configDBShaped(cur) {
			return
		}
		if !json.Valid([]byte(upValue)) {
			return
		}
		var updates []devcfg.PathUpdate
		if upPath != "" {
			updates = append(updates, devcfg.PathUpdate{Path: upPath, Value: devcfg.Value(upValue)})
		}
		var deletes []string
		if delPath != "" {
			deletes = append(deletes, delPath)
		}
		ops, err := configDBPatch(cur, updates, deletes)
		if err != nil {
			return
		}
		want := deepCopy(cur).(map[string]any)
		for _, p := range deletes {
			segs, _ := splitConfigDBPath(p)
			removeAt(want, segs)
		}
		for _, u := range updates {
			segs, _ := splitConfigDBPath(u.Path)
			setAt(want, segs, u.Value.Any())
		}
		got := deepCopy(cur).(map[string]any)
		for _, op := range ops {
			if err := applyRFC6902(got, op); err != nil {
				t.Fatalf("op %+v is not applicable: %v (ops %+v)", op, err, ops)
			}
		}
		if !jsonEqual(got, want) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			t.Fatalf("patch result differs:\n got %s\nwant %s", gb, wb)
		}
	})
}

// configDBShaped: tables of keys of objects, as config_db is.
func configDBShaped(db map[string]any) bool {
	for _, keys := range db {
		km, ok := keys.(map[string]any)
		if !ok {
			return false
		}
		for _, fields := range km {
			if _, ok := fields.(map[string]any); !ok {
				return false
			}
		}
	}
	return true
}

func applyRFC6902(doc map[string]any, op jsonPatchOp) error {
	var segs []string
	for _, s := range strings.Split(op.Path[1:], "/") {
		segs = append(segs, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
	}
	parent := doc
	for _, s := range segs[:len(segs)-1] {
		next, ok := parent[s].(map[string]any)
		if !ok {
			return errMissing
		}
		parent = next
	}
	last := segs[len(segs)-1]
	_, exists := parent[last]
	switch op.Op {
	case "add":
		parent[last] = roundTrip(op.Value)
	case "replace":
		if !exists {
			return errMissing
		}
		parent[last] = roundTrip(op.Value)
	case "remove":
		if !exists {
			return errMissing
		}
		delete(parent, last)
	default:
		return errMissing
	}
	return nil
}

// roundTrip is what the device sees: the value after JSON encoding.
func roundTrip(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

var errMissing = errors.New("path does not exist")
