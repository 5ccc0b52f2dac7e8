package consistency

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/validators/cabling"
)

// Severity of a finding.
type Severity string

const (
	Error   Severity = "error"   // traffic is lost or not lossless
	Warning Severity = "warning" // works by luck (a default) or degrades
)

// Finding codes.
const (
	CodeTrust       = "trust"
	CodeDSCPMap     = "dscp-map"
	CodeCNPMap      = "cnp-map"
	CodePFC         = "pfc"
	CodeCNPDSCP     = "cnp-dscp"
	CodeCNPPriority = "cnp-priority"
	CodeMTU         = "mtu"
	CodeVLAN        = "vlan"
	CodeECN         = "ecn"
	CodePause       = "pause"
	CodeRoCEToS     = "roce-tos"
)

// Finding is one disagreement between a host NIC and its switch port.
type Finding struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Host     string   `json:"host"`
	NIC      string   `json:"nic"`
	Switch   string   `json:"switch"`
	Port     string   `json:"port"`
	Message  string   `json:"message"`
}

func (f Finding) String() string { return fmt.Sprintf("%s [%s] %s", f.Severity, f.Code, f.Message) }

// AsFinding is the finding in the shared shape (source consistency): the
// host NIC is the subject's device and port, the switch port its peer.
func (f Finding) AsFinding() finding.Finding {
	sev := finding.Warning
	if f.Severity == Error {
		sev = finding.Error
	}
	return finding.Finding{Source: finding.SourceConsistency, Code: finding.Code(f.Code), Severity: sev,
		Subject: finding.Subject{Device: f.Host, Port: f.NIC, Peer: f.Switch, PeerPort: f.Port}, Message: f.Message}
}

// HostNIC is the host side: settings as rendered (desired) or read back.
// Nil or empty fields are unknown and not checked.
type HostNIC struct {
	Host string
	NIC  devcfg.NICSettings
}

// SwitchPort is the switch side of the cable: the switch's effective
// policy and the L3 MTU rendered on the port.
type SwitchPort struct {
	Switch string
	Port   string
	Mode   string // routed, trunk or access
	Policy intent.Policy
	MTU    int
}

// Check compares one cabled pair.
func Check(h HostNIC, s SwitchPort) []Finding {
	c := &checker{h: h, s: s, n: h.NIC, p: s.Policy}
	c.trust()
	c.dscpMap()
	c.pfc()
	c.cnp()
	c.ecn()
	c.pause()
	c.mtu()
	c.vlan()
	c.tos()
	sortFindings(c.out)
	return c.out
}

type checker struct {
	h   HostNIC
	s   SwitchPort
	n   devcfg.NICSettings
	p   intent.Policy
	out []Finding
}

func (c *checker) add(code string, sev Severity, format string, args ...any) {
	c.out = append(c.out, Finding{Code: code, Severity: sev, Host: c.h.Host, NIC: c.n.Netdev,
		Switch: c.s.Switch, Port: c.s.Port, Message: fmt.Sprintf(format, args...)})
}

// who and peer name the two ends in messages: "gpu07 ens1f0", "leaf3 Ethernet1/7".
func (c *checker) who() string  { return c.h.Host + " " + c.n.Netdev }
func (c *checker) peer() string { return c.s.Switch + " " + c.s.Port }

func (c *checker) trust() {
	if c.n.Trust != "" && c.n.Trust != c.p.Trust {
		c.add(CodeTrust, Error, "%s trusts %s but %s trusts %s: the two ends classify RoCE differently", c.who(), c.n.Trust, c.peer(), c.p.Trust)
	}
}

// appPriority is the priority the host's APP table gives a DSCP.
func (c *checker) appPriority(dscp int) (int, bool) {
	for _, a := range c.n.App {
		if a.Selector == 5 && int(a.Protocol) == dscp {
			return int(a.Priority), true
		}
	}
	return 0, false
}

// dscpKnown: the host side says anything about its DSCP map.
func (c *checker) dscpKnown() bool { return len(c.n.App) > 0 || c.n.Trust == "dscp" }

func (c *checker) checkDSCP(code string, dscp, want int, what string) {
	got, ok := c.appPriority(dscp)
	switch {
	case ok && got != want:
		c.add(code, Error, "%s maps DSCP %d to priority %d but %s expects %d (%s)", c.who(), dscp, got, c.peer(), want, what)
	case !ok && dscp>>3 != want:
		c.add(code, Error, "%s has no APP entry for DSCP %d, so the NIC default (DSCP>>3) gives priority %d, but %s expects %d (%s)", c.who(), dscp, dscp>>3, c.peer(), want, what)
	case !ok:
		c.add(code, Warning, "%s has no APP entry for DSCP %d and relies on the NIC default (DSCP>>3 = %d) to match %s (%s); map it explicitly", c.who(), dscp, want, c.peer(), what)
	}
}

func (c *checker) dscpMap() {
	if c.p.Trust != "dscp" || !c.dscpKnown() {
		return
	}
	for _, d := range c.p.RoCEDSCP {
		c.checkDSCP(CodeDSCPMap, d, c.p.NoDropPriority, "RoCE")
	}
	if c.p.ECNOn() {
		c.checkDSCP(CodeCNPMap, c.p.CNPDSCP, c.p.CNPPriority, "CNP")
	}
}

func (c *checker) pfc() {
	if c.n.PFCEnable == nil {
		return
	}
	host, sw := *c.n.PFCEnable, c.p.PFCBitmap()
	for prio := 0; prio < 8; prio++ {
		bit := uint8(1) << prio
		switch {
		case sw&bit != 0 && host&bit == 0:
			c.add(CodePFC, Error, "%s pauses priority %d (PFC) but %s does not enable PFC on it, so the NIC ignores the pauses and the lossless class drops", c.peer(), prio, c.who())
		case host&bit != 0 && sw&bit == 0:
			c.add(CodePFC, Error, "%s enables PFC on priority %d but %s does not, so its pauses are ignored and it may stall", c.who(), prio, c.peer())
		}
	}
}

func (c *checker) cnp() {
	if !c.p.ECNOn() {
		return
	}
	if c.n.CNPDSCP != nil && *c.n.CNPDSCP != c.p.CNPDSCP {
		c.add(CodeCNPDSCP, Error, "%s sends CNPs with DSCP %d but %s expects CNP DSCP %d, so CNPs miss the strict-priority queue", c.who(), *c.n.CNPDSCP, c.peer(), c.p.CNPDSCP)
	}
	if c.n.CNPPriority != nil && *c.n.CNPPriority != c.p.CNPPriority {
		c.add(CodeCNPPriority, Error, "%s sends CNPs on priority %d but %s expects CNP priority %d", c.who(), *c.n.CNPPriority, c.peer(), c.p.CNPPriority)
	}
}

func (c *checker) ecn() {
	if !c.p.ECNOn() {
		return
	}
	prio := c.p.NoDropPriority
	if c.n.ECNReactionPoint != nil && !contains(c.n.ECNReactionPoint, prio) {
		c.add(CodeECN, Warning, "%s marks ECN on priority %d but %s does not enable the DCQCN reaction point on it, so senders never slow down", c.peer(), prio, c.who())
	}
	if c.n.ECNNotificationPoint != nil && !contains(c.n.ECNNotificationPoint, prio) {
		c.add(CodeECN, Warning, "%s marks ECN on priority %d but %s does not enable the DCQCN notification point on it, so it never sends CNPs", c.peer(), prio, c.who())
	}
}

func (c *checker) pause() {
	if c.n.LinkPause != nil && *c.n.LinkPause && c.p.PFCOn() {
		c.add(CodePause, Error, "%s has 802.3x link pause on while %s runs PFC: turn link pause off", c.who(), c.peer())
	}
}

func (c *checker) mtu() {
	if c.n.MTU == 0 || c.s.MTU == 0 {
		return
	}
	if c.n.MTU > c.s.MTU {
		nd := c.n.Netdev
		if c.n.VLANNetdev != "" {
			nd += " and " + c.n.VLANNetdev
		}
		c.add(CodeMTU, Error, "%s MTU %d (%s) exceeds %s MTU %d: RoCE never fragments, so the largest RoCE packets are dropped",
			c.who(), c.n.MTU, nd, c.peer(), c.s.MTU)
	}
}

func (c *checker) vlan() {
	if c.s.Mode == "" {
		return
	}
	hostVLAN := c.n.VLAN
	switch {
	case c.s.Mode == "trunk" && c.p.VLAN != 0 && hostVLAN != c.p.VLAN:
		if hostVLAN == 0 {
			c.add(CodeVLAN, Error, "%s sends RoCE untagged but %s is a trunk for lossless VLAN %d: use a VLAN %d netdev", c.who(), c.peer(), c.p.VLAN, c.p.VLAN)
		} else {
			c.add(CodeVLAN, Error, "%s tags RoCE with VLAN %d but %s carries the lossless class in VLAN %d", c.who(), hostVLAN, c.peer(), c.p.VLAN)
		}
	case c.s.Mode != "trunk" && hostVLAN != 0:
		c.add(CodeVLAN, Error, "%s tags RoCE with VLAN %d but %s is a %s port that takes untagged frames", c.who(), hostVLAN, c.peer(), c.s.Mode)
	}
	if c.p.Trust == "pcp" && c.s.Mode != "trunk" {
		c.add(CodeTrust, Error, "%s trusts PCP but is %s port, so frames from %s arrive untagged and carry no PCP", c.peer(), article(c.s.Mode), c.who())
	}
}

func (c *checker) tos() {
	if c.n.RoCEToS == nil {
		return
	}
	tos := *c.n.RoCEToS
	dscp := tos >> 2
	dev := c.h.Host + " " + c.n.RDMADevice
	if c.n.RDMADevice == "" {
		dev = c.who()
	}
	if c.p.Trust == "dscp" && !contains(c.p.RoCEDSCP, dscp) {
		c.add(CodeRoCEToS, Error, "%s marks RoCE with DSCP %d (ToS %d) but %s classifies DSCP %s as RoCE", dev, dscp, tos, c.peer(), joinInts(c.p.RoCEDSCP))
	}
	if c.p.ECNOn() && tos&0b11 == 0 {
		c.add(CodeRoCEToS, Warning, "%s sends RoCE as Not-ECT (ToS %d), so %s cannot mark ECN and DCQCN never engages; use ToS %d", dev, tos, c.peer(), tos|0b10)
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func joinInts(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		if a.NIC != b.NIC {
			return a.NIC < b.NIC
		}
		if a.Severity != b.Severity {
			return a.Severity == Error
		}
		return a.Code < b.Code
	})
}

// CheckFabric checks every cabled host NIC against its switch port. hosts
// holds read-back settings by host name; a host without them is checked
// with its rendered (intended) settings.
func CheckFabric(r *intent.Resolved, reg *renderers.Registry, hosts map[string]*devcfg.HostSettings) ([]Finding, error) {
	var out []Finding
	for _, h := range r.Hosts {
		fs, err := CheckHost(r, reg, h, hosts[h.Name])
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	sortFindings(out)
	return out, nil
}

// CheckHost checks one host's cabled NICs against their switch ports, with
// its read-back settings, or its rendered ones when settings is nil.
func CheckHost(r *intent.Resolved, reg *renderers.Registry, h *intent.Host, settings *devcfg.HostSettings) ([]Finding, error) {
	return checkLinks(r, reg, h, settings, r.HostLinksOf(h.Name))
}

// Skipped is a link a check left out, and why.
type Skipped struct {
	Link   string         `json:"link"`
	Status cabling.Status `json:"status"`
	Reason string         `json:"reason"`
}

func (s Skipped) String() string {
	return fmt.Sprintf("skipped %s (%s): %s", s.Link, s.Status, s.Reason)
}

// CheckHostCabled is CheckHost over the links LLDP verified (cab, from
// validators/cabling): comparing the ends of a miscabled link compares the
// wrong pair, so every other link of the host is skipped and returned,
// with its cabling status and finding. A nil cab trusts the intent.
func CheckHostCabled(r *intent.Resolved, reg *renderers.Registry, h *intent.Host, settings *devcfg.HostSettings, cab *cabling.Report) ([]Finding, []Skipped, error) {
	links := r.HostLinksOf(h.Name)
	if cab == nil {
		fs, err := checkLinks(r, reg, h, settings, links)
		return fs, nil, err
	}
	var verified []intent.Link
	var skipped []Skipped
	for _, l := range links {
		if st := cab.Status(l); st != cabling.Verified {
			reason := "not read"
			if f := cab.Finding(l); f != nil {
				reason = f.Message
			}
			skipped = append(skipped, Skipped{Link: cabling.LinkName(l), Status: st, Reason: reason})
			continue
		}
		verified = append(verified, l)
	}
	fs, err := checkLinks(r, reg, h, settings, verified)
	return fs, skipped, err
}

func checkLinks(r *intent.Resolved, reg *renderers.Registry, h *intent.Host, settings *devcfg.HostSettings, links []intent.Link) ([]Finding, error) {
	var out []Finding
	for _, l := range links {
		sw := r.Switch(l.SwitchEnd.Device)
		if sw == nil {
			continue
		}
		if settings == nil {
			rh, err := host.Render(h, r)
			if err != nil {
				return nil, err
			}
			settings = rh.Settings
		}
		var nic *devcfg.NICSettings
		for i := range settings.NICs {
			if settings.NICs[i].Netdev == l.HostEnd.Port {
				nic = &settings.NICs[i]
			}
		}
		if nic == nil {
			continue
		}
		e, err := reg.Lookup(sw.Platform)
		if err != nil {
			return nil, fmt.Errorf("switch %s: %w", sw.Name, err)
		}
		port, _ := sw.Port(l.SwitchEnd.Port)
		out = append(out, Check(HostNIC{Host: h.Name, NIC: *nic},
			SwitchPort{Switch: sw.Name, Port: l.SwitchEnd.Port, Mode: port.Mode, Policy: sw.Policy, MTU: e.SwitchMTU(sw.Policy)})...)
	}
	sortFindings(out)
	return out, nil
}

func article(mode string) string {
	if mode != "" && strings.ContainsRune("aeiou", rune(mode[0])) {
		return "an " + mode
	}
	return "a " + mode
}
