package junos

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
	"gopkg.in/yaml.v3"
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
		{"class-of-service interfaces et-0/0/0 congestion-notification-profile P", "class-of-service interfaces et-0/0/0 congestion-notification-profile", devcfg.String("P")},
		{"class-of-service congestion-notification-profile P", "class-of-service congestion-notification-profile P", devcfg.Empty},
		{"class-of-service host-outbound-traffic ieee-802.1 rewrite-rules", "class-of-service host-outbound-traffic ieee-802.1 rewrite-rules", devcfg.Empty},
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

// withSection gives sw the junos section text, as the loader keeps it.
func withSection(t testing.TB, sw *intent.Switch, text string) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	sw.SetSection("junos", intent.Section{Node: doc.Content[0], At: intent.Loc{File: "t.yaml", Line: 1, Col: 1, Field: "spec.switches[0].junos"}})
}

func has(cfg *devcfg.Config, stmt string) bool {
	path, v := splitStatement(strings.Fields(stmt))
	got, ok := cfg.Paths[path]
	return ok && got == v
}

func TestFillLevels(t *testing.T) {
	for _, tc := range []struct {
		name    string
		junos   string
		min     uint64
		max     uint64
		lo, hi  int
		wantErr string
	}{
		{"exact from the buffer", "{queueBufferSize: 15MB}", 150_000, 1_500_000, 1, 10, ""},
		{"explicit levels win", "{queueBufferSize: 7MB, fillLevelMin: 55, fillLevelMax: 90%}", 150_000, 1_500_000, 55, 90, ""},
		{"fraction of a percent is refused", "{queueBufferSize: 10MB}", 150_000, 1_500_000, 0, 0, "1.5 % of the 10000000-byte queue buffer"},
		{"no buffer size", "{}", 150_000, 1_500_000, 0, 0, "set junos.queueBufferSize"},
		{"beyond the buffer", "{queueBufferSize: 1MB}", 100_000, 2_000_000, 0, 0, "exceeds"},
		{"explicit levels out of order", "{fillLevelMin: 90, fillLevelMax: 55}", 150_000, 1_500_000, 0, 0, "min < max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			withSection(t, sw, tc.junos)
			sw.Policy.ECNMin, sw.Policy.ECNMax = tc.min, tc.max
			j, err := settingsOf(sw)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi, err := fillLevels(sw, j)
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

// TestSettingsErrors: a section that does not decode is refused with the
// loader's diagnostics (file, line, field), before anything renders.
func TestSettingsErrors(t *testing.T) {
	for text, want := range map[string]string{
		"{queueBufferSize: 10XB}":            "t.yaml:1:19: RF012 error spec.switches[0].junos.queueBufferSize:",
		"{queueBuferSize: 10MB}":             `t.yaml:1:2: RF002 error spec.switches[0].junos.queueBuferSize: unknown field "queueBuferSize" (did you mean "queueBufferSize"?)`,
		"15MB":                               "t.yaml:1:1: RF003 error spec.switches[0].junos: expected a mapping, got a scalar",
		"{fillLevelMin: 1, fillLevelMin: 2}": `duplicate key "fillLevelMin"`,
	} {
		sw := basicSwitch(t)
		withSection(t, sw, text)
		_, err := New().Render(sw)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "leaf-junos") {
			t.Errorf("%s: err = %v, want one naming leaf-junos and %q", text, err, want)
		}
	}
}

// TestFillLevelOrder: Junos pairs the nth fill level with the nth drop
// probability, so both come out low then high, in the rendered file and in
// a patch, also where string order would put "20" before "5".
func TestFillLevelOrder(t *testing.T) {
	sw := basicSwitch(t)
	withSection(t, sw, "{fillLevelMin: 5, fillLevelMax: 20}")
	cfg := render(t, sw)
	text, _ := Encode(cfg)
	lo := strings.Index(string(text), "interpolate fill-level 5\n")
	hi := strings.Index(string(text), "interpolate fill-level 20\n")
	if lo < 0 || hi < 0 || lo > hi {
		t.Fatalf("fill levels out of order in:\n%s", text)
	}
	patch := devcfg.BuildPatch(devcfg.Diff(cfg, &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{}}, syntaxOf(t), nil), syntaxOf(t)).Lines
	var levels []string
	for _, l := range patch {
		if strings.Contains(l, "interpolate fill-level ") || strings.Contains(l, "interpolate drop-probability ") {
			levels = append(levels, l[strings.Index(l, "interpolate ")+len("interpolate "):])
		}
	}
	if want := []string{"drop-probability 0", "drop-probability 100", "fill-level 5", "fill-level 20"}; !slices.Equal(levels, want) {
		t.Fatalf("patch order %q, want %q", levels, want)
	}
}

// TestSchedulersCoverEveryClass: every forwarding class RoCE ports use has
// a scheduler in the map (Juniper: a class without one may drop even short
// bursts), the classifiers send every other code point to best-effort, the
// RoCE queue has a guaranteed rate, and the rates add up to 100.
func TestSchedulersCoverEveryClass(t *testing.T) {
	for _, profile := range []string{intent.ProfileDCQCN, intent.ProfilePFCOnly, intent.ProfileECNOnly} {
		t.Run(profile, func(t *testing.T) {
			sw := basicSwitch(t)
			sw.Policy.Profile = profile
			cfg := render(t, sw)
			mapped, classified := map[string]bool{}, map[string]bool{}
			total := 0
			for path, v := range cfg.Paths {
				if fc, ok := strings.CutPrefix(path, "class-of-service scheduler-maps ROCEFAB_SM forwarding-class "); ok {
					fc, sched, _ := strings.Cut(fc, " scheduler")
					mapped[fc] = true
					if _, ok := cfg.Paths["class-of-service schedulers "+v.Text()+" transmit-rate percent"]; !ok {
						t.Errorf("class %s: scheduler %s has no transmit rate%s", fc, v.Text(), sched)
					}
				}
				if strings.HasSuffix(path, " transmit-rate percent") {
					n, _ := strconv.Atoi(v.Text())
					total += n
				}
				if fc, ok := strings.CutPrefix(path, "class-of-service classifiers dscp ROCEFAB_DSCP forwarding-class "); ok {
					fc, _, _ = strings.Cut(fc, " ")
					classified[fc] = true
				}
			}
			for fc := range classified {
				if !mapped[fc] {
					t.Errorf("the classifier uses class %s, which has no scheduler", fc)
				}
			}
			for _, fc := range []string{FCNoLoss, FCCNP, FCBestEffort, FCNetworkControl} {
				if !mapped[fc] {
					t.Errorf("forwarding class %s has no scheduler", fc)
				}
			}
			if total != 100 {
				t.Errorf("transmit rates add up to %d %%", total)
			}
			if !has(cfg, "class-of-service schedulers ROCEFAB_NO_LOSS transmit-rate percent 50") {
				t.Error("the RoCE queue has no guaranteed rate")
			}
			n := 0
			for path := range cfg.Paths {
				if strings.HasPrefix(path, "class-of-service classifiers dscp ROCEFAB_DSCP ") {
					n++
				}
			}
			if n != 64 {
				t.Errorf("the DSCP classifier maps %d code points, want all 64", n)
			}
		})
	}
}

// TestWatchdogWatchesTheLosslessQueue: Juniper's PFC watchdog watches only
// queues named by `output ieee-802.1 code-point N flow-control-queue Q`
// (Juniper, PFC Watchdog: juniper.net/documentation/us/en/software/junos/cos/
// topics/topic-map/cos-pfc-watchdog-configure.html, "set class-of-service
// congestion-notification-profile cnp output ieee-802.1 code-point 011
// flow-control-queue 3"). The golden testdata/basic/leaf-junos.set carries it too.
func TestWatchdogWatchesTheLosslessQueue(t *testing.T) {
	cfg := render(t, basicSwitch(t))
	for _, want := range []string{
		"class-of-service congestion-notification-profile ROCEFAB_PFC_PCP output ieee-802.1 code-point 011 flow-control-queue 3",
		"class-of-service congestion-notification-profile ROCEFAB_PFC_PCP pfc-watchdog",
	} {
		if !has(cfg, want) {
			t.Errorf("missing %q", want)
		}
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
		// Juniper: one drop attribute per queue, and the default lossless
		// fcoe class holds queue 3, so the lossy RoCE class moves to 5.
		{"ecn-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfileECNOnly }, []string{
			"class-of-service forwarding-classes class ROCEFAB_NO_LOSS queue-num 5",
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

func syntaxOf(t *testing.T) devcfg.Syntax {
	t.Helper()
	return devcfg.Syntax{Style: devcfg.StyleStatements, Set: "set ", Delete: "delete "}
}
