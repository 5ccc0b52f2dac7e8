package intent

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestExpandPortRange(t *testing.T) {
	seq := func(prefix string, from, to, step int) []string {
		var out []string
		for i := from; i <= to; i += step {
			out = append(out, fmt.Sprintf("%s%d", prefix, i))
		}
		return out
	}
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "Ethernet1/1-32", want: seq("Ethernet1/", 1, 32, 1)},
		{in: "Ethernet1/5", want: []string{"Ethernet1/5"}},
		{in: "swp1-8", want: seq("swp", 1, 8, 1)},
		{in: "swp1s0-3", want: seq("swp1s", 0, 3, 1)},
		{in: "Ethernet0-124 step 4", want: seq("Ethernet", 0, 124, 4)},
		{in: "Ethernet0-10 step 4", want: []string{"Ethernet0", "Ethernet4", "Ethernet8"}},
		{in: "Ethernet0-124  step  4", want: seq("Ethernet", 0, 124, 4)},
		{in: "et-0/0/0-3", want: []string{"et-0/0/0", "et-0/0/1", "et-0/0/2", "et-0/0/3"}},
		{in: "et-0/0/31", want: []string{"et-0/0/31"}},
		{in: "Ethernet7-7", want: []string{"Ethernet7"}},
		{in: "1-3", want: []string{"1", "2", "3"}},
		{in: "Ethernet1-0", err: "ends before it starts"},
		{in: "Ethernet0-8 step 0", err: "step must be a positive number"},
		{in: "Ethernet0-8 step -2", err: "step must be a positive number"},
		{in: "Ethernet0-8 step four", err: "step must be a positive number"},
		{in: "Ethernet4 step 4", err: "has a step but no range"},
		{in: "Ethernet0-10000", err: "longer than 4096 ports"},
		{in: "Ethernet 1", err: "contains a space"},
		{in: "Ethernet1-99999999999999999999", err: "number out of range"},
		{in: "Eth99999999999999999999-1", err: "number out of range"},
		// A huge step gives the first port only; it must never overflow into
		// negative port numbers.
		{in: "Ethernet1-5 step 9223372036854775807", want: []string{"Ethernet1"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ExpandPortRange(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ExpandPortRange(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ExpandPortRange(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestPortNames(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "Ethernet1-2, Ethernet8", want: []string{"Ethernet1", "Ethernet2", "Ethernet8"}},
		{in: "swp1,swp3-4,", want: []string{"swp1", "swp3", "swp4"}},
		{in: " , ", err: "no port names given"},
		{in: "swp1, swp4-2", err: "ends before it starts"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var p PortNames
			err := p.parseScalar(tt.in, "!!str")
			if tt.err != "" {
				wantCode(t, err, CodeBadPortRange, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Names, tt.want) || p.Raw != tt.in {
				t.Errorf("parse(%q) = %v (raw %q), want %v", tt.in, p.Names, p.Raw, tt.want)
			}
		})
	}
}

func TestAddress(t *testing.T) {
	tests := []struct {
		in       string
		host     string
		port     int
		str      string // String(); "" means in
		withPort string // WithDefaultPort(22)
		err      string
	}{
		{in: "192.0.2.11", host: "192.0.2.11", withPort: "192.0.2.11:22"},
		{in: "192.0.2.13:8080", host: "192.0.2.13", port: 8080, withPort: "192.0.2.13:8080"},
		{in: "2001:db8::11", host: "2001:db8::11", withPort: "[2001:db8::11]:22"},
		{in: "[2001:db8::11]:57400", host: "2001:db8::11", port: 57400, withPort: "[2001:db8::11]:57400"},
		{in: "[2001:db8::11]", host: "2001:db8::11", str: "2001:db8::11", withPort: "[2001:db8::11]:22"},
		{in: "leaf1.example.net", host: "leaf1.example.net", withPort: "leaf1.example.net:22"},
		{in: "leaf1", host: "leaf1", withPort: "leaf1:22"},
		{in: "leaf1:830", host: "leaf1", port: 830, withPort: "leaf1:830"},
		{in: " 192.0.2.1 ", host: "192.0.2.1", str: "192.0.2.1", withPort: "192.0.2.1:22"},
		{in: "", err: "address is empty"},
		{in: "192.0.2.1:0", err: "port must be 1..65535"},
		{in: "192.0.2.1:65536", err: "port must be 1..65535"},
		{in: "192.0.2.1:ssh", err: "port must be 1..65535"},
		{in: "[2001:db8::1]:x", err: "port must be 1..65535"},
		{in: "192.0.2.300", err: "is not an IP address"},
		{in: "10.1.1", err: "is not an IP address"},
		{in: "leaf_1 .example", err: "is not an IP address"},
		{in: "-leaf", err: "is not an IP address"},
		{in: "leaf..example", err: "is not an IP address"},
		{in: ":22", err: "is not an IP address"},
		{in: "[leaf1", err: "is not an IP address"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var a Address
			err := a.parseScalar(tt.in, "!!str")
			if tt.err != "" {
				wantCode(t, err, CodeBadAddress, tt.err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Host != tt.host || a.Port != tt.port {
				t.Errorf("parse(%q) = %+v, want host %q port %d", tt.in, a, tt.host, tt.port)
			}
			str := tt.str
			if str == "" {
				str = tt.in
			}
			if a.String() != str {
				t.Errorf("String() = %q, want %q", a.String(), str)
			}
			if got := a.WithDefaultPort(22); got != tt.withPort {
				t.Errorf("WithDefaultPort(22) = %q, want %q", got, tt.withPort)
			}
		})
	}
}

func TestEndpoint(t *testing.T) {
	tests := []struct {
		in, dev, port string
		err           bool
	}{
		{in: "leaf1:Ethernet1/1", dev: "leaf1", port: "Ethernet1/1"},
		{in: "gpu01:ens1f0np0", dev: "gpu01", port: "ens1f0np0"},
		{in: " leaf1:swp1 ", dev: "leaf1", port: "swp1"},
		{in: "qfx1:et-0/0/1", dev: "qfx1", port: "et-0/0/1"},
		{in: "leaf1", err: true},
		{in: "leaf1:", err: true},
		{in: ":swp1", err: true},
		{in: "", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var e Endpoint
			err := e.parseScalar(tt.in, "!!str")
			if tt.err {
				wantCode(t, err, CodeBadPortRange, "must be device:port")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Device != tt.dev || e.Port != tt.port || e.String() != tt.dev+":"+tt.port {
				t.Errorf("parse(%q) = %+v", tt.in, e)
			}
		})
	}
}
