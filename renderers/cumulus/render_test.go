package cumulus

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
)

// basicSwitch is leaf-cumulus of examples/basic, a copy a test may edit.
func basicSwitch(t testing.TB) *intent.Switch { return examplestest.Switch(t, "basic", "leaf-cumulus") }

func render(t *testing.T, sw *intent.Switch) *devcfg.Config {
	t.Helper()
	cfg, err := New().Render(sw)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return cfg
}

// has checks one `nv set` command against the model.
func has(cfg *devcfg.Config, cmd string) bool {
	path, v := splitCommand(strings.Fields(cmd))
	got, ok := cfg.Paths[path]
	return ok && got == v
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		cmd, path string
		value     devcfg.Value
	}{
		{"interface swp1 link mtu 9216", "interface swp1 link mtu", "9216"},
		{"qos mapping default-global trust l3", "qos mapping default-global trust", devcfg.String("l3")},
		{"qos mapping default-global dscp 26 switch-priority 3", "qos mapping default-global dscp 26 switch-priority", "3"},
		{"qos pfc default-global switch-priority 3", "qos pfc default-global switch-priority 3", devcfg.Empty},
		{"qos traffic-pool default-lossless switch-priority 3", "qos traffic-pool default-lossless switch-priority 3", devcfg.Empty},
		{"bridge domain br_default vlan 100", "bridge domain br_default vlan 100", devcfg.Empty},
		{"interface bond1 bond member swp1", "interface bond1 bond member swp1", devcfg.Empty},
		{"interface swp1 bridge domain br_default access 100", "interface swp1 bridge domain br_default access", "100"},
		{"qos roce", "qos roce", devcfg.Empty},
		{"interface swp1 qos pfc-watchdog", "interface swp1 qos pfc-watchdog", devcfg.Empty},
		{"system hostname 007", "system hostname", devcfg.String("007")},
	} {
		path, v := splitCommand(strings.Fields(tc.cmd))
		if path != tc.path || v != tc.value {
			t.Errorf("splitCommand(%q) = %q, %s; want %q, %s", tc.cmd, path, v, tc.path, tc.value)
		}
	}
}

// TestEveryClassIsScheduled: NVIDIA's guide says the bw-percent values add
// up to at most 100 and a class without one gets no scheduling, so every
// switch priority maps to a class the scheduler serves: RoCE and CNP their
// own, the rest folded into one (NVIDIA's RoCE profile: SP3 to TC3, SP6 to
// TC6, the others to TC0).
func TestEveryClassIsScheduled(t *testing.T) {
	for name, edit := range map[string]func(*intent.Policy){
		"reference":      func(*intent.Policy) {},
		"two lossless":   func(p *intent.Policy) { p.PFCPriorities = []int{3, 4} },
		"no-drop 0":      func(p *intent.Policy) { p.NoDropPriority, p.PFCPriorities = 0, []int{0} },
		"ecn-only":       func(p *intent.Policy) { p.Profile = intent.ProfileECNOnly },
		"cnp priority 7": func(p *intent.Policy) { p.CNPPriority = 7 },
	} {
		t.Run(name, func(t *testing.T) {
			sw := basicSwitch(t)
			edit(&sw.Policy)
			cfg := render(t, sw)
			sched := "qos egress-scheduler " + Profile + " traffic-class "
			total := 0
			for sp := 0; sp < 8; sp++ {
				tc := cfg.Paths["qos egress-queue-mapping "+Profile+" switch-priority "+itoa(sp)+" traffic-class"].Text()
				mode := cfg.Paths[sched+tc+" mode"].Text()
				if mode != "strict" && mode != "dwrr" {
					t.Errorf("switch priority %d goes to traffic class %s, which is not scheduled", sp, tc)
				}
				if mode == "dwrr" && cfg.Paths[sched+tc+" bw-percent"] == "" {
					t.Errorf("traffic class %s is dwrr without bw-percent", tc)
				}
			}
			for path, v := range cfg.Paths {
				if strings.HasPrefix(path, sched) && strings.HasSuffix(path, " bw-percent") {
					n, _ := strconv.Atoi(v.Text())
					total += n
				}
			}
			if total != 100 {
				t.Errorf("bw-percent adds up to %d", total)
			}
		})
	}
}

// TestLosslessPriorityLeavesTheLossyPool: every NVIDIA example moves the
// lossless switch priority out of default-lossy (by setting that pool's
// priorities to the rest) when adding it to default-lossless.
func TestLosslessPriorityLeavesTheLossyPool(t *testing.T) {
	cfg := render(t, basicSwitch(t))
	for sp := 0; sp < 8; sp++ {
		lossy := has(cfg, "qos traffic-pool default-lossy switch-priority "+itoa(sp))
		lossless := has(cfg, "qos traffic-pool default-lossless switch-priority "+itoa(sp))
		if lossy == lossless {
			t.Errorf("switch priority %d: lossy %v, lossless %v; want exactly one", sp, lossy, lossless)
		}
	}
	// A device that still has SP3 in the lossy pool gets it unset.
	run := cfg.Clone()
	run.Paths["qos traffic-pool default-lossy switch-priority 3"] = devcfg.Empty
	changes := devcfg.Diff(cfg, run.Filter(cfg.Owned), syntax, nil)
	if p := devcfg.BuildPatch(changes, syntax).Lines; !slices.Equal(p, []string{"nv unset qos traffic-pool default-lossy switch-priority 3"}) {
		t.Errorf("patch = %q", p)
	}
}

func TestRenderVariants(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(sw *intent.Switch)
		want  []string
		avoid []string
	}{
		{"basic", func(sw *intent.Switch) {}, []string{
			"qos mapping default-global trust l3",
			"qos mapping default-global dscp 26 switch-priority 3",
			"qos mapping default-global dscp 24 switch-priority 0",
			"qos mapping default-global dscp 48 switch-priority 6",
			"qos mapping default-global dscp 49 switch-priority 0",
			"qos mapping default-global dscp 46 switch-priority 5",
			"qos pfc default-global switch-priority 3",
			"qos pfc default-global tx enable",
			"qos pfc default-global rx enable",
			"qos congestion-control default-global traffic-class 3 min-threshold 150000",
			"qos congestion-control default-global traffic-class 3 max-threshold 1500000",
			"qos congestion-control default-global traffic-class 3 probability 100",
			"qos congestion-control default-global traffic-class 3 ecn enable",
			"qos egress-scheduler default-global traffic-class 6 mode strict",
			"qos egress-scheduler default-global traffic-class 3 bw-percent 50",
			"qos egress-scheduler default-global traffic-class 0 bw-percent 50",
			"qos traffic-pool default-lossless memory-percent 50",
			"qos traffic-pool default-lossless switch-priority 3",
			"interface swp1 link mtu 9216",
			"interface swp1 bridge domain br_default vlan 100",
			"interface swp1 qos pfc-watchdog state enable",
			"bridge domain br_default vlan 100",
		}, []string{"qos pfc default-global cable-length 100", "qos roce"}},
		{"cable length other than the default", func(sw *intent.Switch) { sw.Policy.CableLength = 5 }, []string{"qos pfc default-global cable-length 5"}, nil},
		{"default cable length is not rendered", func(sw *intent.Switch) { sw.Policy.CableLength = 100 }, nil, []string{"qos pfc default-global cable-length 100"}},
		{"pfc-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfilePFCOnly }, []string{"qos pfc default-global tx enable"}, []string{"qos congestion-control default-global traffic-class 3 ecn enable"}},
		{"ecn-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfileECNOnly }, []string{"qos congestion-control default-global traffic-class 3 ecn enable"},
			[]string{"qos pfc default-global tx enable", "interface swp1 qos pfc-watchdog state enable", "qos traffic-pool default-lossless memory-percent 50"}},
		{"trust pcp", func(sw *intent.Switch) { sw.Policy.Trust = "pcp" }, []string{"qos mapping default-global trust l2", "qos mapping default-global pcp 3 switch-priority 3"},
			[]string{"qos mapping default-global dscp 26 switch-priority 3"}},
		{"access and routed ports, bond", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "swp1", Mode: "access"}, {Name: "swp2", Mode: "routed"}, {Name: "swp3", Mode: "trunk", LAG: "bond1"}}
		}, []string{
			"interface swp1 bridge domain br_default access 100",
			"interface swp2 link mtu 9216",
			"interface bond1 bond member swp3",
			"interface bond1 bridge domain br_default vlan 100",
			"interface swp3 qos pfc-watchdog state enable",
		}, []string{"interface swp2 bridge domain br_default vlan 100", "interface swp3 link mtu 9216"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			cfg := render(t, sw)
			for _, s := range tc.want {
				if !has(cfg, s) {
					t.Errorf("missing: nv set %s", s)
				}
			}
			for _, s := range tc.avoid {
				if has(cfg, s) {
					t.Errorf("unexpected: nv set %s", s)
				}
			}
		})
	}
}
