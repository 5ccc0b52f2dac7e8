package sshsim

import (
	"fmt"
	"regexp"
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
	bootflash   map[string]*node       // NX-OS files written by copy running-config
	replace     *pendingReplace        // NX-OS configure replace waiting for commit
	sessions    map[string]*eosSession // EOS
}

// checkpoint is an NX-OS configuration checkpoint.
type checkpoint struct {
	config      *node
	description string
	user        string
	at          time.Time
}

// pendingReplace is an NX-OS configure replace with a commit timeout: the
// device goes back to previous by itself unless `configure replace commit`
// comes first.
type pendingReplace struct {
	previous *node
	stop     func() bool
	deadline time.Time
}

// eosSession is an EOS configuration session: a private copy of the running
// configuration, committed or aborted as a whole.
type eosSession struct {
	name      string
	candidate *node
	// pendingTimer is set while a `commit timer` waits for confirmation.
	pendingTimer func() bool
	previous     *node
}

func newIOSDevice(s *Sim) (*iosDevice, error) {
	d := &iosDevice{
		sim:         s,
		nxos:        s.opt.Personality == NXOS,
		checkpoints: map[string]*checkpoint{},
		bootflash:   map[string]*node{},
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

func nxosInitial(o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hostname %s\n", o.Hostname)
	if !o.Blank {
		b.WriteString(`feature lldp
feature interface-vlan
username admin password 5 $5$KFHSSV$Hx1mjM1z4SAbyOv8A0D.8G0PWn2nUPrIBe1gi2x0Fj4  role network-admin
ip domain-lookup
class-map type qos match-any FOREIGN-VOICE
  match dscp 46
policy-map type qos FOREIGN-MARKING
  class FOREIGN-VOICE
    set qos-group 5
vlan 1
vlan 10
  name servers
line console
  exec-timeout 15
`)
	}
	for i := 1; i <= o.Ports; i++ {
		fmt.Fprintf(&b, "interface Ethernet1/%d\n", i)
		if !o.Blank {
			switch {
			case i == 1:
				b.WriteString("  description gpu01 ens1f0np0\n")
			case i == o.Ports-1:
				b.WriteString("  description backup-uplink\n  switchport mode trunk\n  switchport trunk allowed vlan 10\n  mtu 1500\n")
			case i == o.Ports:
				b.WriteString("  description storage-uplink\n  service-policy type qos input FOREIGN-MARKING\n")
			}
		}
	}
	if !o.Blank {
		b.WriteString("interface mgmt0\n  vrf member management\n  ip address 10.0.0.11/24\n")
	}
	return b.String()
}

func eosInitial(o Options) string {
	var b strings.Builder
	if !o.Blank {
		b.WriteString(`no aaa root
username admin privilege 15 role network-admin secret sha512 $6$1u9Mnq7Ih1FQ1KkL$9bzLhcbQ1d0Ef5dbmuBX0Hs9lT3ZbsmCuc6c8HkgD4/
transceiver qsfp default-mode 4x10G
service routing protocols model multi-agent
`)
	}
	fmt.Fprintf(&b, "hostname %s\n", o.Hostname)
	if !o.Blank {
		b.WriteString("spanning-tree mode mstp\nqos map traffic-class 5 to dscp 46\nvlan 10\n   name servers\n")
	}
	for i := 1; i <= o.Ports; i++ {
		fmt.Fprintf(&b, "interface Ethernet%d\n", i)
		if !o.Blank {
			switch {
			case i == 1:
				b.WriteString("   description gpu02 ens1f0np0\n")
			case i == o.Ports:
				b.WriteString("   description storage-uplink\n   switchport mode trunk\n   switchport trunk allowed vlan 10\n   mtu 1500\n")
			}
		}
	}
	if !o.Blank {
		b.WriteString("interface Management1\n   ip address 10.0.0.12/24\nip routing\n")
	}
	return b.String()
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

func nxosModeTag(mode string) string {
	switch mode {
	case "line":
		return "console"
	}
	return mode
}

var eosIfShort = strings.NewReplacer("Ethernet", "Et", "Port-Channel", "Po", "Management", "Ma", "Vlan", "Vl", "Loopback", "Lo")

func (d *iosDevice) eosModeTag(ctx iosContext) string {
	var parts []string
	for i, line := range ctx.path {
		arg := line
		if f := strings.Fields(line); len(f) > 0 {
			arg = f[len(f)-1]
		}
		switch ctx.modes[i] {
		case "if":
			parts = append(parts, "if-"+eosIfShort.Replace(arg))
		case "qos-profile":
			parts = append(parts, "qos-profile-"+arg)
		case "qos-profile-txq", "txq":
			parts = append(parts, "txq-"+arg)
		case "vlan":
			parts = append(parts, "vlan-"+arg)
		default:
			parts = append(parts, ctx.modes[i])
		}
	}
	return strings.Join(parts, "-")
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

// commitSession applies the session's candidate; with a timer, the change
// rolls back unless confirmed with `configure session NAME commit`.
func (d *iosDevice) commitSession(s *session, timerSecs int) string {
	cs := d.sessions[s.cfgSession]
	s.inConfig, s.cfgSession = false, ""
	s.ctx.truncate(0)
	if cs == nil {
		return "% Cannot commit: session does not exist"
	}
	if msg := d.sim.faults.CommitError; msg != "" {
		return "% Cannot commit session " + cs.name + ": " + msg
	}
	if timerSecs == 0 {
		d.running = cs.candidate
		delete(d.sessions, cs.name)
		d.touched()
		return ""
	}
	cs.previous = d.running
	d.running = cs.candidate.clone()
	d.touched()
	name := cs.name
	cs.pendingTimer = d.sim.after(float64(timerSecs), func() {
		if cur, ok := d.sessions[name]; ok && cur == cs {
			d.running = cs.previous
			delete(d.sessions, name)
			d.touched()
			d.sim.log.Debug("commit timer expired: configuration rolled back")
		}
	})
	return ""
}

func descOrNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

func parseHMS(s string) (int, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0, fmt.Errorf("want hh:mm:ss")
	}
	total := 0
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (i > 0 && n > 59) {
			return 0, fmt.Errorf("bad %q", p)
		}
		total = total*60 + n
	}
	if total == 0 {
		return 0, fmt.Errorf("zero timer")
	}
	return total, nil
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

var checkpointName = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,80}$`)

// execNXOS runs NX-OS's checkpoint, rollback and configure replace
// commands, from Cisco's Nexus 9000 System Management Configuration
// Guide: checkpoint names are unique ("You cannot overwrite previously
// saved checkpoints with the same name"), at most ten, with an optional
// description of up to 80 characters; configure replace replaces the
// running configuration with a file and, with commit-timeout (30-3600
// seconds), rolls back to the previous configuration by itself unless
// `configure replace commit` comes first.
func (d *iosDevice) execNXOS(s *session, line string) string {
	if rest, ok := strings.CutPrefix(line, "checkpoint "); ok {
		name, desc, _ := strings.Cut(rest, " description ")
		if !checkpointName.MatchString(name) || len(desc) > 80 {
			return d.invalid(s, line)
		}
		if _, dup := d.checkpoints[name]; dup {
			return "ERROR: Checkpoint name " + name + " is already in use"
		}
		if len(d.checkpoints) >= 10 {
			return "ERROR: Maximum number of checkpoints (10) reached"
		}
		d.checkpoints[name] = &checkpoint{config: d.running.clone(), description: desc, user: s.user, at: d.sim.now()}
		return "...........Done"
	}
	if name, ok := strings.CutPrefix(line, "rollback running-config checkpoint "); ok {
		name = strings.TrimSuffix(name, " atomic")
		cp, found := d.checkpoints[name]
		if !found {
			return "ERROR: Checkpoint " + name + " does not exist"
		}
		d.running = cp.config.clone()
		d.touched()
		return "Note: Applying config parallelly may fail Rollback verification\nCollecting Running-Config\n#Generating Rollback Patch\nExecuting Rollback Patch\nGenerating Running-config for verification\nGenerating Patch for verification\nVerification is Successful.\n\nRollback completed successfully."
	}
	if name, ok := strings.CutPrefix(line, "no checkpoint "); ok {
		if _, found := d.checkpoints[name]; !found {
			return "ERROR: Checkpoint " + name + " does not exist"
		}
		delete(d.checkpoints, name)
		return ""
	}
	if line == "clear checkpoint database" {
		d.checkpoints = map[string]*checkpoint{}
		return ""
	}
	if file, ok := strings.CutPrefix(line, "copy running-config bootflash:"); ok {
		if !checkpointName.MatchString(file) {
			return d.invalid(s, line)
		}
		d.bootflash[file] = d.running.clone()
		return "Copy complete."
	}
	if rest, ok := strings.CutPrefix(line, "delete bootflash:"); ok {
		file := strings.TrimSuffix(rest, " no-prompt")
		if _, found := d.bootflash[file]; !found {
			return "No such file or directory"
		}
		delete(d.bootflash, file)
		return ""
	}
	if line == "configure replace commit" {
		if d.replace == nil {
			return "ERROR: No configure replace commit is pending"
		}
		d.replace.stop()
		d.replace = nil
		return "Configure replace commit successful."
	}
	if rest, ok := strings.CutPrefix(line, "configure replace bootflash:"); ok {
		return d.configureReplace(s, line, rest)
	}
	return d.invalid(s, line)
}

// configureReplace runs `configure replace bootflash:FILE [verbose]
// [commit-timeout SECONDS]`.
func (d *iosDevice) configureReplace(s *session, line, rest string) string {
	f := strings.Fields(rest)
	file, secs := f[0], 0
	for i := 1; i < len(f); i++ {
		switch {
		case f[i] == "verbose":
		case f[i] == "commit-timeout" && i+1 < len(f):
			n, err := strconv.Atoi(f[i+1])
			if err != nil || n < 30 || n > 3600 {
				return "ERROR: commit-timeout must be between 30 and 3600 seconds"
			}
			secs = n
			i++
		default:
			return d.invalid(s, line)
		}
	}
	target, found := d.bootflash[file]
	if !found {
		return "ERROR: bootflash:" + file + ": No such file or directory"
	}
	if d.replace != nil {
		return "ERROR: A configure replace is waiting for commit; run 'configure replace commit' first"
	}
	if msg := d.sim.faults.CommitError; msg != "" {
		return "ERROR: Configure replace failed: " + msg + "\nRollback to the original configuration is successful."
	}
	previous := d.running
	d.running = target.clone()
	d.touched()
	if secs == 0 {
		return "Configure replace completed successfully."
	}
	pr := &pendingReplace{previous: previous, deadline: d.sim.now().Add(time.Duration(secs) * d.sim.opt.Second)}
	pr.stop = d.sim.after(float64(secs), func() {
		if d.replace == pr {
			d.running = pr.previous
			d.replace = nil
			d.touched()
			d.sim.log.Debug("configure replace commit timer expired: configuration rolled back")
		}
	})
	d.replace = pr
	return fmt.Sprintf("Configure replace completed successfully.\nPlease run 'configure replace commit' within %d seconds, else the configuration rolls back.", secs)
}

func (d *iosDevice) execEOS(s *session, line string) string {
	if rest, ok := strings.CutPrefix(line, "configure session "); ok {
		f := strings.Fields(rest)
		name := f[0]
		if !checkpointName.MatchString(name) {
			return d.invalid(s, line)
		}
		cs := d.sessions[name]
		if len(f) == 2 {
			switch f[1] {
			case "commit":
				if cs == nil {
					return "% Cannot commit: session " + name + " does not exist"
				}
				if cs.pendingTimer != nil {
					cs.pendingTimer()
					delete(d.sessions, name)
					return ""
				}
				s.cfgSession = name
				return d.commitSession(s, 0)
			case "abort":
				if cs == nil {
					return "% Error: session " + name + " does not exist"
				}
				if cs.pendingTimer != nil {
					cs.pendingTimer()
					d.running = cs.previous
					d.touched()
				}
				delete(d.sessions, name)
				return ""
			}
			return d.invalid(s, line)
		}
		if len(f) != 1 {
			return d.invalid(s, line)
		}
		if cs != nil && cs.pendingTimer != nil {
			return "% Error: session " + name + " has a pending commit timer"
		}
		if cs == nil {
			d.sessions[name] = &eosSession{name: name, candidate: d.running.clone()}
		}
		s.inConfig, s.cfgSession = true, name
		s.ctx.truncate(0)
		return ""
	}
	if name, ok := strings.CutPrefix(line, "no configure session "); ok {
		if cs := d.sessions[name]; cs != nil && cs.pendingTimer == nil {
			delete(d.sessions, name)
			return ""
		}
		return "% Error: session " + name + " does not exist"
	}
	return d.invalid(s, line)
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
			fmt.Fprintf(&b, "%10d    %s  %s\n", len(d.render(d.bootflash[n], false)), d.sim.now().UTC().Format("Jan 02 15:04:05 2006"), n)
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

// nxosFoldVLANs prints NX-OS's VLAN section: one "vlan 1,10,100" line
// listing every VLAN, then a block only for VLANs with configuration.
func nxosFoldVLANs(nodes []*node) []*node {
	var ids []int
	var blocks []*node
	first := -1
	var out []*node
	for _, n := range nodes {
		list, ok := strings.CutPrefix(n.line, "vlan ")
		if !ok {
			out = append(out, n)
			continue
		}
		vs, ok := vlanIDs(list)
		if !ok {
			out = append(out, n)
			continue
		}
		if first < 0 {
			first = len(out)
			out = append(out, nil) // the list line goes here
		}
		ids = append(ids, vs...)
		if len(n.kids) > 0 {
			blocks = append(blocks, n)
		}
	}
	if first < 0 {
		return nodes
	}
	sort.Ints(ids)
	out[first] = &node{line: "vlan " + compressIDs(ids)}
	return append(out[:first+1], append(blocks, out[first+1:]...)...)
}

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

func (d *iosDevice) showNXOSPFC() string {
	var b strings.Builder
	b.WriteString("\nslot  1\n=======\n\n\n============================================================\nPort               Mode Oper(VL bmap)  RxPPP      TxPPP     \n============================================================\n\n")
	for _, n := range d.ethernetPorts() {
		port := strings.TrimPrefix(n.line, "interface ")
		on := d.interfaceHas(n, "priority-flow-control mode on")
		c := d.sim.tick(port, on)
		mode, oper := "Auto", "Off        "
		if on {
			mode, oper = "On  ", "On  (8)    "
		}
		fmt.Fprintf(&b, "%-18s %s %s %-10d %-10d\n", port, mode, oper, c.PFCRx, c.PFCTx)
	}
	return b.String()
}

func (d *iosDevice) showNXOSQueuing(port string) string {
	port = strings.ReplaceAll(port, " ", "")
	port = strings.Replace(port, "ethernet", "Ethernet", 1)
	n := d.running.find("interface " + port)
	if n == nil {
		return "Invalid interface format at '^' marker."
	}
	on := d.interfaceHas(n, "priority-flow-control mode on")
	c := d.sim.tick(port, on)
	var b strings.Builder
	fmt.Fprintf(&b, "\nslot  1\n=======\n\n\nEgress Queuing for %s [System]\n", port)
	b.WriteString("------------------------------------------------------------------------------\n")
	for q := 0; q < 8; q++ {
		marked, tx := uint64(0), uint64(0)
		if q == 3 {
			marked, tx = c.ECNMarked, c.TxPackets
		}
		fmt.Fprintf(&b, "+-------------------------------------------------------------+\n|                              QOS GROUP %d                    |\n+-------------------------------------------------------------+\n", q)
		fmt.Fprintf(&b, "|                   Tx Pkts |%15d|%15d|\n|           ECN Marked Pkts |%15d|%15d|\n|WRED/AFD & Tail Drop Pkts |%15d|%15d|\n", tx, 0, marked, 0, 0, 0)
	}
	b.WriteString("+-------------------------------------------------------------+\n\n\nPer Port Ingress Statistics\n--------------------------------------------------------\n")
	fmt.Fprintf(&b, "Rx PPP                        %d\nTx PPP                        %d\n", c.PFCRx, c.PFCTx)
	return b.String()
}

func (d *iosDevice) showEOSPFC() string {
	var b strings.Builder
	b.WriteString("Port        RxPfc        TxPfc\n")
	for _, n := range d.ethernetPorts() {
		port := strings.TrimPrefix(n.line, "interface ")
		on := d.eosLossless(n)
		c := d.sim.tick(port, on)
		fmt.Fprintf(&b, "%-11s %-12d %d\n", eosIfShort.Replace(port), c.PFCRx, c.PFCTx)
	}
	return b.String()
}

func (d *iosDevice) showEOSECN() string {
	var b strings.Builder
	b.WriteString("Port        TxQueue     EcnMarkedPkts\n")
	for _, n := range d.ethernetPorts() {
		port := strings.TrimPrefix(n.line, "interface ")
		c := d.sim.tick(port, d.eosLossless(n))
		fmt.Fprintf(&b, "%-11s %-11s %d\n", eosIfShort.Replace(port), "UC3", c.ECNMarked)
	}
	return b.String()
}

// eosLossless: PFC on directly or through the interface's service profile.
func (d *iosDevice) eosLossless(n *node) bool {
	if d.interfaceHas(n, "priority-flow-control on") {
		return true
	}
	for _, k := range n.kids {
		if prof, ok := strings.CutPrefix(k.line, "service-profile "); ok {
			if p := d.running.find("qos profile " + prof); p != nil {
				return d.interfaceHas(p, "priority-flow-control on")
			}
		}
	}
	return false
}
