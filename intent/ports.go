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
			return codedf(CodeBadPortRange, "%v", err)
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
	step := 1
	if base, stepText, ok := strings.Cut(spec, " step "); ok {
		n, err := strconv.Atoi(strings.TrimSpace(stepText))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("port range %q: step must be a positive number", spec)
		}
		spec, step = strings.TrimSpace(base), n
	}
	if strings.ContainsAny(spec, " \t") {
		return nil, fmt.Errorf("port name %q contains a space", spec)
	}
	dash := strings.LastIndexByte(spec, '-')
	if dash < 0 || !isDigits(spec[dash+1:]) {
		return []string{spec}, nil
	}
	// The start number is the digits right before the dash.
	start := dash
	for start > 0 && spec[start-1] >= '0' && spec[start-1] <= '9' {
		start--
	}
	if start == dash {
		// e.g. "et-0/0/1" has a dash that is part of the name.
		return []string{spec}, nil
	}
	from, _ := strconv.Atoi(spec[start:dash])
	to, _ := strconv.Atoi(spec[dash+1:])
	if to < from {
		return nil, fmt.Errorf("port range %q ends before it starts", spec)
	}
	if (to-from)/step > 4096 {
		return nil, fmt.Errorf("port range %q is longer than 4096 ports", spec)
	}
	prefix := spec[:start]
	var out []string
	for i := from; i <= to; i += step {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out, nil
}

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
	for _, label := range strings.Split(h, ".") {
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
