package sshsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// nvueDevice plays Cumulus Linux with NVUE: `nv set`/`nv unset` stage a
// pending revision, `nv config apply` (optionally --confirm with a real
// rollback timer) makes it the applied configuration, and
// `nv config show -o json` prints the applied tree with NVUE's header and
// defaults.
type nvueDevice struct {
	sim     *Sim
	applied map[string]any
	staged  map[string]any // the pending revision; nil: no edits
	rev     int
	// confirm is set while an apply --confirm waits.
	confirmStop func() bool
	confirmAt   time.Time
	previous    map[string]any
	// messages are the -m labels of applied revisions, in order.
	messages []string
}

func newNVUEDevice(s *Sim) (personality, error) {
	d := &nvueDevice{sim: s, applied: map[string]any{}, rev: 1}
	lines := []string{"system hostname " + s.opt.Hostname}
	if !s.opt.Blank {
		lines = append(lines,
			"interface eth0 ip address 10.0.0.14/24", "interface eth0 ip vrf mgmt",
			"interface swp1 link state up", "interface swp1 description gpu04-ens1f0np0",
			"bridge domain br_default vlan 10", "interface swp"+strconv.Itoa(s.opt.Ports)+" bridge domain br_default vlan 10",
			"service ntp mgmt server 0.pool.ntp.org",
		)
	}
	for _, l := range lines {
		if err := nvueSet(d.applied, strings.Fields(l)); err != nil {
			return nil, fmt.Errorf("sshsim: initial NVUE configuration %q: %v", l, err)
		}
	}
	return d, nil
}

func (d *nvueDevice) login(*session) string {
	return "Linux " + d.hostname() + " 5.10.0-cl-1-amd64 #1 SMP Debian 5.10.189-1+cl5.9.0u5 x86_64\n\nWelcome to NVIDIA Cumulus (R) Linux (R)\n\n"
}

func (d *nvueDevice) logout(*session) {}

func (d *nvueDevice) prompt(s *session) string {
	return s.user + "@" + d.hostname() + ":mgmt:~$ "
}

func (d *nvueDevice) hostname() string {
	if sys, ok := d.applied["system"].(map[string]any); ok {
		if h, ok := sys["hostname"].(string); ok {
			return h
		}
	}
	return d.sim.hostname()
}

func (d *nvueDevice) invalid(_ *session, line string) string {
	return "Error: Invalid command: " + line
}

func (d *nvueDevice) pending() bool { return d.confirmStop != nil }

// config leaves out the header, whose rev-id moves with every apply.
func (d *nvueDevice) config() string {
	out := d.show(d.applied)
	if i := strings.Index(out, "\n  {\n    \"set\""); i > 0 {
		return "[" + out[i:]
	}
	return out
}

func (d *nvueDevice) showRunning() string { return d.show(d.applied) }

// hand: `nv set`/`nv unset` commands applied at once.
func (d *nvueDevice) hand(lines []string) error {
	next := deepCopyJSON(d.applied).(map[string]any)
	for _, l := range lines {
		if msg := nvueEdit(next, strings.Fields(l)); msg != "" {
			return fmt.Errorf("sshsim: hand change %q: %s", l, msg)
		}
	}
	d.applied = next
	d.rev++
	return nil
}

func (d *nvueDevice) exec(s *session, raw string) string {
	line := normaliseLine(raw)
	if out, ok := d.sim.lockShell(s, line); ok {
		return out
	}
	f := strings.Fields(line)
	switch {
	case line == "":
		return ""
	case line == "exit" || line == "logout":
		s.closed = true
		return "logout"
	case len(f) >= 2 && f[0] == "nv" && (f[1] == "set" || f[1] == "unset"):
		if d.staged == nil {
			d.staged = deepCopyJSON(d.applied).(map[string]any)
		}
		return nvueEdit(d.staged, f)
	case len(f) >= 3 && f[0] == "nv" && f[1] == "config":
		return d.configCmd(f[2:])
	case len(f) >= 2 && f[0] == "nv" && f[1] == "show":
		if out, ok := d.showJSONNVUE(f); ok {
			return out
		}
	}
	switch {
	case f[0] == "hostname":
		return d.hostname()
	case line == "nv show interface -o json":
		return d.sim.nvueLLDP("", true)
	case len(f) == 7 && f[0] == "nv" && f[1] == "show" && f[2] == "interface" && f[4] == "lldp" && f[5] == "-o" && f[6] == "json":
		return d.sim.nvueLLDP(f[3], false)
	case f[0] == "nv":
		return "Usage: nv [options] <command> [<args>]...\nError: unknown command '" + strings.Join(f[1:], " ") + "'"
	}
	return "-bash: " + f[0] + ": command not found"
}

func (d *nvueDevice) configCmd(args []string) string {
	switch args[0] {
	case "detach":
		d.staged = nil
		return ""
	case "show":
		if len(args) == 3 && args[1] == "-o" && args[2] == "json" {
			return d.show(d.applied)
		}
		return d.show(d.applied)
	case "apply":
		return d.apply(args[1:])
	case "save":
		return "saved [rev_id: " + strconv.Itoa(d.rev) + "]"
	}
	return "Error: unknown command 'nv config " + strings.Join(args, " ") + "'"
}

// apply runs `nv config apply` with the options NVIDIA's NVUE command
// reference documents (Config Commands, nv config apply): -y/--y/
// --assume-yes and --assume-no answer prompts; --confirm [TIME] keeps the
// change only if confirmed within TIME, ten minutes by default, where a
// bare number is minutes ("nv config apply --confirm 60 requires you to
// confirm within one hour"); --confirm-status shows the time left;
// -m MESSAGE labels the revision in `nv config history`. The reference
// does not name the confirm and abort options; --confirm-yes and
// --confirm-no are what NVUE's CLI takes for them.
func (d *nvueDevice) apply(args []string) string {
	confirmSecs := 0
	message := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-y", "--y", "--assume-yes", "--assume-no":
		case "-m", "--message":
			if i+1 >= len(args) {
				return "Error: argument -m/--message: expected one argument"
			}
			i++
			message = strings.Trim(args[i], "'\"")
		case "--confirm-yes":
			if d.confirmStop == nil {
				return "Error: There is no pending confirmation."
			}
			d.confirmStop()
			d.confirmStop, d.previous = nil, nil
			return "applied [rev_id: " + strconv.Itoa(d.rev) + "] confirmed"
		case "--confirm-no":
			if d.confirmStop == nil {
				return "Error: There is no pending confirmation."
			}
			d.confirmStop()
			d.rollback()
			return "rolled back to the previous revision"
		case "--confirm-status":
			if d.confirmStop == nil {
				return "No pending confirmation."
			}
			left := int(d.confirmAt.Sub(d.sim.now())/d.sim.opt.Second) + 1
			return "Pending confirmation: " + strconv.Itoa(left) + " seconds left before automatic rollback."
		case "--confirm":
			confirmSecs = 600
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				mins, err := strconv.Atoi(args[i])
				if err != nil || mins < 1 {
					return "Error: invalid confirm time '" + args[i] + "'"
				}
				confirmSecs = 60 * mins
			}
		default:
			return "Error: unrecognized arguments: " + a
		}
	}
	if d.confirmStop != nil {
		return "Error: A previous apply is waiting for confirmation (nv config apply --confirm-yes or --confirm-no)."
	}
	if d.staged == nil {
		return "Warning: The following files have been changed since the last save, and they WILL be overwritten.\nnothing to apply"
	}
	if msg := d.sim.faults.CommitError; msg != "" {
		return "Error: Invalid config [rev_id: " + strconv.Itoa(d.rev+1) + "]\n  " + msg
	}
	if msg := nvueValidate(d.staged); msg != "" {
		return "Error: Invalid config [rev_id: " + strconv.Itoa(d.rev+1) + "]\n  " + msg
	}
	d.previous = d.applied
	d.applied, d.staged = d.staged, nil
	d.rev++
	d.messages = append(d.messages, message)
	if confirmSecs == 0 {
		d.previous = nil
		return "applied [rev_id: " + strconv.Itoa(d.rev) + "]"
	}
	d.confirmAt = d.sim.now().Add(time.Duration(confirmSecs) * d.sim.opt.Second)
	d.confirmStop = d.sim.after(float64(confirmSecs), func() {
		d.rollback()
		d.sim.log.Debug("nv config apply --confirm expired: rolled back")
	})
	return "applied [rev_id: " + strconv.Itoa(d.rev) + "]\nConfirm the change within " + strconv.Itoa(confirmSecs/60) + " minutes, or it is rolled back."
}

func (d *nvueDevice) rollback() {
	if d.previous != nil {
		d.applied = d.previous
		d.rev++
	}
	d.previous, d.confirmStop = nil, nil
}

// show prints `nv config show -o json`: a header object, then the
// configuration tree with the defaults NVUE fills in under objects set.
func (d *nvueDevice) show(tree map[string]any) string {
	view := deepCopyJSON(tree).(map[string]any)
	if ifs, ok := view["interface"].(map[string]any); ok {
		for name, v := range ifs {
			if m, ok := v.(map[string]any); ok {
				switch {
				case strings.HasPrefix(name, "swp"):
					m["type"] = "swp"
				case strings.HasPrefix(name, "bond"):
					m["type"] = "bond"
				case strings.HasPrefix(name, "eth"):
					m["type"] = "eth"
				}
			}
		}
	}
	if qos, ok := view["qos"].(map[string]any); ok {
		if pfc, ok := qos["pfc"].(map[string]any); ok {
			for _, v := range pfc {
				if p, ok := v.(map[string]any); ok {
					for k, def := range map[string]any{"cable-length": json.Number("100"), "port-buffer": json.Number("25000"), "xoff-threshold": json.Number("10000"), "xon-threshold": json.Number("2000")} {
						if _, set := p[k]; !set {
							p[k] = def
						}
					}
				}
			}
		}
		if cc, ok := qos["congestion-control"].(map[string]any); ok {
			for _, v := range cc {
				if prof, ok := v.(map[string]any); ok {
					if tcs, ok := prof["traffic-class"].(map[string]any); ok {
						for _, t := range tcs {
							if tc, ok := t.(map[string]any); ok {
								if _, set := tc["red"]; !set {
									tc["red"] = "disable"
								}
							}
						}
					}
				}
			}
		}
	}
	doc := []any{
		map[string]any{"header": map[string]any{"model": "SN4700", "nvue-api-version": "nvue_v1", "rev-id": json.Number(strconv.Itoa(d.rev) + ".0"), "version": "Cumulus Linux 5.9.0"}},
		map[string]any{"set": view},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(doc)
	return strings.TrimRight(b.String(), "\n")
}

var (
	nvueRoots     = []string{"acl", "bridge", "evpn", "interface", "mlag", "nve", "qos", "router", "service", "system", "vrf"}
	nvueQoS       = []string{"advance-buffer-config", "congestion-control", "egress-queue-mapping", "egress-scheduler", "link-pause", "mapping", "pfc", "remark", "roce", "traffic-pool"}
	nvueIfKids    = []string{"bond", "bridge", "description", "evpn", "ip", "link", "lldp", "ptp", "qos", "router", "type"}
	nvueIfName    = regexp.MustCompile(`^(swp\d+(s\d+)?(-\d+)?(,(swp)?\d+(s\d+)?(-\d+)?)*|eth\d+|bond[A-Za-z0-9_-]*|lo|vlan\d+|br_default|peerlink[A-Za-z0-9_.-]*)$`)
	nvueLeafValue = regexp.MustCompile(`^[A-Za-z0-9_.:/,@+-]+$`)
)

func oneOf(word string, allowed []string) bool {
	for _, a := range allowed {
		if word == a {
			return true
		}
	}
	return false
}

// nvueEdit runs `nv set ...` or `nv unset ...` (the words, "nv" first)
// on tree and returns the error NVUE prints, or "".
func nvueEdit(tree map[string]any, f []string) string {
	if len(f) < 3 || f[0] != "nv" || (f[1] != "set" && f[1] != "unset") {
		return "Usage: nv set|unset <attribute> ...\nError: missing path"
	}
	words := f[2:]
	if msg := nvueCheck(words); msg != "" {
		return msg
	}
	// A command applies whole or not at all.
	work := deepCopyJSON(tree).(map[string]any)
	for _, w := range nvueExpand(words) {
		if f[1] == "unset" {
			nvueUnset(work, w)
		} else if err := nvueSet(work, w); err != nil {
			return "Error: " + err.Error()
		}
	}
	for k := range tree {
		delete(tree, k)
	}
	for k, v := range work {
		tree[k] = v
	}
	return ""
}

func nvueCheck(w []string) string {
	if !oneOf(w[0], nvueRoots) {
		return fmt.Sprintf("Error: '%s' is not one of ['%s']", w[0], strings.Join(nvueRoots, "', '"))
	}
	switch w[0] {
	case "qos":
		if len(w) > 1 && !oneOf(w[1], nvueQoS) {
			return fmt.Sprintf("Error: '%s' is not one of ['%s']", w[1], strings.Join(nvueQoS, "', '"))
		}
	case "interface":
		if len(w) > 1 && !nvueIfName.MatchString(w[1]) {
			return fmt.Sprintf("Error: '%s' is not a valid interface name", w[1])
		}
		if len(w) > 2 && !oneOf(w[2], nvueIfKids) {
			return fmt.Sprintf("Error: '%s' is not one of ['%s']", w[2], strings.Join(nvueIfKids, "', '"))
		}
		if len(w) == 5 && w[2] == "link" && w[3] == "mtu" {
			if n, err := strconv.Atoi(w[4]); err != nil || n < 552 || n > 9216 {
				return fmt.Sprintf("Error: Invalid value '%s' for mtu: must be between 552 and 9216", w[4])
			}
		}
	}
	for i, x := range w {
		if !nvueLeafValue.MatchString(x) {
			return fmt.Sprintf("Error: '%s' is not a valid value", x)
		}
		// A leaf attribute takes exactly one value word.
		if nvueLeaves[x] && i > 0 && i != len(w)-2 && i != len(w)-1 {
			return fmt.Sprintf("Error: '%s' takes one value, got '%s'", x, strings.Join(w[i+1:], " "))
		}
	}
	return ""
}

// nvueLeaves are attributes that hold one value, never an object.
var nvueLeaves = map[string]bool{
	"mtu": true, "description": true, "state": true, "memory-percent": true, "bw-percent": true,
	"mode": true, "probability": true, "min-threshold": true, "max-threshold": true, "ecn": true,
	"red": true, "trust": true, "cable-length": true, "port-buffer": true, "xoff-threshold": true,
	"xon-threshold": true, "tx": true, "rx": true, "hostname": true, "speed": true,
}

// nvueExpand expands interface ranges ("swp1-4", "swp1,swp3") and numeric
// lists ("traffic-class 0,3", "vlan 10,100-102") into one command each.
func nvueExpand(words []string) [][]string { return nvueExpandFrom(words, 0) }

// nvueExpandFrom expands words from index start on; expanded items are not
// expanded again.
func nvueExpandFrom(words []string, start int) [][]string {
	for i := start; i < len(words); i++ {
		w := words[i]
		var items []string
		switch {
		case i == 1 && words[0] == "interface" && strings.ContainsAny(w, ",-"):
			for _, part := range strings.Split(w, ",") {
				items = append(items, expandSwpRange(part)...)
			}
		case i > 0 && (words[i-1] == "traffic-class" || words[i-1] == "switch-priority" || words[i-1] == "vlan") && strings.ContainsAny(w, ",-"):
			// NVUE keeps one key per VLAN: `vlan 10,20` sets '10' and '20'.
			limit := 64
			if words[i-1] == "vlan" {
				limit = maxVLAN
			}
			for _, part := range strings.Split(w, ",") {
				lo, hi, isRange := strings.Cut(part, "-")
				a, err1 := strconv.Atoi(lo)
				b, err2 := strconv.Atoi(hi)
				if !isRange {
					b, err2 = a, nil
				}
				if err1 != nil || err2 != nil || b < a || b-a > limit {
					items = append(items, part)
					continue
				}
				for v := a; v <= b; v++ {
					items = append(items, strconv.Itoa(v))
				}
			}
		default:
			continue
		}
		var out [][]string
		for _, it := range items {
			w2 := append(append(append([]string(nil), words[:i]...), it), words[i+1:]...)
			out = append(out, nvueExpandFrom(w2, i+1)...)
		}
		return out
	}
	return [][]string{words}
}

var swpRange = regexp.MustCompile(`^swp(\d+)-(\d+)$`)

// expandSwpRange expands one part of an interface range; NVIDIA's port
// ranges carry the prefix once ("swp1-4,6,10-12"), so a bare number or
// range after the first part is a swp port too.
func expandSwpRange(s string) []string {
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		s = "swp" + s
	}
	m := swpRange.FindStringSubmatch(s)
	if m == nil {
		return []string{s}
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	if b < a || b-a > 256 {
		return []string{s}
	}
	var out []string
	for i := a; i <= b; i++ {
		out = append(out, "swp"+strconv.Itoa(i))
	}
	return out
}

// nvueIsCollection says whether the last word of a command keys a
// collection (an object entry) rather than being a leaf's value, following
// NVUE's schema for the objects rocefab and common configs use.
func nvueIsCollection(w []string) bool {
	n := len(w)
	if n < 3 || w[n-1] == "pfc-watchdog" {
		return true
	}
	switch w[n-2] {
	case "vlan", "member", "server", "address":
		return true
	case "domain": // "bridge domain br_default": a bridge port
		return w[n-3] == "bridge"
	case "switch-priority":
		return !oneOf("mapping", w)
	}
	return false
}

func nvueSet(tree map[string]any, w []string) error {
	keys := w
	var value any
	if !nvueIsCollection(w) {
		keys = w[:len(w)-1]
		value = nvueTyped(w[len(w)-1])
	}
	cur := tree
	for i, k := range keys {
		last := i == len(keys)-1
		if last && value != nil {
			if m, isObj := cur[k].(map[string]any); isObj && len(m) > 0 {
				return fmt.Errorf("'%s' is an object, not a value", strings.Join(keys, " "))
			}
			cur[k] = value
			return nil
		}
		next, ok := cur[k].(map[string]any)
		if !ok {
			if _, isLeaf := cur[k]; isLeaf {
				return fmt.Errorf("'%s' is a value, not an object", strings.Join(keys[:i+1], " "))
			}
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	return nil
}

func nvueTyped(s string) any {
	if s == "0" || (s != "" && s[0] != '0' && strings.Trim(s, "0123456789") == "" && len(s) < 19) {
		return json.Number(s)
	}
	return s
}

// nvueUnset removes the node at the words (a trailing value is ignored,
// as NVUE does) and any object it leaves empty.
func nvueUnset(tree map[string]any, w []string) {
	chain := []map[string]any{tree}
	cur := tree
	for i, k := range w {
		v, ok := cur[k]
		if !ok {
			return
		}
		if i == len(w)-1 {
			delete(cur, k)
			break
		}
		next, isObj := v.(map[string]any)
		if !isObj {
			delete(cur, k) // "unset link mtu 9216": the value word is ignored
			break
		}
		chain = append(chain, next)
		cur = next
	}
	for i := len(chain) - 1; i > 0; i-- {
		if len(chain[i]) > 0 {
			break
		}
		delete(chain[i-1], w[i-1])
	}
}

// nvueValidate is what `nv config apply` refuses in the configuration as
// a whole: NVIDIA's QoS guide says the bw-percent values of an egress
// scheduler profile's traffic classes add up to at most 100.
func nvueValidate(tree map[string]any) string {
	qos, _ := tree["qos"].(map[string]any)
	scheds, _ := qos["egress-scheduler"].(map[string]any)
	names := make([]string, 0, len(scheds))
	for name := range scheds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prof, _ := scheds[name].(map[string]any)
		tcs, _ := prof["traffic-class"].(map[string]any)
		total := 0
		for _, tc := range tcs {
			if m, ok := tc.(map[string]any); ok {
				if v, ok := m["bw-percent"].(json.Number); ok {
					n, _ := strconv.Atoi(v.String())
					total += n
				}
			}
		}
		if total > 100 {
			return fmt.Sprintf("qos egress-scheduler %s: the bw-percent of its traffic classes add up to %d, more than 100", name, total)
		}
	}
	return ""
}
