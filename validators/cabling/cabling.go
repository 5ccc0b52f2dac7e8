package cabling

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
)

// Neighbor is one LLDP neighbour as a device reports it: on its local Port
// it hears SysName, whose port is PortID (and PortDescr).
type Neighbor struct {
	Device    string `json:"device"`
	Port      string `json:"port"`
	SysName   string `json:"sysName"`
	PortID    string `json:"portId,omitempty"`
	PortDescr string `json:"portDescr,omitempty"`
}

// Observed is what was read from the fabric.
type Observed struct {
	// Read names the devices whose neighbours were read. A device not in
	// it says nothing about its ports: its links are judged by their other
	// end, or are unread.
	Read []string
	// Neighbors are the neighbours every read device reported.
	Neighbors []Neighbor
	// Aliases maps a device to its port aliases (alias to name), for
	// peers that advertise an alias as their port ID (SONiC's etp1).
	Aliases map[string]map[string]string
}

// Status of one link.
type Status string

const (
	Verified   Status = "verified"   // every end that reports sees the intent's peer
	Miscabled  Status = "miscabled"  // an end sees another peer
	Missing    Status = "missing"    // an end was read and neither sees a neighbour
	Unexpected Status = "unexpected" // a neighbour on a port the intent has no link for
	Unread     Status = "unread"     // neither end was read
)

// Finding is one link's result.
type Finding struct {
	Link     string   `json:"link"`
	Status   Status   `json:"status"`
	Expected string   `json:"expected,omitempty"`
	Observed []string `json:"observed,omitempty"`
	Message  string   `json:"message"`
}

// AsFinding is the link's result in the shared shape (source cabling):
// the status is the code; miscabled is an error, missing, unexpected and
// unread are warnings, verified is info. The expected and observed peers
// are evidence.
func (f Finding) AsFinding() finding.Finding {
	sev := finding.Warning
	switch f.Status {
	case Miscabled:
		sev = finding.Error
	case Verified:
		sev = finding.Info
	}
	out := finding.Finding{Source: finding.SourceCabling, Code: finding.Code(f.Status), Severity: sev,
		Subject: finding.Subject{Link: f.Link}, Message: f.Message}
	if f.Expected != "" {
		out.Evidence = append(out.Evidence, finding.Evidence{Name: "expected", Text: f.Expected})
	}
	for _, o := range f.Observed {
		out.Evidence = append(out.Evidence, finding.Evidence{Name: "observed", Text: o})
	}
	return out
}

// Summary counts findings by status.
type Summary struct {
	Verified   int `json:"verified"`
	Miscabled  int `json:"miscabled"`
	Missing    int `json:"missing"`
	Unexpected int `json:"unexpected"`
	Unread     int `json:"unread"`
}

// Verdict of a report, worst first.
type Verdict string

const (
	Fail Verdict = "fail" // a link is miscabled
	Warn Verdict = "warn" // a link is missing, unread or unexpected
	Pass Verdict = "pass" // every link is verified
)

// Report is the cabling check of one fabric.
type Report struct {
	Verdict  Verdict   `json:"verdict"`
	Summary  Summary   `json:"summary"`
	Findings []Finding `json:"findings"`
	// Notes say what was not read, and why.
	Notes []string `json:"notes,omitempty"`
}

// LinkName names an intent link in findings.
func LinkName(l intent.Link) string { return pairName(l.A, l.B) }

func pairName(a, b intent.Endpoint) string { return a.String() + " – " + b.String() }

// Status returns the status of an intent link, Unread if it was not
// classified.
func (r *Report) Status(l intent.Link) Status {
	if f := r.Finding(l); f != nil {
		return f.Status
	}
	return Unread
}

// Finding returns an intent link's finding, nil if it was not classified.
func (r *Report) Finding(l intent.Link) *Finding {
	name := LinkName(l)
	for i := range r.Findings {
		if r.Findings[i].Link == name && r.Findings[i].Status != Unexpected {
			return &r.Findings[i]
		}
	}
	return nil
}

// Known returns the device names of a resolved fabric, the devices a
// neighbour may name without being a stranger.
func Known(r *intent.Resolved) []string {
	out := make([]string, 0, len(r.Switches)+len(r.Hosts))
	for _, s := range r.Switches {
		out = append(out, s.Name)
	}
	for _, h := range r.Hosts {
		out = append(out, h.Name)
	}
	return out
}

// NormPort folds the spellings one port goes by: NX-OS's Ethernet1/1 is
// Eth1/1 in its LLDP tables, EOS's Ethernet1 is Et1, and case. Only the
// capitalised short forms fold: Linux's eth0 is not SONiC's Ethernet0,
// and a SONiC switch has both.
func NormPort(p string) string {
	p = strings.TrimSpace(p)
	for _, pre := range []string{"Ethernet", "ethernet", "ETHERNET", "Eth", "Et"} {
		if rest, ok := strings.CutPrefix(p, pre); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return "ethernet" + strings.ToLower(rest)
		}
	}
	return strings.ToLower(p)
}

type portKey struct{ dev, port string }

func keyOf(e intent.Endpoint) portKey { return portKey{e.Device, NormPort(e.Port)} }

type classifier struct {
	known   map[string]string // lower-case name to the intent's spelling
	ports   map[portKey]string
	read    map[string]bool
	aliases map[string]map[string]string
	local   map[portKey][]Neighbor
	remote  map[portKey][]Neighbor // by the remote end they name
}

// Classify checks every intent link against the observed neighbours and
// reports neighbours between known devices on ports no link uses.
func Classify(links []intent.Link, known []string, obs Observed) *Report {
	c := &classifier{known: map[string]string{}, ports: map[portKey]string{}, read: map[string]bool{},
		aliases: map[string]map[string]string{}, local: map[portKey][]Neighbor{}, remote: map[portKey][]Neighbor{}}
	for _, k := range known {
		c.known[strings.ToLower(k)] = k
	}
	for _, l := range links {
		for _, e := range []intent.Endpoint{l.A, l.B} {
			c.known[strings.ToLower(e.Device)] = e.Device
			c.ports[keyOf(e)] = e.Port
		}
	}
	for _, d := range obs.Read {
		c.read[d] = true
	}
	for dev, m := range obs.Aliases {
		n := map[string]string{}
		for alias, name := range m {
			n[NormPort(alias)] = name
		}
		c.aliases[dev] = n
	}
	for _, n := range obs.Neighbors {
		c.read[n.Device] = true
		c.local[portKey{n.Device, NormPort(n.Port)}] = append(c.local[portKey{n.Device, NormPort(n.Port)}], n)
		if r, ok := c.peer(n); ok {
			c.remote[keyOf(r)] = append(c.remote[keyOf(r)], n)
		}
	}
	rep := &Report{Verdict: Pass, Findings: []Finding{}}
	for _, l := range links {
		rep.add(c.link(l))
	}
	for _, f := range c.unexpected() {
		rep.add(f)
	}
	return rep
}

// device resolves a system name to a known device: exactly, ignoring
// case, or by its first label (leaf1.dc1.example.net is leaf1).
func (c *classifier) device(sys string) (string, bool) {
	s := strings.ToLower(strings.TrimSpace(sys))
	if d, ok := c.known[s]; ok {
		return d, true
	}
	if first, _, ok := strings.Cut(s, "."); ok {
		if d, ok := c.known[first]; ok {
			return d, true
		}
	}
	return strings.TrimSpace(sys), false
}

// peer is the remote end a neighbour names, with the port in the
// intent's spelling where one of the device's intent ports matches.
func (c *classifier) peer(n Neighbor) (intent.Endpoint, bool) {
	dev, ok := c.device(n.SysName)
	for _, cand := range []string{n.PortID, n.PortDescr} {
		if cand == "" {
			continue
		}
		if p, hit := c.ports[portKey{dev, c.unalias(dev, cand)}]; hit {
			return intent.Endpoint{Device: dev, Port: p}, ok
		}
	}
	port := n.PortID
	if port == "" || looksMAC(port) && n.PortDescr != "" {
		port = n.PortDescr
	}
	if name, hit := c.aliases[dev][NormPort(port)]; hit {
		port = name
	}
	return intent.Endpoint{Device: dev, Port: port}, ok
}

func (c *classifier) unalias(dev, port string) string {
	if name, ok := c.aliases[dev][NormPort(port)]; ok {
		return NormPort(name)
	}
	return NormPort(port)
}

// looksMAC is a MAC in colon, hyphen or Cisco's dotted form: a port ID
// that names no port, so the description is shown instead.
func looksMAC(s string) bool {
	switch {
	case len(s) == 17:
		return strings.Count(s, ":") == 5 || strings.Count(s, "-") == 5
	case len(s) == 14:
		return strings.Count(s, ".") == 2
	}
	return false
}

// link classifies one intent link from what each end reports, or, for an
// end that reports nothing, from who reports hearing it.
func (c *classifier) link(l intent.Link) Finding {
	f := Finding{Link: LinkName(l), Expected: LinkName(l)}
	var wrong []string
	seen, anyRead := false, false
	for _, e := range [][2]intent.Endpoint{{l.A, l.B}, {l.B, l.A}} {
		self, want := e[0], e[1]
		anyRead = anyRead || c.read[self.Device]
		nbs := c.local[keyOf(self)]
		if len(nbs) > 0 {
			for _, n := range nbs {
				got, _ := c.peer(n)
				f.Observed = appendUniq(f.Observed, pairName(self, got))
				if keyOf(got) == keyOf(want) {
					seen = true
					continue
				}
				wrong = append(wrong, fmt.Sprintf("%s %s reaches %s %s; the intent says %s %s",
					self.Device, self.Port, got.Device, got.Port, want.Device, want.Port))
			}
			continue
		}
		// The end is silent: a peer that hears it tells where it goes.
		for _, n := range c.remote[keyOf(self)] {
			at := intent.Endpoint{Device: n.Device, Port: n.Port}
			if p, ok := c.ports[keyOf(at)]; ok {
				at.Port = p
			}
			f.Observed = appendUniq(f.Observed, pairName(self, at))
			if keyOf(at) == keyOf(want) {
				seen = true
				continue
			}
			wrong = append(wrong, fmt.Sprintf("%s %s reaches %s %s; the intent says %s %s",
				self.Device, self.Port, at.Device, at.Port, want.Device, want.Port))
		}
	}
	switch {
	case len(wrong) > 0:
		f.Status, f.Message = Miscabled, strings.Join(wrong, ". ")
	case seen:
		f.Status, f.Message = Verified, fmt.Sprintf("%s %s and %s %s see each other", l.A.Device, l.A.Port, l.B.Device, l.B.Port)
	case anyRead:
		f.Status, f.Message = Missing, fmt.Sprintf("no LLDP neighbour on %s %s or %s %s", l.A.Device, l.A.Port, l.B.Device, l.B.Port)
	default:
		f.Status, f.Message = Unread, fmt.Sprintf("neither %s nor %s was read", l.A.Device, l.B.Device)
	}
	return f
}

// unexpected reports neighbours between known devices on ports no intent
// link uses, once per cable.
func (c *classifier) unexpected() []Finding {
	done := map[string]bool{}
	var out []Finding
	keys := make([]portKey, 0, len(c.local))
	for k := range c.local {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dev != keys[j].dev {
			return keys[i].dev < keys[j].dev
		}
		return keys[i].port < keys[j].port
	})
	for _, k := range keys {
		if _, linked := c.ports[k]; linked {
			continue
		}
		for _, n := range c.local[k] {
			got, known := c.peer(n)
			if !known {
				continue
			}
			self := intent.Endpoint{Device: n.Device, Port: n.Port}
			a, b := keyOf(self), keyOf(got)
			id := fmt.Sprint(a, b)
			if b.dev < a.dev || b.dev == a.dev && b.port < a.port {
				id = fmt.Sprint(b, a)
			}
			if done[id] {
				continue
			}
			done[id] = true
			name := pairName(self, got)
			msg := fmt.Sprintf("%s %s reaches %s %s; the intent has no link on %s %s", self.Device, self.Port, got.Device, got.Port, self.Device, self.Port)
			if _, linked := c.ports[b]; !linked {
				msg = fmt.Sprintf("%s %s reaches %s %s; the intent has no link on either port", self.Device, self.Port, got.Device, got.Port)
			}
			out = append(out, Finding{Link: name, Status: Unexpected, Observed: []string{name}, Message: msg})
		}
	}
	return out
}

func appendUniq(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

func (r *Report) add(f Finding) {
	r.Findings = append(r.Findings, f)
	switch f.Status {
	case Verified:
		r.Summary.Verified++
	case Miscabled:
		r.Summary.Miscabled++
		r.Verdict = Fail
	case Missing:
		r.Summary.Missing++
	case Unexpected:
		r.Summary.Unexpected++
	case Unread:
		r.Summary.Unread++
	}
	if f.Status != Verified && r.Verdict == Pass {
		r.Verdict = Warn
	}
}

// Skipped returns the findings of links that are not verified, for checks
// that trust the cabling (consistency, the probe mesh) to name what they
// left out.
func (r *Report) Skipped() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Status != Verified && f.Status != Unexpected {
			out = append(out, f)
		}
	}
	return out
}
