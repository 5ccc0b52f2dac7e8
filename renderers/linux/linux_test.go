package linux

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/golden"
	"github.com/rocefab/rocefab/renderers"
)

func lab(t *testing.T) *intent.Resolved {
	t.Helper()
	fab, diags := intent.Load(filepath.Join("testdata", "scenarios", "lab.yaml"))
	if fab == nil || diags.HasErrors() {
		t.Fatalf("lab.yaml: %v", diags)
	}
	r, rd := intent.Resolve(fab)
	if rd.HasErrors() {
		t.Fatalf("lab.yaml: %v", rd)
	}
	return r
}

func render(t *testing.T, sw *intent.Switch) *devcfg.Config {
	t.Helper()
	cfg, err := Renderer{}.Render(sw)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestGoldenLab(t *testing.T) {
	for _, sw := range lab(t).Switches {
		t.Run(sw.Name, func(t *testing.T) {
			b, err := Encode(render(t, sw))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "lab", sw.Name+".txt"), b)
		})
	}
}

func TestRender(t *testing.T) {
	r := lab(t)
	t.Run("max", func(t *testing.T) {
		cfg := render(t, r.Switch("router-max"))
		if got := cfg.Paths["/interfaces/swp12/mtu"]; got != "9216" {
			t.Errorf("swp12 mtu = %s, want the 9216 ceiling", got)
		}
		if got := cfg.Paths["/sysctl/net.ipv4.ip_forward"]; got != `"1"` {
			t.Errorf("ip_forward = %s", got)
		}
		if got := cfg.Paths["/sysctl/net.ipv6.conf.all.forwarding"]; got != `"1"` {
			t.Errorf("ipv6 forwarding = %s", got)
		}
		if len(cfg.Paths) != 14 {
			t.Errorf("%d paths, want 12 ports + 2 sysctls", len(cfg.Paths))
		}
	})
	t.Run("lag and explicit mtu", func(t *testing.T) {
		cfg := render(t, r.Switch("router-9000"))
		want := devcfg.Paths{
			"/interfaces/swp1/mtu": "9000", "/interfaces/swp2/mtu": "9000", "/interfaces/bond0/mtu": "9000", "/interfaces/eth3/mtu": "9000",
			"/sysctl/net.ipv4.ip_forward": `"1"`, "/sysctl/net.ipv6.conf.all.forwarding": `"1"`,
		}
		if diff := cmp.Diff(want, cfg.Paths); diff != "" {
			t.Errorf("paths (-want +got):\n%s", diff)
		}
	})
	t.Run("owns exactly what it renders", func(t *testing.T) {
		for _, sw := range r.Switches {
			cfg := render(t, sw)
			owned := append([]string(nil), cfg.Owned.Paths...)
			if !sort.StringsAreSorted(owned) || len(owned) != len(cfg.Paths) {
				t.Errorf("%s: owned %v", sw.Name, owned)
			}
			if cfg.Filter(cfg.Owned).Text() != cfg.Text() {
				t.Errorf("%s: rendered paths outside the owned scope", sw.Name)
			}
			if cfg.Owned.OwnsPath("/interfaces/swp99/mtu") {
				t.Errorf("%s owns a port it does not render", sw.Name)
			}
		}
	})
	t.Run("mtu out of range", func(t *testing.T) {
		sw := *r.Switch("router-9000")
		sw.Policy.SwitchMTU = intent.SwitchMTU{Value: 9500}
		if _, err := (Renderer{}).Render(&sw); err == nil || !strings.Contains(err.Error(), "switch router-9000: MTU 9500 is outside 68..9216") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("vlan note", func(t *testing.T) {
		sw := *r.Switch("router-max")
		sw.Policy.VLAN = 100
		sw.Ports = []intent.Port{{Name: "swp1", Mode: "trunk"}}
		cfg := render(t, &sw)
		if !strings.Contains(strings.Join(cfg.Notes, "\n"), "VLAN 100 membership") {
			t.Errorf("notes = %v", cfg.Notes)
		}
	})
}

func TestEncodeParseRoundTrip(t *testing.T) {
	for _, sw := range lab(t).Switches {
		cfg := render(t, sw)
		b, err := Encode(cfg)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: parse of the listing: %v\n%s", sw.Name, err, b)
		}
		if diff := cmp.Diff(cfg.Paths, back.Paths); diff != "" {
			t.Errorf("%s: round trip (-rendered +parsed):\n%s", sw.Name, diff)
		}
	}
}

func TestParseShowRunning(t *testing.T) {
	raw := []byte(readFile(t, filepath.Join("testdata", "show-running.txt")))
	cfg, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := devcfg.Paths{
		"/interfaces/swp1/mtu": "9000", "/interfaces/swp2/mtu": "1500",
		"/sysctl/net.ipv4.ip_forward": `"0"`, "/sysctl/net.ipv6.conf.all.forwarding": `"0"`,
	}
	if diff := cmp.Diff(want, cfg.Paths); diff != "" {
		t.Errorf("parsed (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ip link set dev swp1 mtu", "line 1"},
		{"# c\nip link set dev swp1 mtu x", `line 2: "ip link set dev swp1 mtu x": mtu "x" is not a number`},
		{"ip route add default via 192.0.2.1", "want ip link set dev NAME mtu N"},
		{"sysctl net.ipv4.ip_forward=1", "want sysctl -w KEY=VALUE"},
		{"sysctl -w net.ipv4.ip_forward", "want sysctl -w KEY=VALUE"},
		{"x: swp1: <UP> qdisc noop", "interface index"},
		{"3: swp1: <UP> qdisc noop", "no mtu"},
		{"3: swp1: <UP> mtu big", `mtu "big" is not a number`},
		{"hello world", "not an ip link, sysctl or listing line"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestNaturalOrder(t *testing.T) {
	names := []string{"swp10", "swp2", "bond0", "swp1", "eth3", "swp1s1"}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	if got := strings.Join(names, " "); got != "bond0 eth3 swp1 swp1s1 swp2 swp10" {
		t.Errorf("order = %s", got)
	}
}

func TestRegister(t *testing.T) {
	r := renderers.NewRegistry()
	if err := Register(r); err != nil {
		t.Fatal(err)
	}
	e, err := r.Lookup("linux")
	if err != nil {
		t.Fatal(err)
	}
	if e.DefaultTransport() != "netlink" || e.SupportsTransport("ssh") || e.Attrs.Platform.Commit != devcfg.CommitNetlink {
		t.Errorf("entry = %+v", e.Attrs)
	}
	for name, ok := range map[string]bool{"swp1": true, "eth0.100": true, "bond0": true, "Ethernet1/1": false, "averyverylongname0": false, "a b": false} {
		if e.Attrs.PortPattern.MatchString(name) != ok {
			t.Errorf("port pattern on %q: want %v", name, ok)
		}
	}
	d, why := e.Attrs.Classify(devcfg.Change{Path: "/interfaces/swp1/mtu", Old: "1500", New: "9216"})
	if d != devcfg.TrafficAffecting || why == "" {
		t.Errorf("MTU change classified %v %q", d, why)
	}
	if d, _ := e.Attrs.Classify(devcfg.Change{Path: "/sysctl/net.ipv4.ip_forward", New: "1"}); d != devcfg.TrafficAffecting {
		t.Error("forwarding change should be traffic-affecting")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("ip link set dev swp1 mtu 9216\nsysctl -w net.ipv4.ip_forward=1\n"))
	f.Add([]byte("2: swp2@swp1: <BROADCAST> mtu 1500 qdisc noop\nnet.ipv4.ip_forward = 0\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := Parse(raw)
		if err != nil {
			return
		}
		// Whatever parses encodes to a listing that parses to the same paths.
		out, err := Encode(cfg)
		if err != nil {
			return // e.g. an interface name with a slash: not encodable
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parse of %q: %v", out, err)
		}
		if diff := cmp.Diff(cfg.Paths, again.Paths); diff != "" {
			t.Fatalf("round trip changed paths:\n%s", diff)
		}
	})
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := readAll(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
