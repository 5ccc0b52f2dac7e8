// Package sonicyang is a test oracle: it checks config_db JSON the way a
// SONiC switch validates it, with the SONiC YANG models of
// ../shared/yang-sonic and yanglint (Debian libyang-tools). Only tests
// import it.
//
// The translation follows sonic-buildimage src/sonic-yang-mgmt
// sonic_yang_ext.py: table T is the container T of the module whose top
// container holds it; an entry key "a|b" is split on '|' onto the keys of
// the first list of T with as many keys (a single list must be T_LIST); the
// map tables (DSCP_TO_TC_MAP, ..., CABLE_LENGTH) are a list of names with an
// inner list of key/value pairs; a key that names a container of T
// (DEVICE_METADATA|localhost) fills that container; a field must be a leaf
// or leaf-list of its list (else the translation fails, as sonic_yang's
// "All Keys are not parsed" does); a few leaf-lists are comma-separated
// strings in config_db (LEAF_LIST_WITH_STRING_VALUE_DICT). The instance data
// is written as XML, where every value is text, which is what libyang's
// string relaxation for config_db values amounts to.
//
// The schema (modules, containers, lists and their keys, leaves) is read
// from `yanglint -f tree` over the models, so groupings and choices are
// resolved by libyang itself.
package sonicyang

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rocefab/rocefab/internal/shareddir"
)

// Dir is the yang-sonic folder: ROCEFAB_SONIC_YANG_DIR, else ../shared/yang-sonic.
func Dir() string {
	return shareddir.Path("ROCEFAB_SONIC_YANG_DIR", "yang-sonic")
}

// Require returns the yang-sonic folder, or skips the test (fails under
// ROCEFAB_REQUIRE_NETNS=1, as in CI) when it or yanglint is absent.
func Require(t testing.TB) string {
	t.Helper()
	dir := Dir()
	miss := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatalf(format+" (ROCEFAB_REQUIRE_NETNS=1: the SONiC YANG oracle must run)", args...)
		}
		t.Skipf(format+": skipping the SONiC YANG oracle", args...)
	}
	if _, err := os.Stat(filepath.Join(dir, "models", "sonic-port.yang")); err != nil {
		miss("SONiC YANG models not found in %s (set ROCEFAB_SONIC_YANG_DIR)", dir)
	}
	if _, err := exec.LookPath("yanglint"); err != nil {
		miss("yanglint not found (Debian package libyang-tools)")
	}
	return dir
}

// DB is config_db JSON: table → key → field → value (a string, or a list
// of strings for a leaf-list).
type DB map[string]map[string]map[string]any

// Clone copies a DB.
func (db DB) Clone() DB {
	out := DB{}
	for t, entries := range db {
		out[t] = map[string]map[string]any{}
		for k, fields := range entries {
			out[t][k] = map[string]any{}
			for f, v := range fields {
				out[t][k][f] = v
			}
		}
	}
	return out
}

// Merge writes other's entries over db field by field, as `config load`
// does.
func (db DB) Merge(other DB) {
	for t, entries := range other {
		if db[t] == nil {
			db[t] = map[string]map[string]any{}
		}
		for k, fields := range entries {
			if db[t][k] == nil {
				db[t][k] = map[string]any{}
			}
			for f, v := range fields {
				db[t][k][f] = v
			}
		}
	}
}

// node is a schema node of the tree output.
type node struct {
	name     string
	kind     byte // 'c' container, 'l' list, 'f' leaf, 'L' leaf-list
	keys     []string
	children []*node
}

func (n *node) child(name string) *node {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// Schema is every config table of the models.
type Schema struct {
	dir    string
	tables map[string]table
}

type table struct {
	module, namespace string
	node              *node
}

var (
	schemaOnce sync.Once
	schema     *Schema
	schemaErr  error
)

// Load reads the schema of the models in dir/models once per process.
func Load(dir string) (*Schema, error) {
	schemaOnce.Do(func() { schema, schemaErr = load(dir) })
	return schema, schemaErr
}

func modelFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "models", "*.yang"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no YANG models in %s/models", dir)
	}
	sort.Strings(files)
	return files, nil
}

var (
	nodeLine = regexp.MustCompile(`^([\s|]*)[+x o]--(rw|ro|-w)? ?(\S+?)([?*!]?)(?:\s+\[([^\]]+)\])?(?:\s+(\S.*))?$`)
	nsLine   = regexp.MustCompile(`^\s*namespace\s+"([^"]+)"`)
)

func load(dir string) (*Schema, error) {
	files, err := modelFiles(dir)
	if err != nil {
		return nil, err
	}
	args := append([]string{"-f", "tree", "-L", "100000", "-p", filepath.Join(dir, "models")}, files...)
	out, err := exec.Command("yanglint", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("yanglint -f tree: %v", err)
	}
	ns := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, l := range strings.Split(string(data), "\n") {
			if m := nsLine.FindStringSubmatch(l); m != nil {
				ns[strings.TrimSuffix(filepath.Base(f), ".yang")] = m[1]
				break
			}
		}
	}
	s := &Schema{dir: dir, tables: map[string]table{}}
	var module string
	var stack []*node // by depth
	var depths []int
	inData := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m, ok := strings.CutPrefix(line, "module: "); ok {
			module, inData, stack, depths = m, true, nil, nil
			continue
		}
		if t := strings.TrimSpace(line); strings.HasSuffix(t, ":") && !strings.Contains(t, "--") {
			inData = false // rpcs:, notifications:, augment ...:
			continue
		}
		if !inData {
			continue
		}
		m := nodeLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent := strings.Index(line, "--") - 1
		name := m[3]
		n := &node{name: name}
		switch {
		case strings.HasPrefix(name, ":(") || strings.HasPrefix(name, "("):
			n.kind = 'x' // choice or case: transparent
		case m[4] == "*" && m[5] != "":
			n.kind, n.keys = 'l', strings.Fields(m[5])
		case m[4] == "*":
			n.kind = 'L'
		case m[6] == "" || m[4] == "!":
			n.kind = 'c'
		default:
			n.kind = 'f'
		}
		for len(depths) > 0 && depths[len(depths)-1] >= indent {
			stack, depths = stack[:len(stack)-1], depths[:len(depths)-1]
		}
		if len(stack) > 0 {
			parent := stack[len(stack)-1]
			parent.children = append(parent.children, n)
		}
		stack, depths = append(stack, n), append(depths, indent)
		// A table: a container directly under the module's top container.
		if len(stack) == 2 && stack[0].name == module && n.kind == 'c' && m[2] != "ro" {
			s.tables[name] = table{module: module, namespace: ns[module], node: n}
		}
	}
	if len(s.tables) == 0 {
		return nil, fmt.Errorf("no tables in the yanglint tree output")
	}
	return s, nil
}

// flatten lists a node's leaves and leaf-lists, looking through choices.
func flatten(n *node) map[string]*node {
	out := map[string]*node{}
	for _, c := range n.children {
		switch c.kind {
		case 'f', 'L':
			out[c.name] = c
		case 'x':
			for k, v := range flatten(c) {
				out[k] = v
			}
		}
	}
	return out
}

// type1 are sonic_yang_ext.py's Type_1_list_maps_model.
var type1 = map[string]bool{"DSCP_TO_TC_MAP_LIST": true, "DOT1P_TO_TC_MAP_LIST": true, "TC_TO_PRIORITY_GROUP_MAP_LIST": true,
	"TC_TO_QUEUE_MAP_LIST": true, "MAP_PFC_PRIORITY_TO_QUEUE_LIST": true, "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP_LIST": true,
	"DSCP_TO_FC_MAP_LIST": true, "EXP_TO_FC_MAP_LIST": true, "CABLE_LENGTH_LIST": true, "MPLS_TC_TO_TC_MAP_LIST": true, "TC_TO_DSCP_MAP_LIST": true}

// stringLists are sonic_yang_ext.py's LEAF_LIST_WITH_STRING_VALUE_DICT.
var stringLists = map[[2]string]string{{"MIRROR_SESSION", "src_ip"}: ",", {"NTP", "src_intf"}: ";",
	{"BGP_ALLOWED_PREFIXES", "prefixes_v4"}: ",", {"BGP_ALLOWED_PREFIXES", "prefixes_v6"}: ",",
	{"BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list"}: ",", {"BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list"}: ",",
	{"PORT", "adv_speeds"}: ",", {"PORT", "adv_interface_types"}: ","}

// XML translates config_db to YANG instance data. A table without a model,
// a key that fits no list and a field that is no leaf are errors.
func (s *Schema) XML(db DB) ([]byte, error) {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	byModule := map[string][]string{}
	for _, t := range slices.Sorted(mapsKeys(db)) {
		tb, ok := s.tables[t]
		if !ok {
			fail("table %s has no YANG model", t)
			continue
		}
		byModule[tb.module] = append(byModule[tb.module], t)
	}
	var b bytes.Buffer
	for _, mod := range slices.Sorted(mapsKeys(byModule)) {
		fmt.Fprintf(&b, "<%s xmlns=\"%s\">\n", mod, s.tables[byModule[mod][0]].namespace)
		for _, t := range byModule[mod] {
			tb := s.tables[t]
			fmt.Fprintf(&b, " <%s>\n", t)
			s.table(&b, t, tb.node, db[t], fail)
			fmt.Fprintf(&b, " </%s>\n", t)
		}
		fmt.Fprintf(&b, "</%s>\n", mod)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("config_db does not translate to SONiC YANG:\n  %s", strings.Join(errs, "\n  "))
	}
	return b.Bytes(), nil
}

func (s *Schema) table(b *bytes.Buffer, name string, tn *node, entries map[string]map[string]any, fail func(string, ...any)) {
	var lists []*node
	for _, c := range tn.children {
		if c.kind == 'l' {
			lists = append(lists, c)
		}
	}
	if len(lists) == 1 && lists[0].name != name+"_LIST" {
		lists = nil
	}
	for _, key := range slices.Sorted(mapsKeys(entries)) {
		fields := entries[key]
		if c := tn.child(key); c != nil && c.kind == 'c' {
			fmt.Fprintf(b, "  <%s>\n", key)
			leaves := flatten(c)
			for _, f := range slices.Sorted(mapsKeys(fields)) {
				if leaves[f] == nil {
					fail("%s|%s: field %s is not in the model", name, key, f)
					continue
				}
				writeLeaf(b, name, f, leaves[f], fields[f], fail)
			}
			fmt.Fprintf(b, "  </%s>\n", key)
			continue
		}
		parts := strings.Split(key, "|")
		var list *node
		for _, l := range lists {
			if len(l.keys) == len(parts) {
				list = l
				break
			}
		}
		if list == nil {
			fail("%s|%s: the key fits no list of the model", name, key)
			continue
		}
		fmt.Fprintf(b, "  <%s>\n", list.name)
		for i, k := range list.keys {
			fmt.Fprintf(b, "   <%s>%s</%s>\n", k, esc(strings.TrimSpace(parts[i])), k)
		}
		if type1[list.name] {
			var inner *node
			for _, c := range list.children {
				if c.kind == 'l' {
					inner = c
				}
			}
			if inner == nil {
				fail("%s: map list %s has no inner list", name, list.name)
				continue
			}
			innerKey := inner.keys[0]
			innerVal := ""
			for n := range flatten(inner) {
				if n != innerKey {
					innerVal = n
				}
			}
			for _, f := range slices.Sorted(mapsKeys(fields)) {
				fmt.Fprintf(b, "   <%s><%s>%s</%s><%s>%s</%s></%s>\n", inner.name, innerKey, esc(f), innerKey, innerVal, esc(fmt.Sprint(fields[f])), innerVal, inner.name)
			}
		} else {
			leaves := flatten(list)
			for _, f := range slices.Sorted(mapsKeys(fields)) {
				if slices.Contains(list.keys, f) {
					continue
				}
				if leaves[f] == nil {
					fail("%s|%s: field %s is not in the model", name, key, f)
					continue
				}
				writeLeaf(b, name, f, leaves[f], fields[f], fail)
			}
		}
		fmt.Fprintf(b, "  </%s>\n", list.name)
	}
}

func writeLeaf(b *bytes.Buffer, table, field string, n *node, v any, fail func(string, ...any)) {
	if n.kind == 'L' {
		var items []string
		switch t := v.(type) {
		case []any:
			for _, x := range t {
				items = append(items, fmt.Sprint(x))
			}
		case string:
			if sep, ok := stringLists[[2]string{table, field}]; ok {
				for _, x := range strings.Split(t, sep) {
					items = append(items, strings.TrimSpace(x))
				}
			} else {
				items = []string{t}
			}
		}
		for _, x := range items {
			if x != "" {
				fmt.Fprintf(b, "   <%s>%s</%s>\n", field, esc(x), field)
			}
		}
		return
	}
	s, ok := v.(string)
	if !ok {
		fail("%s: field %s holds %v, not a string", table, field, v)
		return
	}
	fmt.Fprintf(b, "   <%s>%s</%s>\n", field, esc(s), field)
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func mapsKeys[M ~map[string]V, V any](m M) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Validate translates db and checks it with yanglint as configuration
// data (strict: unknown nodes are errors), over every model of the
// folder. It returns yanglint's errors, or the translation's.
func (s *Schema) Validate(db DB) ([]string, error) {
	data, err := s.XML(db)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "rocefab-sonicyang-*.xml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		return nil, err
	}
	f.Close()
	files, err := modelFiles(s.dir)
	if err != nil {
		return nil, err
	}
	// -i implements every imported module, as sonic_yang loads them all;
	// without it libyang skips the must and when checks that reference a
	// module imported before it was loaded.
	args := append([]string{"-i", "-t", "config", "-p", filepath.Join(s.dir, "models")}, files...)
	cmd := exec.Command("yanglint", append(args, f.Name())...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var msgs []string
	for _, l := range strings.Split(stderr.String()+string(out), "\n") {
		if strings.HasPrefix(l, "libyang err") || strings.HasPrefix(l, "YANGLINT[E]") {
			msgs = append(msgs, strings.TrimSpace(l))
		}
	}
	if runErr != nil && len(msgs) == 0 {
		msgs = append(msgs, "yanglint failed: "+runErr.Error()+": "+stderr.String())
	}
	return msgs, nil
}

// ReadDB reads a config_db JSON file.
func ReadDB(path string) (DB, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var db DB
	if err := json.Unmarshal(data, &db); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}
