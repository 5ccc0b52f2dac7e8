package sshsim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// iosDevice plays NX-OS or EOS: an IOS-style CLI with exec, privileged and
// configuration modes, NX-OS checkpoints and EOS configuration sessions.
type iosDevice struct {
	sim     *Sim
	nxos    bool
	g       grammar
	running *node
	// lastChange feeds NX-OS's "last done at" header.
	lastChange time.Time

	checkpoints map[string]*checkpoint // NX-OS
	bootflash   map[string]*flashFile  // NX-OS files: copy running-config, SCP
	replace     *pendingReplace        // NX-OS configure replace waiting for commit
	sessions    map[string]*eosSession // EOS
}

func newIOSDevice(s *Sim) (*iosDevice, error) {
	d := &iosDevice{
		sim:         s,
		nxos:        s.opt.Personality == NXOS,
		checkpoints: map[string]*checkpoint{},
		bootflash:   map[string]*flashFile{},
		sessions:    map[string]*eosSession{},
		lastChange:  s.now(),
	}
	d.g = eosGrammar
	text := eosInitial(s.opt)
	if d.nxos {
		d.g = nxosGrammar
		text = nxosInitial(s.opt)
	}
	root, err := parseTreeText(text)
	if err != nil {
		return nil, fmt.Errorf("sshsim: initial configuration: %w", err)
	}
	d.running = root
	return d, nil
}

func (d *iosDevice) hostnameNow() string {
	for _, n := range d.running.kids {
		if h, ok := strings.CutPrefix(n.line, "hostname "); ok {
			return h
		}
	}
	return d.sim.opt.Hostname
}

func (d *iosDevice) login(s *session) string {
	// NX-OS admins land in privileged mode; EOS starts at `>`.
	s.privileged = d.nxos
	if d.nxos {
		return "Cisco Nexus Operating System (NX-OS) Software\nTAC support: http://www.cisco.com/tac\n"
	}
	return "Last login: " + d.sim.now().UTC().Format("Mon Jan 2 15:04:05 2006") + " from 127.0.0.1\n"
}

func (d *iosDevice) logout(*session) {}

func (d *iosDevice) prompt(s *session) string {
	host := d.hostnameNow()
	tail := ""
	if d.nxos {
		tail = " "
	}
	if !s.inConfig {
		if s.privileged {
			return host + "#" + tail
		}
		return host + ">" + tail
	}
	tag := "config"
	if s.cfgSession != "" {
		name := s.cfgSession
		if len(name) > 6 {
			name = name[:6]
		}
		tag += "-s-" + name
	}
	if len(s.ctx.path) > 0 {
		if d.nxos {
			tag = "config-" + nxosModeTag(s.ctx.mode())
		} else {
			tag += "-" + d.eosModeTag(s.ctx)
		}
	}
	if len(tag) > 60 {
		tag = tag[:60]
	}
	return host + "(" + tag + ")#" + tail
}

// target is the tree a session's configuration lines change.
func (d *iosDevice) target(s *session) *node {
	if s.cfgSession != "" {
		if cs, ok := d.sessions[s.cfgSession]; ok {
			return cs.candidate
		}
	}
	return d.running
}

func (d *iosDevice) sameLine(a, b string) bool {
	return d.displayLine(a) == d.displayLine(b)
}

// displayLine is how the device shows a stored line: EOS hides the
// default `weight 0` of `random-detect ecn` lines.
func (d *iosDevice) displayLine(line string) string {
	if !d.nxos && strings.HasPrefix(line, "random-detect ecn ") {
		return strings.TrimSuffix(line, " weight 0")
	}
	return line
}

func (d *iosDevice) invalid(s *session, line string) string {
	if d.nxos {
		return strings.Repeat(" ", len(d.prompt(s))) + "^\n% Invalid command at '^' marker."
	}
	word, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	return fmt.Sprintf("%% Invalid input (at token 0: '%s')", word)
}

func (d *iosDevice) pending() bool {
	if d.replace != nil {
		return true
	}
	for _, cs := range d.sessions {
		if cs.pendingTimer != nil {
			return true
		}
	}
	return false
}

func (d *iosDevice) touched() { d.lastChange = d.sim.now() }

func (d *iosDevice) exec(s *session, raw string) string {
	line := normaliseLine(raw)
	if s.inConfig {
		return d.execConfig(s, line)
	}
	return d.execExec(s, line)
}

func (d *iosDevice) execConfig(s *session, line string) string {
	if !d.nxos && s.cfgSession != "" {
		switch line {
		case "commit":
			return d.commitSession(s, 0)
		case "abort":
			delete(d.sessions, s.cfgSession)
			s.cfgSession, s.inConfig = "", false
			s.ctx.truncate(0)
			return ""
		case "show session-config":
			return d.render(d.target(s), false)
		}
		if rest, ok := strings.CutPrefix(line, "commit timer "); ok {
			secs, err := parseHMS(rest)
			if err != nil {
				return "% Invalid input (at token 2: '" + rest + "')"
			}
			return d.commitSession(s, secs)
		}
	}
	if strings.HasPrefix(line, "show ") || line == "show" {
		return d.show(s, strings.TrimPrefix(line, "show "))
	}
	if strings.HasPrefix(line, "do ") {
		return d.execExec(s, strings.TrimPrefix(line, "do "))
	}
	switch applyConfigLine(d.g, d.target(s), &s.ctx, line, d.sameLine, d.rank) {
	case invalid:
		return d.invalid(s, line)
	case leftConfig:
		s.inConfig = false
		s.cfgSession = ""
	}
	if d.target(s) == d.running {
		d.touched()
	}
	return ""
}

func (d *iosDevice) execExec(s *session, line string) string {
	switch {
	case line == "":
		return ""
	case line == "exit" || line == "quit" || line == "logout":
		s.closed = true
		return ""
	case line == "enable":
		if d.sim.opt.EnableSecret == "" {
			s.privileged = true
			return ""
		}
		s.secret = func(pw string) string {
			if pw == d.sim.opt.EnableSecret {
				s.privileged = true
				return ""
			}
			return "% Access denied"
		}
		return "Password: "
	case line == "disable":
		s.privileged = false
		return ""
	case strings.HasPrefix(line, "terminal "):
		if w, ok := strings.CutPrefix(line, "terminal width "); ok && d.nxos {
			n, err := strconv.Atoi(w)
			if err != nil || n < 24 || n > 511 {
				return d.invalid(s, line)
			}
			s.width = n
		}
		return ""
	case strings.HasPrefix(line, "show "):
		return d.show(s, strings.TrimPrefix(line, "show "))
	}
	if !s.privileged {
		return "% Invalid input (privileged mode required)"
	}
	switch {
	case line == "configure terminal" || line == "configure" || line == "config t" || line == "conf t":
		s.inConfig = true
		s.ctx.truncate(0)
		if d.nxos {
			return "Enter configuration commands, one per line. End with CNTL/Z."
		}
		return ""
	case d.nxos && line == "dir bootflash:":
		return d.show(s, "bootflash:")
	case line == "copy running-config startup-config" || line == "write memory":
		if d.nxos {
			return "[########################################] 100%\nCopy complete, now saving to disk (please wait)...\nCopy complete."
		}
		return "Copy completed successfully."
	}
	if d.nxos {
		return d.execNXOS(s, line)
	}
	return d.execEOS(s, line)
}

func (d *iosDevice) show(s *session, what string) string {
	switch {
	case what == "running-config" || what == "running-config all" || what == "run":
		return d.showRunning()
	case what == "version":
		if d.nxos {
			return "Cisco Nexus Operating System (NX-OS) Software\n  NXOS: version 10.3(4a)\n  cisco Nexus9000 C9364C Chassis"
		}
		return "Arista DCS-7060X5-64S\nSoftware image version: 4.31.2F"
	case what == "hostname":
		return d.hostnameNow()
	case what == "checkpoint summary" && d.nxos:
		names := make([]string, 0, len(d.checkpoints))
		for n := range d.checkpoints {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		b.WriteString("User Checkpoint Summary\n--------------------------------------------------------------------------------\n")
		for i, n := range names {
			cp := d.checkpoints[n]
			fmt.Fprintf(&b, "%d) %s:\nCreated by %s\nCreated at %s\nSize is %d bytes\nDescription: %s\n\n", i+1, n, cp.user,
				cp.at.UTC().Format("Mon, 15:04:05 02 Jan 2006"), len(d.render(cp.config, false)), descOrNone(cp.description))
		}
		return b.String()
	case what == "config-replace status" && d.nxos:
		if d.replace == nil {
			return "Last operation            : Configure replace\nCommit timer              : not running"
		}
		left := int(d.replace.deadline.Sub(d.sim.now())/d.sim.opt.Second) + 1
		return fmt.Sprintf("Last operation            : Configure replace\nCommit timer              : running, %d seconds left", left)
	case what == "bootflash:" && d.nxos, what == "dir bootflash:" && d.nxos:
		names := make([]string, 0, len(d.bootflash))
		for n := range d.bootflash {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			size := len(d.bootflash[n].text)
			if f := d.bootflash[n]; f.config != nil {
				size = len(d.render(f.config, false))
			}
			fmt.Fprintf(&b, "%10d    %s  %s\n", size, d.sim.now().UTC().Format("Jan 02 15:04:05 2006"), n)
		}
		return b.String()
	case what == "configuration sessions" && !d.nxos:
		var b strings.Builder
		b.WriteString("   Name         State           User    Terminal\n   ------------ --------------- ------- --------\n")
		names := make([]string, 0, len(d.sessions))
		for n := range d.sessions {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			state := "pending"
			if d.sessions[n].pendingTimer != nil {
				state = "pendingCommitTimer"
			}
			fmt.Fprintf(&b, "   %-12s %-15s %-7s\n", n, state, s.user)
		}
		return b.String()
	case what == "lldp neighbors detail | json":
		return d.showLLDPJSON()
	case strings.HasSuffix(what, " | json"):
		if out, ok := d.showJSONIOS(what); ok {
			return out
		}
	}
	switch {
	case what == "interface priority-flow-control" && d.nxos:
		return d.showNXOSPFC()
	case strings.HasPrefix(what, "queuing interface ") && d.nxos:
		return d.showNXOSQueuing(strings.TrimPrefix(what, "queuing interface "))
	case what == "priority-flow-control counters" && !d.nxos:
		return d.showEOSPFC()
	case what == "interfaces counters ecn" && !d.nxos:
		return d.showEOSECN()
	}
	if d.nxos {
		return d.invalid(s, "show "+what)
	}
	return "% Invalid input (at token 1: '" + firstWord(what) + "')"
}

// rank is the section a top-level line belongs to; the device prints
// sections in this order.
func (d *iosDevice) rank(line string) int {
	prefixes := eosRanks
	if d.nxos {
		prefixes = nxosRanks
	}
	for _, r := range prefixes {
		if strings.HasPrefix(line, r.prefix) {
			return r.rank
		}
	}
	return 0
}

type sectionRank struct {
	prefix string
	rank   int
}

var (
	nxosRanks = []sectionRank{{"class-map", 1}, {"policy-map", 2}, {"system qos", 3}, {"priority-flow-control", 4},
		{"vlan ", 5}, {"line ", 6}, {"vrf ", 6}, {"interface ", 7}, {"router ", 8}}
	eosRanks = []sectionRank{{"qos map", 1}, {"qos profile", 2}, {"class-map", 2}, {"policy-map", 2}, {"priority-flow-control", 3},
		{"vlan ", 5}, {"interface ", 7}, {"ip routing", 8}, {"ip route", 8}, {"router ", 9}, {"management ", 10}}
)

func vlanIDs(list string) ([]int, bool) {
	var ids []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 || a > 4094 {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > 4094 {
				return nil, false
			}
		}
		for v := a; v <= b; v++ {
			ids = append(ids, v)
		}
	}
	return ids, true
}

// compressIDs writes sorted ids as "1,10,100-102".
func compressIDs(ids []int) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] <= ids[j]+1 {
			j++
		}
		if ids[j] == ids[i] {
			parts = append(parts, strconv.Itoa(ids[i]))
		} else {
			parts = append(parts, strconv.Itoa(ids[i])+"-"+strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func (d *iosDevice) style() treeStyle {
	if d.nxos {
		return treeStyle{
			indent: 2,
			top:    nxosFoldVLANs,
			split:  nxosSplitList,
			generated: func(parents []string, n *node) []string {
				if len(parents) == 0 && strings.HasPrefix(n.line, "interface Ethernet") && n.find("shutdown") == nil {
					return []string{"no shutdown"}
				}
				return nil
			},
		}
	}
	return treeStyle{indent: 3, display: d.displayLine, separators: true, isBlock: func(line string) bool {
		spec, ok := d.g.match("config", line)
		return ok && spec.enter != ""
	}}
}

func (d *iosDevice) render(root *node, volatile bool) string {
	var b strings.Builder
	if d.nxos {
		b.WriteString("\n!Command: show running-config\n")
		if volatile {
			fmt.Fprintf(&b, "!Running configuration last done at: %s\n", d.lastChange.UTC().Format("Mon Jan _2 15:04:05 2006"))
			fmt.Fprintf(&b, "!Time: %s\n", d.sim.now().UTC().Format("Mon Jan _2 15:04:05 2006"))
		}
		b.WriteString("\nversion 10.3(4a) Bios:version 05.47\n")
		renderTree(&b, root, d.style())
		return b.String()
	}
	b.WriteString("! Command: show running-config\n")
	fmt.Fprintf(&b, "! device: %s (DCS-7060X5-64S, EOS-4.31.2F)\n!\n! boot system flash:/EOS-4.31.2F.swi\n!\n", d.hostnameOf(root))
	renderTree(&b, root, d.style())
	b.WriteString("end\n")
	return b.String()
}

func (d *iosDevice) hostnameOf(root *node) string {
	for _, n := range root.kids {
		if h, ok := strings.CutPrefix(n.line, "hostname "); ok {
			return h
		}
	}
	return d.sim.opt.Hostname
}

func (d *iosDevice) showRunning() string { return d.render(d.running, true) }

func (d *iosDevice) config() string { return d.render(d.running, false) }

func (d *iosDevice) hand(lines []string) error {
	var ctx iosContext
	for _, l := range lines {
		if applyConfigLine(d.g, d.running, &ctx, l, d.sameLine, d.rank) == invalid {
			return fmt.Errorf("sshsim: hand change rejected: %q", l)
		}
	}
	d.touched()
	return nil
}

// interfaceConfigured reports whether an interface carries a line with prefix.
func (d *iosDevice) interfaceHas(n *node, prefix string) bool {
	for _, k := range n.kids {
		if strings.HasPrefix(k.line, prefix) {
			return true
		}
	}
	return false
}

func (d *iosDevice) ethernetPorts() []*node {
	var out []*node
	for _, n := range d.running.kids {
		if strings.HasPrefix(n.line, "interface Ethernet") {
			out = append(out, n)
		}
	}
	return out
}
