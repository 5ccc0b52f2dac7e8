package nxos

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
)

// basicSwitch is leaf-nxos of examples/basic, a copy a test may edit.
func basicSwitch(t testing.TB) *intent.Switch { return examplestest.Switch(t, "basic", "leaf-nxos") }

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

func TestTemplateFor(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    queueTemplate
	}{
		{"10.3(4a)", template8q},
		{"9.3(10)", template8q},
		{"7.0(3)I7(9)", template8q},
		{"7.0(3)I4(1)", template8q},
		{"7.0(3)I3(1)", template4q},
		{"7.0(3)I1(2)", template4q},
		{"6.1(2)I3(5)", template4q},
		{"", template8q},
		{"garbage", template8q},
	} {
		t.Run(tc.version, func(t *testing.T) {
			if got := templateFor(tc.version); got != tc.want {
				t.Errorf("templateFor(%q) = %+v, want %+v", tc.version, got, tc.want)
			}
		})
	}
}

func TestRenderVariants(t *testing.T) {
	queuing := []string{"policy-map type queuing " + PolicyQueues}
	for _, tc := range []struct {
		name  string
		edit  func(sw *intent.Switch)
		check func(t *testing.T, cfg *devcfg.Config)
	}{
		{"4q template on old releases", func(sw *intent.Switch) {
			sw.OSVersion = "7.0(3)I2(2)"
			sw.Policy.CNPPriority = 2
		}, func(t *testing.T, cfg *devcfg.Config) {
			q3 := children(cfg, append(queuing, "class type queuing c-out-q3")...)
			if !slices.Contains(q3, "bandwidth remaining percent 50") {
				t.Errorf("c-out-q3 = %v", q3)
			}
			if cfg.Tree.Find(append(queuing, "class type queuing c-out-8q-q3")) != nil {
				t.Error("8q class rendered for a 4q release")
			}
			if got := children(cfg, "policy-map type network-qos "+PolicyNQ, "class type network-qos c-nq3"); !slices.Contains(got, "pause pfc-cos 3") {
				t.Errorf("c-nq3 = %v", got)
			}
		}},
		// Cisco's RoCE script and the Nexus QoS guide write both thresholds
		// in one unit; 150 KiB and 3 MB have none in common but bytes.
		{"thresholds in one unit", func(sw *intent.Switch) { sw.Policy.ECNMin, sw.Policy.ECNMax = 153600, 3_000_000 }, func(t *testing.T, cfg *devcfg.Config) {
			want := "random-detect minimum-threshold 153600 bytes maximum-threshold 3000000 bytes drop-probability 100 weight 0 ecn"
			if got := children(cfg, append(queuing, "class type queuing c-out-8q-q3")...); !slices.Contains(got, want) {
				t.Errorf("c-out-8q-q3 = %v, want %q", got, want)
			}
		}},
		{"pfc-only renders no ECN", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfilePFCOnly }, func(t *testing.T, cfg *devcfg.Config) {
			if strings.Contains(cfg.Text(), "random-detect") {
				t.Error("random-detect rendered for pfc-only")
			}
			if !strings.Contains(cfg.Text(), "pause pfc-cos 3") {
				t.Error("pfc-only lost PFC")
			}
		}},
		{"ecn-only renders no PFC", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfileECNOnly }, func(t *testing.T, cfg *devcfg.Config) {
			text := cfg.Text()
			for _, s := range []string{"pause pfc-cos", "priority-flow-control"} {
				if strings.Contains(text, s) {
					t.Errorf("ecn-only rendered %q", s)
				}
			}
			if !strings.Contains(text, "random-detect minimum-threshold 150 kbytes") {
				t.Error("ecn-only lost ECN")
			}
		}},
		{"trust pcp matches CoS", func(sw *intent.Switch) { sw.Policy.Trust = "pcp" }, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "class-map type qos match-any "+ClassRoCE); !slices.Equal(got, []string{"match cos 3"}) {
				t.Errorf("RoCE class = %v", got)
			}
			if got := children(cfg, "class-map type qos match-any "+ClassCNP); !slices.Equal(got, []string{"match cos 6"}) {
				t.Errorf("CNP class = %v", got)
			}
		}},
		{"several RoCE DSCPs, sorted", func(sw *intent.Switch) { sw.Policy.RoCEDSCP = []int{28, 26, 26} }, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "class-map type qos match-any "+ClassRoCE); !slices.Equal(got, []string{"match dscp 26", "match dscp 28"}) {
				t.Errorf("RoCE class = %v", got)
			}
		}},
		{"routed and access ports", func(sw *intent.Switch) {
			sw.Policy.VLAN = 100
			sw.Ports = []intent.Port{{Name: "Ethernet1/1", Mode: "routed"}, {Name: "Ethernet1/2", Mode: "access"}}
		}, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "interface Ethernet1/1"); !slices.Equal(got, []string{"mtu 9216", "service-policy type qos input ROCEFAB_QOS", "priority-flow-control mode on"}) {
				t.Errorf("routed port = %v", got)
			}
			if got := children(cfg, "interface Ethernet1/2"); !slices.Contains(got, "switchport access vlan 100") || !slices.Contains(got, "switchport mode access") {
				t.Errorf("access port = %v", got)
			}
		}},
		{"routed fabric has no VLAN", func(sw *intent.Switch) {
			sw.Policy.VLAN = 0
			sw.Ports = []intent.Port{{Name: "Ethernet1/1", Mode: "routed"}}
		}, func(t *testing.T, cfg *devcfg.Config) {
			if strings.Contains(cfg.Text(), "vlan") {
				t.Errorf("routed fabric rendered a VLAN:\n%s", cfg.Text())
			}
		}},
		{"LAG members", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "Ethernet1/1", Mode: "trunk", LAG: "port-channel10"}, {Name: "Ethernet1/2", Mode: "trunk", LAG: "Po10"}}
		}, func(t *testing.T, cfg *devcfg.Config) {
			for _, m := range []string{"interface Ethernet1/1", "interface Ethernet1/2"} {
				if got := children(cfg, m); !slices.Equal(got, []string{"channel-group 10 mode active", "priority-flow-control mode on"}) {
					t.Errorf("%s = %v", m, got)
				}
			}
			po := children(cfg, "interface port-channel10")
			if !slices.Contains(po, "switchport trunk allowed vlan add 100") || !slices.Contains(po, "mtu 9216") || !slices.Contains(po, "service-policy type qos input ROCEFAB_QOS") {
				t.Errorf("port-channel10 = %v", po)
			}
		}},
		{"explicit MTU", func(sw *intent.Switch) { sw.Policy.SwitchMTU = intent.SwitchMTU{Value: 9100} }, func(t *testing.T, cfg *devcfg.Config) {
			if got := children(cfg, "interface Ethernet1/1"); !slices.Contains(got, "mtu 9100") {
				t.Errorf("port = %v", got)
			}
		}},
		{"watchdog off", func(sw *intent.Switch) { sw.Policy.Watchdog.Enabled = false }, func(t *testing.T, cfg *devcfg.Config) {
			if strings.Contains(cfg.Text(), "watch-dog") {
				t.Error("watchdog rendered while disabled")
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

// TestBandwidthTotals100: NX-OS rejects a queuing policy whose remaining
// percentages do not total 100, whatever the priorities.
func TestBandwidthTotals100(t *testing.T) {
	for nodrop := 0; nodrop < 8; nodrop++ {
		for cnp := 0; cnp < 8; cnp++ {
			if cnp == nodrop {
				continue
			}
			sw := basicSwitch(t)
			sw.Policy.NoDropPriority, sw.Policy.CNPPriority, sw.Policy.PFCPriorities = nodrop, cnp, []int{nodrop}
			cfg := render(t, sw)
			total, strict := 0, 0
			for _, class := range cfg.Tree.Children([]string{"policy-map type queuing " + PolicyQueues}) {
				for _, l := range class.Children {
					if v, ok := strings.CutPrefix(l.Line, "bandwidth remaining percent "); ok {
						n, _ := strconv.Atoi(v)
						total += n
					}
					if l.Line == "priority level 1" {
						strict++
					}
				}
			}
			if total != 100 || strict != 1 {
				t.Errorf("no-drop %d, CNP %d: remaining percent totals %d, %d strict queues", nodrop, cnp, total, strict)
			}
		}
	}
}

func TestRenderErrorsNameTheDevice(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(sw *intent.Switch)
		want string
	}{
		{"CNP queue beyond the 4q template", func(sw *intent.Switch) { sw.OSVersion = "7.0(3)I2(1)" }, "CNP priority 6 does not fit"},
		{"LAG without a number", func(sw *intent.Switch) {
			sw.Ports = []intent.Port{{Name: "Ethernet1/1", Mode: "trunk", LAG: "uplink"}}
		}, `LAG "uplink"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			_, err := New().Render(sw)
			if err == nil || !strings.Contains(err.Error(), "leaf-nxos") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming leaf-nxos and %q", err, tc.want)
			}
		})
	}
}
