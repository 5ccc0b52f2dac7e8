package nxos

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/intent/headroom"
	"github.com/rocefab/rocefab/renderers"
)

// cabled gives the first ports of a switch cables of these lengths and
// every port a speed, with nothing else cabled.
func cabled(sw *intent.Switch, speed int, meters ...int) {
	for i := range sw.Ports {
		sw.Ports[i].Cable = nil
		sw.Ports[i].Speed = intent.Speed{Mbps: speed}
		if i < len(meters) {
			sw.Ports[i].Cable = &intent.Cable{Length: meters[i], Peer: intent.Endpoint{Device: "peer", Port: "p"}, PeerMTU: intent.SwitchMTU{Max: true}}
		}
	}
}

func inputLines(cfg *devcfg.Config, class string) []string {
	return children(cfg, "policy-map type queuing "+PolicyInput, "class type queuing "+class)
}

// TestPauseBuffer: Cisco makes the pause buffer thresholds mandatory for
// cables over 100 m and optional below; rocefab renders them for the
// port that needs the most, on the no-drop input queues, and attaches the
// input policy under system qos after defining it.
func TestPauseBuffer(t *testing.T) {
	t.Run("up to 100 m NX-OS keeps its defaults", func(t *testing.T) {
		sw := basicSwitch(t)
		cabled(sw, 100000, 3, 100)
		cfg := render(t, sw)
		if cfg.Tree.Find([]string{"policy-map type queuing " + PolicyInput}) != nil || slices.Contains(children(cfg, systemQoS), "service-policy type queuing input "+PolicyInput) {
			t.Error("pause buffer rendered for cables up to 100 m")
		}
		if cfg.Owned.OwnsLine([]string{systemQoS}, "service-policy type queuing input OTHER") {
			t.Error("rocefab owns the input queuing policy it does not render")
		}
	})
	t.Run("a 300 m cable", func(t *testing.T) {
		sw := basicSwitch(t)
		cabled(sw, 100000, 3, 300)
		cfg := render(t, sw)
		// intent/headroom: 100G over 300 m, 9238-byte frames both ways (MTU
		// 9216 + 22), generic ASIC: xoff 82944 B; the pause point is two
		// frames, 18476 B.
		want := headroomOf(t, 100000, 300)
		if want != 82944 {
			t.Fatalf("computed xoff %d, want 82944", want)
		}
		line := "pause buffer-size 101420 pause-threshold 18476 resume-threshold 18476"
		if got := inputLines(cfg, "c-in-q3"); !slices.Equal(got, []string{line}) {
			t.Errorf("c-in-q3 = %v, want %q", got, line)
		}
		sys := children(cfg, systemQoS)
		if !slices.Contains(sys, "service-policy type queuing input "+PolicyInput) {
			t.Errorf("system qos = %v", sys)
		}
		order := []string{}
		for _, n := range cfg.Tree.Nodes {
			order = append(order, n.Line)
		}
		if slices.Index(order, "policy-map type queuing "+PolicyInput) > slices.Index(order, systemQoS) {
			t.Error("system qos refers to the input policy before it is defined")
		}
		if !cfg.Owned.OwnsLine([]string{systemQoS}, "service-policy type queuing input OTHER") {
			t.Error("the input service-policy is not owned")
		}
		if !slices.ContainsFunc(cfg.Singletons, func(s devcfg.Singleton) bool { return s.Name == "system qos queuing input policy" }) {
			t.Error("the input policy singleton is not claimed")
		}
		if notes := strings.Join(cfg.Notes, "\n"); !strings.Contains(notes, "Cisco requires it for cables over 100 m (Ethernet1/2)") ||
			!strings.Contains(notes, "82944 B xoff Ethernet1/2 needs (100G, 300 m") {
			t.Errorf("notes do not explain the pause buffer: %s", notes)
		}
	})
	t.Run("every lossless priority", func(t *testing.T) {
		sw := basicSwitch(t)
		cabled(sw, 100000, 300)
		sw.Policy.PFCPriorities = []int{3, 4}
		cfg := render(t, sw)
		if len(inputLines(cfg, "c-in-q3")) != 1 || len(inputLines(cfg, "c-in-q4")) != 1 {
			t.Errorf("c-in-q3 %v, c-in-q4 %v", inputLines(cfg, "c-in-q3"), inputLines(cfg, "c-in-q4"))
		}
	})
	t.Run("the written values", func(t *testing.T) {
		sw := basicSwitch(t)
		cabled(sw, 100000)
		sw.Policy.Headroom, sw.Policy.Xon, sw.Policy.Xoff = 200000, 30000, 150000
		cfg := render(t, sw)
		if got := inputLines(cfg, "c-in-q3"); !slices.Equal(got, []string{"pause buffer-size 200000 pause-threshold 30000 resume-threshold 30000"}) {
			t.Errorf("c-in-q3 = %v", got)
		}
	})
	t.Run("a written headroom too small for xon and xoff", func(t *testing.T) {
		sw := basicSwitch(t)
		sw.Policy.Headroom, sw.Policy.Xon, sw.Policy.Xoff = 100000, 30000, 150000
		if _, err := New().Render(sw); err == nil || !strings.Contains(err.Error(), "pfc.headroom 100000 B is below the pause point 30000 B plus xoff 150000 B") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("no PFC, no pause buffer", func(t *testing.T) {
		sw := basicSwitch(t)
		cabled(sw, 100000, 300)
		sw.Policy.Profile = intent.ProfileECNOnly
		if cfg := render(t, sw); cfg.Tree.Find([]string{"policy-map type queuing " + PolicyInput}) != nil {
			t.Error("pause buffer rendered without PFC")
		}
	})
}

func headroomOf(t *testing.T, speed, meters int) uint64 {
	t.Helper()
	r, err := headroom.Compute(headroom.Inputs{SpeedMbps: speed, CableMeters: meters, PortFrame: MTUCeiling + renderers.FrameOverhead,
		PeerFrame: MTUCeiling + renderers.FrameOverhead, ASIC: headroom.Generic})
	if err != nil {
		t.Fatal(err)
	}
	return r.Xoff
}
