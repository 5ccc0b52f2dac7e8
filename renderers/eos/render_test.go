package eos

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
	"github.com/rocefab/rocefab/renderers"
)

// basicSwitch is leaf-eos of examples/basic, a copy a test may edit.
func basicSwitch(t testing.TB) *intent.Switch { return examplestest.Switch(t, "basic", "leaf-eos") }

func render(t *testing.T, sw *intent.Switch) *devcfg.Config {
	t.Helper()
	cfg, err := New().Render(sw)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return cfg
}

func children(cfg *devcfg.Config, parents ...string) []string {
	var out []string
	for _, n := range cfg.Tree.Children(parents) {
		out = append(out, n.Line)
	}
	return out
}

func TestTxQueueKeyword(t *testing.T) {
	for model, want := range map[string]string{
		"DCS-7060X5-64S":    "uc-tx-queue",
		"DCS-7388X5":        "uc-tx-queue",
		"DCS-7280CR3-32P4":  "tx-queue",
		"DCS-7280SR2-48YC6": "tx-queue",
		"DCS-7500R3":        "tx-queue",
		"7800R3-36P-LC":     "tx-queue",
		"":                  "uc-tx-queue",
	} {
		if got := txQueueKeyword(model); got != want {
			t.Errorf("txQueueKeyword(%q) = %q, want %q", model, got, want)
		}
	}
}

func TestDSCPMapIsCompleteAndExclusive(t *testing.T) {
	p := basicSwitch(t).Policy
	tc := renderers.DSCPClasses(p)
	for d, c := range tc {
		switch {
		case d == 26 && c != 3, d == 48 && c != 6:
			t.Errorf("DSCP %d → TC %d", d, c)
		case d != 26 && c == 3, d != 48 && c == 6:
			t.Errorf("DSCP %d shares a RoCE class: TC %d", d, c)
		}
	}
	if got := len(dscpMapLines(p)); got != 64 {
		t.Errorf("%d map lines, want 64", got)
	}
}

func TestRenderVariants(t *testing.T) {
	prof := "qos profile " + Profile
	for _, tc := range []struct {
		name  string
		edit  func(sw *intent.Switch)
		check func(t *testing.T, cfg *devcfg.Config)
	}{
		{"Jericho models use tx-queue", func(sw *intent.Switch) { sw.Model = "DCS-7280CR3-32P4" }, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, prof, "tx-queue 3"); len(got) != 1 || !strings.HasPrefix(got[0], "random-detect ecn ") {
				t.Errorf("tx-queue 3 = %v", got)
			}
			if strings.Contains(cfg.Text(), "uc-tx-queue") {
				t.Error("uc-tx-queue rendered on a Jericho model")
			}
		}},
		{"thresholds in exact units", func(sw *intent.Switch) { sw.Policy.ECNMin, sw.Policy.ECNMax = 153600, 3_000_000 }, func(t *testing.T, cfg *devcfg.Config) {
			// One unit for both thresholds, as in every vendor example.
			want := "random-detect ecn minimum-threshold 153600 bytes maximum-threshold 3000000 bytes max-mark-probability 100 weight 0"
			if got := children(cfg, prof, "uc-tx-queue 3"); !slices.Equal(got, []string{want}) {
				t.Errorf("uc-tx-queue 3 = %v", got)
			}
			if strings.Contains(cfg.Text(), "segments") {
				t.Error("segments emitted")
			}
		}},
		{"pfc-only renders no ECN", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfilePFCOnly }, func(t *testing.T, cfg *devcfg.Config) {
			if strings.Contains(cfg.Text(), "random-detect") || !strings.Contains(cfg.Text(), "priority-flow-control priority 3 no-drop") {
				t.Errorf("pfc-only:\n%s", cfg.Text())
			}
		}},
		{"ecn-only renders no PFC", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfileECNOnly }, func(t *testing.T, cfg *devcfg.Config) {
			if strings.Contains(cfg.Text(), "priority-flow-control") || !strings.Contains(cfg.Text(), "random-detect ecn") {
				t.Errorf("ecn-only:\n%s", cfg.Text())
			}
		}},
		{"trust pcp maps CoS", func(sw *intent.Switch) { sw.Policy.Trust = "pcp" }, func(t *testing.T, cfg *devcfg.Config) {
			if !slices.Contains(children(cfg, prof), "qos trust cos") {
				t.Error("no qos trust cos")
			}
			var maps []string
			for _, l := range children(cfg) {
				if strings.HasPrefix(l, "qos map ") {
					maps = append(maps, l)
				}
			}
			if !slices.Equal(maps, []string{"qos map cos 3 to traffic-class 3", "qos map cos 6 to traffic-class 6"}) {
				t.Errorf("maps = %v", maps)
			}
		}},
		{"no-drop priority 0 keeps CoS 1 out of it", func(sw *intent.Switch) {
			sw.Policy.Trust, sw.Policy.NoDropPriority, sw.Policy.PFCPriorities = "pcp", 0, []int{0}
		}, func(t *testing.T, cfg *devcfg.Config) {
			if !strings.Contains(cfg.Text(), "qos map cos 1 to traffic-class 1\n") || !strings.Contains(cfg.Text(), "qos map cos 0 to traffic-class 0\n") {
				t.Errorf("cos maps:\n%s", cfg.Text())
			}
		}},
		{"access port prints no default mode", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "Ethernet1", Mode: "access"}, {Name: "Ethernet2", Mode: "routed"}}
		}, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "interface Ethernet1"); !slices.Equal(got, []string{"mtu 9214", "switchport access vlan 100", "service-profile " + Profile}) {
				t.Errorf("access port = %v", got)
			}
			// AVD renders `no switchport` for routed ports: EOS ports are
			// switched by default and ignore IP configuration.
			if got := children(cfg, "interface Ethernet2"); !slices.Equal(got, []string{"mtu 9214", "no switchport", "service-profile " + Profile}) {
				t.Errorf("routed port = %v", got)
			}
		}},
		{"access port on VLAN 1 prints no default access VLAN", func(sw *intent.Switch) {
			sw.Policy.VLAN = 1
			sw.Ports = []intent.Port{{Name: "Ethernet1", Mode: "access"}}
		}, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "interface Ethernet1"); !slices.Equal(got, []string{"mtu 9214", "service-profile " + Profile}) {
				t.Errorf("access port on VLAN 1 = %v", got)
			}
		}},
		{"routed LAG: no switchport on the port-channel", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "Ethernet1", Mode: "routed", LAG: "Port-Channel7"}}
		}, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "interface Port-Channel7"); !slices.Equal(got, []string{"mtu 9214", "no switchport"}) {
				t.Errorf("Port-Channel7 = %v", got)
			}
		}},
		{"default watchdog action is drop, rendered explicitly", func(sw *intent.Switch) {}, func(t *testing.T, cfg *devcfg.Config) {
			// AVD qos-profiles.j2: "port action drop" overrides EOS's default
			// error-disable of the whole port.
			if !slices.Contains(children(cfg, prof), "priority-flow-control pause watchdog port action drop") {
				t.Errorf("no explicit drop action in %v", children(cfg, prof))
			}
		}},
		{"LAG", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "Ethernet1", Mode: "trunk", LAG: "Port-Channel7"}}
		}, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "interface Ethernet1"); !slices.Equal(got, []string{"channel-group 7 mode active", "service-profile " + Profile}) {
				t.Errorf("member = %v", got)
			}
			if got := children(cfg, "interface Port-Channel7"); !slices.Equal(got, []string{"mtu 9214", "switchport mode trunk", "switchport trunk allowed vlan add 100"}) {
				t.Errorf("Port-Channel7 = %v", got)
			}
		}},
		{"watchdog timers", func(sw *intent.Switch) {
			sw.Policy.Watchdog = intent.Watchdog{Enabled: true, Detection: 200 * time.Millisecond, Restoration: 2 * time.Second, Action: "drop"}
		}, func(t *testing.T, cfg *devcfg.Config) {
			got := children(cfg, prof)
			for _, want := range []string{"priority-flow-control pause watchdog", "priority-flow-control pause watchdog port timer timeout 0.2 polling-interval auto recovery-time 2", "priority-flow-control pause watchdog port action drop"} {
				if !slices.Contains(got, want) {
					t.Errorf("missing %q in %v", want, got)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			tc.check(t, render(t, sw))
		})
	}
}

// TestRenderRefusesInexpressibleWatchdogTimer: EOS takes the watchdog
// timeout and recovery-time with at most two decimals of a second (AVD
// schema ^\d+(\.\d{1,2})?$); 205 ms is an error, never rounded.
func TestRenderRefusesInexpressibleWatchdogTimer(t *testing.T) {
	sw := basicSwitch(t)
	sw.Policy.Watchdog = intent.Watchdog{Enabled: true, Detection: 205 * time.Millisecond, Restoration: 2 * time.Second, Action: "drop"}
	_, err := New().Render(sw)
	if err == nil || !strings.Contains(err.Error(), "205ms") || !strings.Contains(err.Error(), "two decimals") {
		t.Fatalf("err = %v", err)
	}
}

func TestRenderRefusesMTUAboveCeiling(t *testing.T) {
	sw := basicSwitch(t)
	sw.Policy.SwitchMTU = intent.SwitchMTU{Value: 9216}
	_, err := New().Render(sw)
	if err == nil || !strings.Contains(err.Error(), "leaf-eos") || !strings.Contains(err.Error(), "9214") {
		t.Fatalf("err = %v", err)
	}
}

// TestWatchdogActionKeywords: the stuck-queue action is configured per
// port, in the qos profile the RoCE ports carry, with AVD's per-port
// keywords (aristanetworks/avd python-avd/pyavd/_eos_cli_config_gen
// j2templates/eos/qos-profiles.j2 "priority-flow-control pause watchdog
// port action", schema_fragments/qos_profiles.schema.yml valid values drop
// and notify-only; error-disable is EOS's default and has no keyword). The
// global `priority-flow-control pause watchdog action drop|no-drop`
// (AVD priority-flow-control.j2) would change every port of the switch,
// so rocefab never renders it.
func TestWatchdogActionKeywords(t *testing.T) {
	for _, tc := range []struct {
		action string
		want   []string // watchdog lines of the profile
	}{
		{"drop", []string{"priority-flow-control pause watchdog", "priority-flow-control pause watchdog port action drop"}},
		{"forward", []string{"priority-flow-control pause watchdog"}},
	} {
		t.Run(tc.action, func(t *testing.T) {
			sw := basicSwitch(t)
			sw.Policy.Watchdog = intent.Watchdog{Enabled: true, Action: tc.action}
			cfg := render(t, sw)
			var got []string
			for _, l := range children(cfg, "qos profile "+Profile) {
				if strings.Contains(l, "watchdog") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("profile watchdog lines = %q, want %q", got, tc.want)
			}
			for _, l := range strings.Split(cfg.Text(), "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "priority-flow-control pause watchdog action") || strings.Contains(l, "errdisable") {
					t.Errorf("rendered %q: the global action or an errdisable keyword", l)
				}
			}
			if tc.action == "forward" && !slices.ContainsFunc(cfg.Notes, func(n string) bool { return strings.Contains(n, "forward has no EOS equivalent") }) {
				t.Errorf("no note that forward is not expressible: %q", cfg.Notes)
			}
		})
	}
}
