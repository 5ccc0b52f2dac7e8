package cumulus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rocefab/rocefab/devcfg"
)

// Parse reads `nv config show -o json`: a list of a `header` object and a
// `set` object (the configuration tree), or a bare tree. Each leaf becomes
// one path of its keys joined by spaces, the words of `nv set`; an empty
// object (a presence node such as `vlan: {100: {}}`) becomes devcfg.Empty.
// It also reads `nv set` commands (`nv config show -o commands`, and what
// Encode writes), so rendered files parse back into the same model. VLAN
// sets hold one path per VLAN (see bridgeVLANs).
func Parse(raw []byte) (*devcfg.Config, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] != '[' && trimmed[0] != '{' {
		paths, err := parseCommands(string(raw))
		if err != nil {
			return nil, err
		}
		bridgeVLANs(paths)
		return &devcfg.Config{Platform: "cumulus", Shape: devcfg.ShapePaths, Paths: paths}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("cumulus: nv config show -o json: %w", err)
	}
	out := devcfg.Paths{}
	switch d := doc.(type) {
	case []any:
		for i, item := range d {
			obj, ok := item.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("cumulus: nv config show -o json: item %d is not an object", i)
			}
			if set, ok := obj["set"]; ok {
				if err := flatten(out, "", set); err != nil {
					return nil, err
				}
			}
		}
	case map[string]any:
		tree := any(d)
		if set, ok := d["set"]; ok {
			tree = set
		} else {
			delete(d, "header")
		}
		if err := flatten(out, "", tree); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("cumulus: nv config show -o json: want an object or a list, got %T", doc)
	}
	bridgeVLANs(out)
	return &devcfg.Config{Platform: "cumulus", Shape: devcfg.ShapePaths, Paths: out}, nil
}

// InheritsAll is the VLAN key of a bridge port that sets no VLANs of its
// own: NVUE then gives it every VLAN of its bridge, so it is a member of
// the lossless one whenever the bridge has it (which rocefab owns).
const InheritsAll = "all"

// bridgeVLANs models VLAN sets one VLAN per path: a key that lists several
// ("vlan 10,20", "vlan 100-102") becomes one path each, and a bridge port
// with neither VLANs nor an access VLAN of its own gets
// "interface X bridge domain D vlan all" (see InheritsAll).
func bridgeVLANs(paths devcfg.Paths) {
	type port struct{ iface, domain string }
	member := map[port]bool{}
	own := map[port]bool{}
	for p, v := range paths {
		w := strings.Fields(p)
		bridge := len(w) >= 3 && (w[0] == "bridge" || (w[0] == "interface" && w[2] == "bridge"))
		if n := len(w); bridge && w[n-2] == "vlan" && v == devcfg.Empty && strings.ContainsAny(w[n-1], ",-") {
			if ids, err := devcfg.ParseIDList(w[n-1], 1, 4094); err == nil {
				delete(paths, p)
				for _, id := range ids {
					paths[strings.Join(w[:n-1], " ")+" "+strconv.Itoa(id)] = devcfg.Empty
				}
			}
		}
		if len(w) >= 5 && w[0] == "interface" && w[2] == "bridge" && w[3] == "domain" {
			k := port{w[1], w[4]}
			member[k] = true
			if len(w) >= 6 && (w[5] == "vlan" || w[5] == "access") {
				own[k] = true
			}
		}
	}
	for k := range member {
		if !own[k] {
			// The marker stands under the port's bridge object, which
			// then is no longer an empty presence node.
			bare := path("interface", k.iface, "bridge domain", k.domain)
			if paths[bare] == devcfg.Empty {
				delete(paths, bare)
			}
			paths[path(bare, "vlan", InheritsAll)] = devcfg.Empty
		}
	}
}

func flatten(out devcfg.Paths, prefix string, v any) error {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + " " + k
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			if prefix != "" {
				out[prefix] = devcfg.Empty
			}
			return nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "" || strings.ContainsAny(k, " \n") {
				return fmt.Errorf("cumulus: key %q under %q is not an NVUE path word", k, prefix)
			}
			if err := flatten(out, join(k), x[k]); err != nil {
				return err
			}
		}
	case string:
		out[prefix] = devcfg.String(x)
	case json.Number:
		out[prefix] = devcfg.Value(x.String())
	case bool:
		out[prefix] = devcfg.Bool(x)
	case nil:
		out[prefix] = devcfg.Value("null")
	default:
		out[prefix] = devcfg.JSON(x)
	}
	return nil
}

// defaults NVUE shows under objects rocefab touched; rocefab never renders
// these leaves at these values, so dropping them cannot hide a change.
var defaults = []struct {
	prefix, suffix, value string
}{
	{"qos pfc " + Profile, " cable-length", "100"},
	{"qos pfc " + Profile, " port-buffer", "25000"},
	{"qos pfc " + Profile, " xoff-threshold", "10000"},
	{"qos pfc " + Profile, " xon-threshold", "2000"},
	{"qos pfc " + CableProfilePrefix, " port-buffer", "25000"},
	{"qos pfc " + CableProfilePrefix, " xoff-threshold", "10000"},
	{"qos pfc " + CableProfilePrefix, " xon-threshold", "2000"},
	{"qos congestion-control " + Profile + " traffic-class ", " red", "disable"},
	{"interface ", " qos pfc-watchdog state", "disable"},
	{"interface ", " type", "swp"},
	{"interface ", " type", "bond"},
}

// Normalise drops the NVUE defaults listed above and the `header` object.
func Normalise(cfg *devcfg.Config) *devcfg.Config {
	out := cfg.Clone()
	for p, v := range out.Paths {
		if p == "header" || strings.HasPrefix(p, "header ") {
			delete(out.Paths, p)
			continue
		}
		for _, d := range defaults {
			if strings.HasPrefix(p, d.prefix) && strings.HasSuffix(p, d.suffix) && v.Text() == d.value {
				delete(out.Paths, p)
				break
			}
		}
	}
	return out
}

// parseCommands reads `nv set` lines. `nv config ...` lines and comments
// are skipped; `nv unset` has no place in a configuration listing. A key
// that lists several interfaces or IDs ("interface swp1-2,32", "traffic-pool
// default-lossy switch-priority 0-3,5-7") is one path per member, as NVUE
// stores it. Two commands that split to one path with different values
// show that the last word is a member of a set (a listing prints a leaf
// once), so both are kept as presence entries.
func parseCommands(text string) (devcfg.Paths, error) {
	out := devcfg.Paths{}
	sets := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "nv config ") {
			continue
		}
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("cumulus: line %d is not valid UTF-8", i+1)
		}
		rest, ok := strings.CutPrefix(line, "nv set ")
		if !ok {
			return nil, fmt.Errorf("cumulus: line %d: %q is not an `nv set` command", i+1, line)
		}
		for _, words := range expandKeys(strings.Fields(rest)) {
			path, v := splitCommand(words)
			if v != devcfg.Empty {
				if prev, ok := out[path]; ok && prev != v && !sets[path] {
					delete(out, path)
					out[path+" "+valueText(prev)] = devcfg.Empty
					sets[path] = true
				}
				if sets[path] {
					path, v = path+" "+valueText(v), devcfg.Empty
				}
			}
			out[path] = v
		}
	}
	// `nv set qos roce` then `nv set qos roce mode lossless` is one node in
	// NVUE's tree: a presence entry with entries below it is implied.
	for p := range out {
		for i := len(p) - 1; i > 0; i-- {
			if p[i] == ' ' && out[p[:i]] == devcfg.Empty {
				delete(out, p[:i])
			}
		}
	}
	return out, nil
}

// setKeys are NVUE collections keyed by the ID that follows them: an ID
// list there ("0-3,5-7", "10,21,36") is one key per ID.
var setKeys = map[string]bool{"vlan": true, "switch-priority": true, "traffic-class": true, "dscp": true, "pcp": true}

// portList is an NVUE interface range: "swp1-4,6,10-12" (the prefix
// applies to every part), "swp1s1-4", "swp1-64s1-3".
var portList = regexp.MustCompile(`^([a-z]+)([0-9,-]+)(s([0-9,-]+))?$`)

// expandKeys turns one command with ranged keys into one command per key.
// The final word is expanded only where it keys a set.
func expandKeys(words []string) [][]string {
	out := [][]string{words}
	for i := range words {
		last := i == len(words)-1
		var ids []string
		switch {
		case i == 1 && words[0] == "interface":
			ids = expandPorts(words[i])
		case i > 0 && setKeys[words[i-1]] && (!last || splitIsSet(words)):
			ids = expandIDs(words[i], 0, 4094)
		}
		if len(ids) < 2 {
			continue
		}
		var next [][]string
		for _, w := range out {
			for _, id := range ids {
				c := slices.Clone(w)
				c[i] = id
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

func splitIsSet(words []string) bool {
	_, v := splitCommand(words)
	return v == devcfg.Empty
}

// expandIDs reads "0-3,5-7" into its IDs; a word that is no ID list, or
// a single ID, is kept as it is.
func expandIDs(w string, lo, hi int) []string {
	if !strings.ContainsAny(w, ",-") {
		return nil
	}
	ids, err := devcfg.ParseIDList(w, lo, hi)
	if err != nil {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.Itoa(id)
	}
	return out
}

func expandPorts(w string) []string {
	m := portList.FindStringSubmatch(w)
	if m == nil || !strings.ContainsAny(w, ",-") {
		return nil
	}
	ports, err := devcfg.ParseIDList(m[2], 0, 1024)
	if err != nil {
		return nil
	}
	subs := []int{-1}
	if m[3] != "" {
		if subs, err = devcfg.ParseIDList(m[4], 0, 64); err != nil {
			return nil
		}
	}
	var out []string
	for _, p := range ports {
		for _, s := range subs {
			name := m[1] + strconv.Itoa(p)
			if s >= 0 {
				name += "s" + strconv.Itoa(s)
			}
			out = append(out, name)
		}
	}
	return out
}

// splitCommand splits the words of one `nv set` command into the JSON path
// and value. The last word is the value, except where NVUE keys a
// collection by it: a VLAN of a bridge domain, a bond member, a PFC or
// traffic-pool switch priority (not the switch-priority leaf of a qos
// mapping), a What Just Happened trigger (`... trigger l2` and `... trigger
// l3` are two entries), and bare presence nodes such as `qos roce`.
func splitCommand(words []string) (string, devcfg.Value) {
	n := len(words)
	joined := strings.Join(words, " ")
	if n < 3 || words[n-1] == "pfc-watchdog" {
		return joined, devcfg.Empty
	}
	switch words[n-2] {
	case "vlan", "member", "trigger":
		return joined, devcfg.Empty
	case "switch-priority":
		if !strings.Contains(" "+joined+" ", " mapping ") {
			return joined, devcfg.Empty
		}
	}
	return strings.Join(words[:n-1], " "), typed(words[n-1])
}

// typed is a JSON number for a decimal integer, else a JSON string, as
// NVUE types its leaves.
func typed(w string) devcfg.Value {
	if w == "0" || (w != "" && w[0] != '0' && strings.Trim(w, "0123456789") == "" && len(w) < 19) {
		return devcfg.Value(w)
	}
	return devcfg.String(w)
}
