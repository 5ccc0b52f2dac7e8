package openconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/openconfig/goyang/pkg/yang"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/internal/yangdir"
)

// yangModules are the modules rocefab writes paths of.
var yangModules = []string{"openconfig-interfaces", "openconfig-if-ethernet", "openconfig-vlan", "openconfig-qos"}

var (
	schemaOnce sync.Once
	schemaRoot map[string]*yang.Entry // top-level containers: interfaces, qos
	schemaErr  error
)

// schema loads the YANG once per test binary, or skips when it is absent.
func schema(t *testing.T) map[string]*yang.Entry {
	t.Helper()
	dir := yangdir.Require(t)
	schemaOnce.Do(func() {
		ms := yang.NewModules()
		ms.AddPath(dir)
		for _, m := range yangModules {
			if err := ms.Read(m); err != nil {
				schemaErr = fmt.Errorf("read %s: %w", m, err)
				return
			}
		}
		if errs := ms.Process(); len(errs) > 0 {
			schemaErr = fmt.Errorf("process: %v", errs)
			return
		}
		schemaRoot = map[string]*yang.Entry{}
		for _, m := range yangModules {
			mod, errs := ms.GetModule(m)
			if len(errs) > 0 {
				schemaErr = fmt.Errorf("module %s: %v", m, errs)
				return
			}
			for name, e := range mod.Dir {
				schemaRoot[name] = e
			}
		}
	})
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	return schemaRoot
}

// pathElem is one parsed element of a path string.
type pathElem struct {
	name string
	keys map[string]string
}

// splitPath parses "/a/b[k=v]/c" with gNMI escapes.
func splitPath(p string) ([]pathElem, error) {
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("%q does not start with /", p)
	}
	var out []pathElem
	var cur pathElem
	var name, kname, kval strings.Builder
	state := 0 // 0 name, 1 key name, 2 key value
	flush := func() error {
		if name.Len() == 0 {
			return fmt.Errorf("%q has an empty element", p)
		}
		cur.name = name.String()
		out = append(out, cur)
		cur, name = pathElem{}, strings.Builder{}
		return nil
	}
	for i := 1; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			i++
			c = p[i]
			switch state {
			case 0:
				name.WriteByte(c)
			case 1:
				kname.WriteByte(c)
			case 2:
				kval.WriteByte(c)
			}
			continue
		}
		switch {
		case state == 0 && c == '/':
			if err := flush(); err != nil {
				return nil, err
			}
		case state == 0 && c == '[':
			state = 1
		case state == 1 && c == '=':
			state = 2
		case state == 2 && c == ']':
			if cur.keys == nil {
				cur.keys = map[string]string{}
			}
			cur.keys[kname.String()] = kval.String()
			kname.Reset()
			kval.Reset()
			state = 0
		case state == 0:
			name.WriteByte(c)
		case state == 1:
			kname.WriteByte(c)
		default:
			kval.WriteByte(c)
		}
	}
	if state != 0 {
		return nil, fmt.Errorf("%q has an unclosed key", p)
	}
	return out, flush()
}

// schemaPath is a path without its keys, e.g. /qos/queues/queue/config/name.
func schemaPath(elems []pathElem) string {
	var b strings.Builder
	for _, e := range elems {
		b.WriteString("/" + e.name)
	}
	return b.String()
}

// validateYANG checks every OpenConfig path (no origin prefix) of p
// against the schema: the path exists and is configuration; every list
// element names exactly the list's keys, and the entry's config/<key>
// leaf, when rendered, equals the key; every value has its JSON_IETF type
// (uint64 and int64 as strings of digits, smaller integers as numbers in
// range, booleans, enumeration names, module-prefixed identities derived
// from the base, leaf-lists as arrays, unions by any member); and every
// leafref points at a value rendered at its target. Paths with an origin
// ("cli:", "sonic-db:") are the native fallback and are exempt.
func validateYANG(root map[string]*yang.Entry, p devcfg.Paths) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	// Values present per schema path, for leafref targets.
	bySchema := map[string][]string{}
	parsed := map[string][]pathElem{}
	for path, v := range p {
		if !strings.HasPrefix(path, "/") {
			continue
		}
		elems, err := splitPath(path)
		if err != nil {
			fail("%v", err)
			continue
		}
		parsed[path] = elems
		bySchema[schemaPath(elems)] = append(bySchema[schemaPath(elems)], v.Text())
	}
	for _, path := range sortedKeys(parsed) {
		elems := parsed[path]
		e := root[elems[0].name]
		for i, el := range elems {
			if i > 0 {
				if e == nil || e.Dir == nil {
					e = nil
				} else {
					e = e.Dir[el.name]
				}
			}
			if e == nil {
				fail("%s: %q does not exist in the schema", path, schemaPath(elems[:i+1]))
				break
			}
			if e.IsList() {
				want := strings.Fields(e.Key)
				var got []string
				for k := range el.keys {
					got = append(got, k)
				}
				sort.Strings(want)
				sort.Strings(got)
				if !slices.Equal(want, got) {
					fail("%s: list %s is keyed by %v, the path gives %v", path, e.Name, want, got)
				}
				// config/<key> in the same entry must equal the key.
				for k, kv := range el.keys {
					cfgPath := strings.SplitAfterN(path, el.name+"["+k+"="+escapeKey(kv)+"]", 2)[0] + "/config/" + k
					if v, ok := p[cfgPath]; ok && v.Text() != kv {
						fail("%s: key %s=%s but %s = %s", path, k, kv, cfgPath, v)
					}
				}
			} else if el.keys != nil {
				fail("%s: %s is not a list but the path gives keys", path, e.Name)
			}
		}
		if e == nil {
			continue
		}
		if !(e.IsLeaf() || e.IsLeafList()) {
			fail("%s: ends at %s, which is not a leaf", path, e.Name)
			continue
		}
		if e.ReadOnly() {
			fail("%s: is state (config false)", path)
			continue
		}
		v := p[path].Any()
		if e.IsLeafList() {
			arr, ok := v.([]any)
			if !ok {
				fail("%s: leaf-list value %s is not a JSON array", path, p[path])
				continue
			}
			for _, item := range arr {
				if msg := checkValue(e, e.Type, item, bySchema); msg != "" {
					fail("%s: %s", path, msg)
				}
			}
			continue
		}
		if msg := checkValue(e, e.Type, v, bySchema); msg != "" {
			fail("%s: %s", path, msg)
		}
	}
	return errs
}

func escapeKey(s string) string { return strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace(s) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkValue returns "" when v is a valid JSON_IETF value of t.
func checkValue(e *yang.Entry, t *yang.YangType, v any, bySchema map[string][]string) string {
	switch t.Kind {
	case yang.Yuint64, yang.Yint64:
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("%v is a %s and must be a JSON string in JSON_IETF", v, t.Kind)
		}
		return inRange(t, s)
	case yang.Yuint8, yang.Yuint16, yang.Yuint32, yang.Yint8, yang.Yint16, yang.Yint32:
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Sprintf("%#v is a %s and must be a JSON number", v, t.Kind)
		}
		return inRange(t, n.String())
	case yang.Ybool:
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("%#v is not a boolean", v)
		}
	case yang.Ystring:
		if _, ok := v.(string); !ok {
			return fmt.Sprintf("%#v is not a string", v)
		}
	case yang.Yenum:
		s, ok := v.(string)
		if !ok || !t.Enum.IsDefined(s) {
			return fmt.Sprintf("%#v is not one of %v", v, t.Enum.Names())
		}
	case yang.Yidentityref:
		s, ok := v.(string)
		mod, name, prefixed := strings.Cut(s, ":")
		if !ok || !prefixed {
			return fmt.Sprintf("identity %#v is not module-prefixed", v)
		}
		id := t.IdentityBase.GetValue(name)
		if id == nil {
			return fmt.Sprintf("%s is not derived from %s", name, t.IdentityBase.Name)
		}
		if want := yang.RootNode(id).Name; mod != want {
			return fmt.Sprintf("identity %s needs module prefix %s, not %s", name, want, mod)
		}
	case yang.Yleafref:
		// Follow leafref chains (a list key leaf refers to ../config/<key>).
		target := e.Find(t.Path)
		for hops := 0; target != nil && target.Type != nil && target.Type.Kind == yang.Yleafref && hops < 8; hops++ {
			target = target.Find(target.Type.Path)
		}
		if target == nil {
			return "leafref " + t.Path + " does not resolve"
		}
		if msg := checkValue(target, target.Type, v, bySchema); msg != "" {
			return "leafref target: " + msg
		}
		want := fmt.Sprint(v)
		if n, ok := v.(json.Number); ok {
			want = n.String()
		}
		// Entry.Path starts with the module name: drop it.
		tp := target.Path()
		if i := strings.IndexByte(tp[1:], '/'); i >= 0 {
			tp = tp[i+1:]
		}
		if !slices.Contains(bySchema[tp], want) {
			return fmt.Sprintf("leafref %s = %s points at nothing rendered at %s", t.Path, want, tp)
		}
	case yang.Yunion:
		var msgs []string
		for _, member := range t.Type {
			msg := checkValue(e, member, v, bySchema)
			if msg == "" {
				return ""
			}
			msgs = append(msgs, msg)
		}
		return "no union member matches: " + strings.Join(msgs, "; ")
	default:
		return fmt.Sprintf("type %s is not checked by this test", t.Kind)
	}
	return ""
}

// inRange checks an integer text against the type's range (or its
// built-in bounds).
func inRange(t *yang.YangType, s string) string {
	var n yang.Number
	var err error
	if strings.HasPrefix(string(t.Kind.String()), "u") {
		var u uint64
		u, err = strconv.ParseUint(s, 10, 64)
		n = yang.FromUint(u)
	} else {
		var i int64
		i, err = strconv.ParseInt(s, 10, 64)
		n = yang.FromInt(i)
	}
	if err != nil {
		return fmt.Sprintf("%q is not a %s", s, t.Kind)
	}
	r := t.Range
	if len(r) == 0 {
		r = yang.BaseTypedefs[t.Kind.String()].YangType.Range
	}
	if !r.Contains(yang.YangRange{{Min: n, Max: n}}) {
		return fmt.Sprintf("%s is outside %s", s, r)
	}
	return ""
}

// TestYANG validates every variant against the OpenConfig YANG.
func TestYANG(t *testing.T) {
	root := schema(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			cfg := mustRender(t, variantSwitch(t, v.name))
			for _, err := range validateYANG(root, cfg.Paths) {
				t.Error(err)
			}
		})
	}
}

// TestYANGCatches proves the validator rejects each kind of mistake.
func TestYANGCatches(t *testing.T) {
	root := schema(t)
	const (
		qmp = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]"
		eth = "/interfaces/interface[name=Ethernet1]"
		sp  = "/qos/scheduler-policies/scheduler-policy[name=ROCEFAB_SCHED]/schedulers/scheduler[sequence=0]"
	)
	cases := []struct {
		name string
		edit func(p devcfg.Paths)
		want string
	}{
		{"uint64 as number", func(p devcfg.Paths) { p[qmp+"/wred/uniform/config/min-threshold"] = "150000" }, "must be a JSON string"},
		{"uint16 as string", func(p devcfg.Paths) { p[eth+"/config/mtu"] = `"9216"` }, "must be a JSON number"},
		{"uint8 out of range", func(p devcfg.Paths) { p[qmp+"/wred/uniform/config/max-drop-probability-percent"] = "101" }, "101 is outside"},
		{"identity without prefix", func(p devcfg.Paths) { p[sp+"/config/type"] = `"ONE_RATE_TWO_COLOR"` }, "not module-prefixed"},
		{"identity wrong module", func(p devcfg.Paths) { p[sp+"/config/type"] = `"openconfig-qos:ONE_RATE_TWO_COLOR"` }, "needs module prefix openconfig-qos-types"},
		{"enum typo", func(p devcfg.Paths) { p[sp+"/config/priority"] = `"STRICT_HIGH"` }, "is not one of"},
		{"no such path", func(p devcfg.Paths) { p[eth+"/ethernet/config/pfc-enable"] = "true" }, "does not exist in the schema"},
		{"wrong list key", func(p devcfg.Paths) { p["/qos/queues/queue[id=3]/config/name"] = `"Q3"` }, "is keyed by [name]"},
		{"key mismatch", func(p devcfg.Paths) { p["/qos/queues/queue[name=ROCEFAB_Q3]/config/name"] = `"Q3"` }, "key name=ROCEFAB_Q3 but"},
		{"state leaf", func(p devcfg.Paths) { p[eth+"/state/mtu"] = "9216" }, "is state"},
		{"dangling leafref", func(p devcfg.Paths) {
			p["/qos/forwarding-groups/forwarding-group[name=ROCEFAB_ROCE]/config/output-queue"] = `"NO_SUCH_QUEUE"`
		}, "points at nothing rendered"},
		{"leaf-list not array", func(p devcfg.Paths) { p[eth+"/ethernet/switched-vlan/config/trunk-vlans"] = "100" }, "is not a JSON array"},
		{"vlan out of range", func(p devcfg.Paths) { p[eth+"/ethernet/switched-vlan/config/trunk-vlans"] = "[5000]" }, "no union member matches"},
		{"not a leaf", func(p devcfg.Paths) { p[eth+"/config"] = "{}" }, "which is not a leaf"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustRender(t, basicSwitch(t))
			tc.edit(cfg.Paths)
			errs := validateYANG(root, cfg.Paths)
			for _, err := range errs {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Fatalf("no error contains %q; got %v", tc.want, errs)
		})
	}
	t.Run("fallback origins are exempt", func(t *testing.T) {
		p := devcfg.Paths{"cli:/interface Ethernet1 > priority-flow-control on": `"x"`, "sonic-db:/PORT_QOS_MAP/Ethernet0/pfc_enable": `"3"`}
		if errs := validateYANG(root, p); len(errs) != 0 {
			t.Fatalf("fallback paths were validated: %v", errs)
		}
	})
}

// TestYANGParsedGolden: what Parse reads back from a golden validates too.
func TestYANGParsedGolden(t *testing.T) {
	root := schema(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "variants", "access-lag.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(bytes.TrimSpace(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range validateYANG(root, cfg.Paths) {
		t.Error(err)
	}
}
