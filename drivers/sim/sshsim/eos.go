package sshsim

import (
	"fmt"
	"strconv"
	"strings"
)

// The EOS personality of iosDevice: its factory configuration, grammar,
// configuration sessions and show output, from Arista's manual.

// eosSession is an EOS configuration session: a private copy of the running
// configuration, committed or aborted as a whole.
type eosSession struct {
	name      string
	candidate *node
	// pendingTimer is set while a `commit timer` waits for confirmation.
	pendingTimer func() bool
	previous     *node
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

// eosGrammar is the subset of EOS configuration the simulator accepts.
var eosGrammar = grammar{
	"config": concat(
		[]cmdSpec{
			enter("interface ", "if"),
			enter("qos profile ", "qos-profile"),
			enter("vlan ", "vlan"),
			enter("management api http-commands", "mgmt"),
			enter("management ssh", "mgmt"),
			enter("management api gnmi", "mgmt"),
			enter("router bgp ", "router"),
			enter("policy-map type quality-of-service ", "pmap"),
			enter("class-map type qos match-any ", "cmap"),
		},
		single("hostname ", "spanning-tree mode ", "service routing protocols model "),
		// Each code point maps to one traffic class: a new mapping replaces it.
		numberedSingle("qos map dscp %d to traffic-class ", 64),
		numberedSingle("qos map cos %d to traffic-class ", 8),
		leaf("qos map dscp ", "qos map traffic-class ", "qos map cos ", "qos map exp ", "qos rewrite ",
			"username ", "ip ", "ipv6 ", "spanning-tree ", "transceiver ", "service ", "platform ",
			"priority-flow-control ", "dcbx ", "lldp ", "aaa ", "logging ", "ntp ", "snmp-server ",
			"clock ", "banner ", "boot ", "enable ", "daemon ", "queue-monitor ", "hardware ",
			"load-interval ", "errdisable "),
	),
	"if": concat(
		[]cmdSpec{
			enter("uc-tx-queue ", "txq"),
			enter("tx-queue ", "txq"),
			enter("mc-tx-queue ", "txq"),
			allowedVLANs,
		},
		// EOS takes an IP MTU of 68..9214 (9216 is refused; Arista EOS
		// manual, and AVD issue #3619 confirming 9214 as the maximum).
		[]cmdSpec{{prefix: "mtu ", single: true, valid: intRange(68, 9214)}},
		// Ports are switched until `no switchport` (EOS manual; AVD's
		// ethernet-interfaces template renders `no switchport` for routed
		// ports), which the running config then prints.
		[]cmdSpec{{prefix: "switchport", defaultOn: true}},
		single("description ", "switchport mode ",
			"switchport trunk native vlan ", "switchport access vlan ", "service-profile ",
			"qos trust ", "speed ", "channel-group ", "ip address ", "ipv6 address ", "load-interval ",
			"flowcontrol receive ", "flowcontrol send ", "dcbx mode ", "service-policy type qos input ",
			"priority-flow-control mode "),
		leaf("shutdown", "priority-flow-control on", "priority-flow-control priority ",
			"priority-flow-control pause watchdog", "priority-flow-control ", "lldp ", "ip ", "ipv6 ",
			"spanning-tree ", "storm-control ", "error-correction ", "qos "),
	),
	"qos-profile": concat(
		[]cmdSpec{
			enter("uc-tx-queue ", "qos-profile-txq"),
			enter("tx-queue ", "qos-profile-txq"),
			enter("mc-tx-queue ", "qos-profile-txq"),
		},
		single("qos trust ", "qos cos ", "qos dscp ", "shape rate ", "service-policy type qos input "),
		leaf("priority-flow-control on", "priority-flow-control priority ",
			"priority-flow-control pause watchdog", "priority-flow-control "),
	),
	"qos-profile-txq": txqCmds,
	"txq":             txqCmds,
	"vlan":            concat(single("name ", "state "), leaf("trunk group ")),
	"mgmt":            leaf("protocol ", "no shutdown", "shutdown", "transport ", "vrf ", "idle-timeout ", "authentication "),
	"router":          leaf("router-id ", "neighbor ", "network ", "redistribute ", "maximum-paths ", "address-family "),
	"pmap":            {enter("class ", "pmap-c")},
	"pmap-c":          single("set traffic-class ", "set dscp ", "set cos "),
	"cmap":            leaf("match "),
}
