package sshsim

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The NX-OS personality of iosDevice: its factory configuration, grammar,
// checkpoints, configure replace and show output, from Cisco's guides.

// checkpoint is an NX-OS configuration checkpoint.
type checkpoint struct {
	config      *node
	description string
	user        string
	at          time.Time
}

// flashFile is a bootflash: file: a configuration copy running-config
// wrote (config), or text copied in over SCP.
type flashFile struct {
	config *node
	text   string
}

// pendingReplace is an NX-OS configure replace with a commit timeout: the
// device goes back to previous by itself unless `configure replace commit`
// comes first.
type pendingReplace struct {
	previous *node
	stop     func() bool
	deadline time.Time
}

func nxosInitial(o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hostname %s\n", o.Hostname)
	if !o.Blank {
		b.WriteString(`feature lldp
feature interface-vlan
feature scp-server
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

func nxosModeTag(mode string) string {
	switch mode {
	case "line":
		return "console"
	}
	return mode
}

func descOrNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
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
		d.bootflash[file] = &flashFile{config: d.running.clone()}
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
	ff, found := d.bootflash[file]
	if !found {
		return "ERROR: bootflash:" + file + ": No such file or directory"
	}
	if d.replace != nil {
		return "ERROR: A configure replace is waiting for commit; run 'configure replace commit' first"
	}
	if msg := d.sim.faults.CommitError; msg != "" {
		return "ERROR: Configure replace failed: " + msg + "\nRollback to the original configuration is successful."
	}
	target := ff.config
	if target == nil {
		// A copied-in file is applied as typed commands; a refused one
		// fails the whole replace and the device keeps what it ran.
		root, bad := d.loadConfigFile(ff.text, d.sim.faults.RejectLine)
		if root == nil {
			why := "the device refused '" + bad + "'"
			if flt := d.sim.faults; flt.RejectLine != "" && flt.RejectMessage != "" && strings.Contains(bad, flt.RejectLine) {
				why += ": " + flt.RejectMessage
			}
			return "ERROR: Configure replace failed: " + why + "\nRollback to the original configuration is successful."
		}
		target = root
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

// nxosGrammar is the subset of NX-OS configuration the simulator accepts:
// QoS, PFC, VLANs, interfaces and common foreign configuration.
var nxosGrammar = grammar{
	"config": concat(
		[]cmdSpec{
			enter("interface ", "if"),
			enter("class-map type qos match-any ", "cmap-qos"),
			enter("class-map type qos match-all ", "cmap-qos"),
			enter("class-map type qos ", "cmap-qos"),
			enter("class-map match-any ", "cmap-qos"),
			enter("class-map ", "cmap-qos"),
			enter("class-map type queuing ", "cmap-que"),
			enter("class-map type network-qos ", "cmap-nqos"),
			enter("policy-map type qos ", "pmap-qos"),
			enter("policy-map ", "pmap-qos"),
			enter("policy-map type queuing ", "pmap-que"),
			enter("policy-map type network-qos ", "pmap-nqos"),
			enter("system qos", "sys-qos"),
			enter("vlan ", "vlan"),
			enter("line console", "line"),
			enter("line vty", "line"),
			enter("router bgp ", "router"),
			enter("router ospf ", "router"),
			enter("vrf context ", "vrf"),
		},
		single("hostname ", "priority-flow-control watch-dog-interval ", "hardware qos "),
		leaf("feature ", "username ", "ip ", "ipv6 ", "spanning-tree ", "snmp-server ", "ntp ",
			"logging ", "boot ", "copp ", "rmon ", "cdp ", "lldp ", "banner ", "clock ",
			"priority-flow-control ", "qos ", "system ", "vdc ", "ssh ", "callhome", "hardware "),
	),
	"if": concat(
		[]cmdSpec{allowedVLANs},
		single("description ", "mtu ", "switchport mode ",
			"switchport trunk native vlan ", "switchport access vlan ", "priority-flow-control mode ",
			"priority-flow-control watch-dog-interval ", "service-policy type qos input ",
			"service-policy type queuing output ", "service-policy type queuing input ",
			"service-policy input ", "speed ", "duplex ", "channel-group ", "vrf member ",
			"ip address ", "ipv6 address ", "load-interval ", "flowcontrol receive ", "flowcontrol send "),
		leaf("switchport", "shutdown", "lldp ", "cdp ", "ip ", "ipv6 ", "spanning-tree ",
			"priority-flow-control ", "fec ", "negotiate auto", "link debounce ", "storm-control "),
	),
	"cmap-qos":  leaf("match dscp ", "match cos ", "match precedence ", "match protocol ", "match access-group ", "description "),
	"cmap-que":  leaf("match qos-group ", "description "),
	"cmap-nqos": leaf("match qos-group ", "match cos ", "description "),
	"pmap-qos": {
		enter("class ", "pmap-c-qos"),
		{prefix: "description ", single: true},
	},
	"pmap-c-qos": single("set qos-group ", "set cos ", "set dscp ", "set precedence ", "police "),
	"pmap-que": {
		enter("class type queuing ", "pmap-c-que"),
		{prefix: "description ", single: true},
	},
	"pmap-c-que": concat(
		// An input queuing class carries the no-drop pause buffer (Cisco
		// N9K QoS guide, Configuring Priority Flow Control).
		single("priority level ", "bandwidth remaining percent ", "bandwidth percent ", "random-detect ",
			"shape ", "queue-limit ", "afd queue-desired ", "pause buffer-size "),
		leaf("priority"),
	),
	"pmap-nqos": {
		enter("class type network-qos ", "pmap-nqos-c"),
		{prefix: "description ", single: true},
	},
	"pmap-nqos-c": concat(
		single("mtu ", "pause pfc-cos ", "pause buffer-size ", "congestion-control "),
		leaf("pause no-drop", "pause ", "multicast-optimize"),
	),
	"sys-qos": single("service-policy type network-qos ", "service-policy type queuing output ",
		"service-policy type queuing input ", "service-policy type qos input "),
	"vlan":   concat(single("name ", "state "), leaf("shutdown", "vn-segment ")),
	"line":   leaf("exec-timeout ", "session-limit ", "access-class "),
	"router": leaf("router-id ", "neighbor ", "address-family ", "log-neighbor-changes", "bestpath ", "timers "),
	"vrf":    leaf("ip ", "address-family ", "description "),
}
