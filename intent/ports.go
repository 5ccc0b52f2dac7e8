package intent

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// PortNames is a list of port names or ranges: "Ethernet1/1-32",
// "swp1-8", "Ethernet0-124 step 4", or a YAML list of those.
type PortNames struct {
	Raw   string
	Names []string
}

func (p *PortNames) acceptsList() {}

func (p *PortNames) parseScalar(text, _ string) error {
	p.Raw = text
	p.Names = nil
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		names, err := ExpandPortRange(part)
		if err != nil {
			p.Names = nil
			return codedf(CodeBadPortRange, "%v", err)
		}
		if len(p.Names)+len(names) > MaxPortList {
			p.Names = nil
			return codedf(CodeLimit, "these ranges name more than %d ports; no switch has that many", MaxPortList)
		}
		p.Names = append(p.Names, names...)
	}
	if len(p.Names) == 0 {
		return codedf(CodeBadPortRange, "no port names given")
	}
	return nil
}

// ExpandPortRange expands the last number of a name into a range:
// "Ethernet1/1-4" is Ethernet1/1 … Ethernet1/4; "Ethernet0-12 step 4" is
// Ethernet0, Ethernet4, Ethernet8, Ethernet12. A name without a range is
// returned as is.
func ExpandPortRange(spec string) ([]string, error) {
	step, hasStep, written := 1, false, spec
	if base, stepText, ok := strings.Cut(spec, " step "); ok {
		n, err := strconv.Atoi(strings.TrimSpace(stepText))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("port range %q: step must be a positive number", spec)
		}
		spec, step, hasStep = strings.TrimSpace(base), n, true
	}
	if strings.ContainsAny(spec, " \t") {
		return nil, fmt.Errorf("port name %q contains a space", spec)
	}
	single := func() ([]string, error) {
		if hasStep {
			return nil, fmt.Errorf("port %q has a step but no range (e.g. Ethernet0-124 step 4)", written)
		}
		return []string{spec}, nil
	}
	dash := strings.LastIndexByte(spec, '-')
	if dash < 0 || !isDigits(spec[dash+1:]) {
		return single()
	}
	// The start number is the digits right before the dash.
	start := dash
	for start > 0 && spec[start-1] >= '0' && spec[start-1] <= '9' {
		start--
	}
	if start == dash {
		// e.g. "et-0/0/1" has a dash that is part of the name.
		return single()
	}
	from, errFrom := strconv.Atoi(spec[start:dash])
	to, errTo := strconv.Atoi(spec[dash+1:])
	if errFrom != nil || errTo != nil {
		return nil, fmt.Errorf("port range %q: number out of range", spec)
	}
	if to < from {
		return nil, fmt.Errorf("port range %q ends before it starts", spec)
	}
	count := (to-from)/step + 1
	if count > maxPortRange {
		return nil, fmt.Errorf("port range %q is longer than %d ports", spec, maxPortRange)
	}
	prefix := spec[:start]
	out := make([]string, 0, count)
	// Counting, not adding step to the last number, so a huge step cannot
	// overflow into negative port numbers.
	for k := 0; k < count; k++ {
		out = append(out, prefix+strconv.Itoa(from+k*step))
	}
	return out, nil
}

// maxPortRange bounds one range; no switch has more ports.
const maxPortRange = 4096

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Address is a management address: host or host:port, where host is an
// IPv4 or IPv6 address or a DNS name. IPv6 with a port takes brackets.
type Address struct {
	Host string
	Port int // 0: the transport's default
}

func (a *Address) parseScalar(text, _ string) error {
	s := strings.TrimSpace(text)
	if s == "" {
		return codedf(CodeBadAddress, "address is empty")
	}
	host, port := s, ""
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		host = s[1 : len(s)-1]
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return codedf(CodeBadAddress, "address %q: port must be 1..65535", text)
		}
		a.Port = n
	}
	if _, err := netip.ParseAddr(host); err != nil && !validHostname(host) {
		return codedf(CodeBadAddress, "address %q is not an IP address, host name, or host:port", text)
	}
	a.Host = host
	return nil
}

// String gives host or host:port, bracketing IPv6.
func (a Address) String() string {
	if a.Port == 0 {
		return a.Host
	}
	return net.JoinHostPort(a.Host, strconv.Itoa(a.Port))
}

// WithDefaultPort returns host:port, using def when no port was written.
func (a Address) WithDefaultPort(def int) string {
	p := a.Port
	if p == 0 {
		p = def
	}
	return net.JoinHostPort(a.Host, strconv.Itoa(p))
}

func validHostname(h string) bool {
	if len(h) == 0 || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	// A name whose last label is all digits ("192.0.2.300", "10.1.1") is a
	// mistyped IPv4 address: no top-level domain is numeric.
	if isDigits(labels[len(labels)-1]) {
		return false
	}
	for _, label := range labels {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// Endpoint is one end of a cable: "device:port".
type Endpoint struct {
	Device string
	Port   string
}

func (e *Endpoint) parseScalar(text, _ string) error {
	dev, port, ok := strings.Cut(strings.TrimSpace(text), ":")
	if !ok || dev == "" || port == "" {
		return codedf(CodeBadPortRange, "link end %q must be device:port, e.g. leaf1:Ethernet1/1", text)
	}
	e.Device, e.Port = dev, port
	return nil
}

func (e Endpoint) String() string { return e.Device + ":" + e.Port }
