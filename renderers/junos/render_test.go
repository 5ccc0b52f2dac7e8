package junos

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// basicSwitch is leaf-junos of examples/basic, a copy a test may edit.
func basicSwitch(t testing.TB) *intent.Switch { return examplestest.Switch(t, "basic", "leaf-junos") }

func render(t *testing.T, sw *intent.Switch) *devcfg.Config {
	t.Helper()
	cfg, err := New().Render(sw)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return cfg
}

func TestSplitStatement(t *testing.T) {
	for _, tc := range []struct {
		stmt, path string
		value      devcfg.Value
	}{
		{"interfaces et-0/0/0 mtu 9216", "interfaces et-0/0/0 mtu", devcfg.String("9216")},
		{"class-of-service forwarding-classes class X queue-num 3 no-loss", "class-of-service forwarding-classes class X queue-num", devcfg.String("3 no-loss")},
		{"class-of-service forwarding-classes class X queue-num 6", "class-of-service forwarding-classes class X queue-num", devcfg.String("6")},
		{"class-of-service interfaces et-0/0/0 unit 0 classifiers dscp D", "class-of-service interfaces et-0/0/0 unit 0 classifiers dscp", devcfg.String("D")},
		{"class-of-service classifiers dscp D forwarding-class F loss-priority low code-points 011010", "class-of-service classifiers dscp D forwarding-class F loss-priority low code-points 011010", devcfg.Empty},
		{"interfaces et-0/0/0 unit 0 family ethernet-switching vlan members V", "interfaces et-0/0/0 unit 0 family ethernet-switching vlan members V", devcfg.Empty},
		{"class-of-service congestion-notification-profile P pfc-watchdog", "class-of-service congestion-notification-profile P pfc-watchdog", devcfg.Empty},
		{"class-of-service schedulers S transmit-rate percent 5", "class-of-service schedulers S transmit-rate percent", devcfg.String("5")},
		{"version 23.4R1", "version", devcfg.String("23.4R1")},
	} {
		path, v := splitStatement(strings.Fields(tc.stmt))
		if path != tc.path || v != tc.value {
			t.Errorf("splitStatement(%q) = %q, %s; want %q, %s", tc.stmt, path, v, tc.path, tc.value)
		}
		if got := statement(path, v); got != tc.stmt {
			t.Errorf("statement(%q, %s) = %q, want %q", path, v, got, tc.stmt)
		}
	}
}

func bytesOf(n uint64) *intent.Bytes  { return &intent.Bytes{N: n} }
func percentOf(n int) *intent.Percent { return &intent.Percent{N: n} }
func has(cfg *devcfg.Config, stmt string) bool {
	path, v := splitStatement(strings.Fields(stmt))
	got, ok := cfg.Paths[path]
	return ok && got == v
}

func TestFillLevels(t *testing.T) {
	for _, tc := range []struct {
		name    string
		junos   intent.JunosSpec
		min     uint64
		max     uint64
		lo, hi  int
		wantErr string
	}{
		{"exact from the buffer", intent.JunosSpec{QueueBufferSize: bytesOf(15_000_000)}, 150_000, 1_500_000, 1, 10, ""},
		{"explicit levels win", intent.JunosSpec{QueueBufferSize: bytesOf(7_000_000), FillLevelMin: percentOf(55), FillLevelMax: percentOf(90)}, 150_000, 1_500_000, 55, 90, ""},
		{"fraction of a percent is refused", intent.JunosSpec{QueueBufferSize: bytesOf(10_000_000)}, 150_000, 1_500_000, 0, 0, "1.5 % of the 10000000-byte queue buffer"},
		{"no buffer size", intent.JunosSpec{}, 150_000, 1_500_000, 0, 0, "set junos.queueBufferSize"},
		{"beyond the buffer", intent.JunosSpec{QueueBufferSize: bytesOf(1_000_000)}, 100_000, 2_000_000, 0, 0, "exceeds"},
		{"explicit levels out of order", intent.JunosSpec{FillLevelMin: percentOf(90), FillLevelMax: percentOf(55)}, 150_000, 1_500_000, 0, 0, "min < max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			sw.Junos = tc.junos
			sw.Policy.ECNMin, sw.Policy.ECNMax = tc.min, tc.max
			lo, hi, err := fillLevels(sw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "leaf-junos") {
					t.Fatalf("err = %v, want one naming leaf-junos and %q", err, tc.wantErr)
				}
				if _, rerr := New().Render(sw); rerr == nil {
					t.Fatal("Render accepted what fillLevels refused")
				}
				return
			}
			if err != nil || lo != tc.lo || hi != tc.hi {
				t.Fatalf("fillLevels = %d, %d, %v; want %d, %d", lo, hi, err, tc.lo, tc.hi)
			}
		})
	}
}

func TestRenderVariants(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(sw *intent.Switch)
		want  []string
		avoid []string
	}{
		{"trunk: DSCP classifier, 802.1p PFC, media MTU", func(sw *intent.Switch) {}, []string{
			"class-of-service classifiers dscp ROCEFAB_DSCP forwarding-class ROCEFAB_NO_LOSS loss-priority low code-points 011010",
			"class-of-service congestion-notification-profile ROCEFAB_PFC_PCP input ieee-802.1 code-point 011 pfc",
			"class-of-service interfaces et-0/0/0 congestion-notification-profile ROCEFAB_PFC_PCP",
			"class-of-service interfaces et-0/0/0 unit 0 classifiers dscp ROCEFAB_DSCP",
			"interfaces et-0/0/0 mtu 9216",
			"interfaces et-0/0/0 unit 0 family ethernet-switching interface-mode trunk",
			"vlans ROCEFAB_LOSSLESS vlan-id 100",
		}, []string{"class-of-service congestion-notification-profile ROCEFAB_PFC_DSCP pfc-watchdog"}},
		{"routed: DSCP-based PFC", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "et-0/0/1", Mode: "routed"}}
		}, []string{
			"class-of-service congestion-notification-profile ROCEFAB_PFC_DSCP input dscp code-point 011010 pfc",
			"class-of-service congestion-notification-profile ROCEFAB_PFC_DSCP pfc-watchdog",
			"class-of-service interfaces et-0/0/1 congestion-notification-profile ROCEFAB_PFC_DSCP",
		}, []string{"vlans ROCEFAB_LOSSLESS vlan-id 100", "class-of-service congestion-notification-profile ROCEFAB_PFC_PCP pfc-watchdog"}},
		{"trust pcp", func(sw *intent.Switch) { sw.Policy.Trust = "pcp" }, []string{
			"class-of-service classifiers ieee-802.1 ROCEFAB_PCP forwarding-class ROCEFAB_NO_LOSS loss-priority low code-points 011",
			"class-of-service classifiers ieee-802.1 ROCEFAB_PCP forwarding-class ROCEFAB_CNP loss-priority low code-points 110",
			"class-of-service interfaces et-0/0/0 unit 0 classifiers ieee-802.1 ROCEFAB_PCP",
		}, []string{"class-of-service interfaces et-0/0/0 unit 0 classifiers dscp ROCEFAB_DSCP"}},
		{"pfc-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfilePFCOnly }, []string{
			"class-of-service schedulers ROCEFAB_NO_LOSS transmit-rate percent 50",
			"class-of-service forwarding-classes class ROCEFAB_NO_LOSS queue-num 3 no-loss",
		}, []string{"class-of-service schedulers ROCEFAB_NO_LOSS explicit-congestion-notification", "class-of-service drop-profiles ROCEFAB_ECN interpolate fill-level 1"}},
		{"ecn-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfileECNOnly }, []string{
			"class-of-service forwarding-classes class ROCEFAB_NO_LOSS queue-num 3",
			"class-of-service schedulers ROCEFAB_NO_LOSS explicit-congestion-notification",
		}, []string{"class-of-service forwarding-classes class ROCEFAB_NO_LOSS pfc-priority 3", "class-of-service interfaces et-0/0/0 congestion-notification-profile ROCEFAB_PFC_PCP"}},
		{"LAG", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "et-0/0/0", Mode: "trunk", LAG: "ae0"}, {Name: "et-0/0/1", Mode: "trunk", LAG: "ae0"}}
		}, []string{
			"interfaces et-0/0/0 ether-options 802.3ad ae0",
			"interfaces et-0/0/1 ether-options 802.3ad ae0",
			"interfaces ae0 mtu 9216",
			"interfaces ae0 unit 0 family ethernet-switching vlan members ROCEFAB_LOSSLESS",
			"class-of-service interfaces ae0 scheduler-map ROCEFAB_SM",
		}, []string{"interfaces et-0/0/0 mtu 9216"}},
		{"explicit MTU adds the L2 header", func(sw *intent.Switch) { sw.Policy.SwitchMTU = intent.SwitchMTU{Value: 9000} }, []string{"interfaces et-0/0/0 mtu 9014"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			cfg := render(t, sw)
			for _, s := range tc.want {
				if !has(cfg, s) {
					t.Errorf("missing: set %s", s)
				}
			}
			for _, s := range tc.avoid {
				if has(cfg, s) {
					t.Errorf("unexpected: set %s", s)
				}
			}
		})
	}
}
