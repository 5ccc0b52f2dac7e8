package sshsim

import (
	"strings"
	"testing"
	"time"
)

// console drives one CLI session without SSH: the same code path as a
// remote shell, minus the transport.
type console struct {
	t    *testing.T
	sim  *Sim
	sess *session
}

func newConsole(t *testing.T, sim *Sim) *console {
	t.Helper()
	c := &console{t: t, sim: sim, sess: &session{user: "admin"}}
	sim.mu.Lock()
	sim.dev.login(c.sess)
	sim.mu.Unlock()
	return c
}

// do types lines and returns the output of the last one (without prompt).
func (c *console) do(lines ...string) string {
	c.t.Helper()
	var out string
	for _, l := range lines {
		raw, _ := c.sim.answer(c.sess, l)
		c.sim.mu.Lock()
		prompt := c.sim.dev.prompt(c.sess)
		c.sim.mu.Unlock()
		out = strings.TrimSuffix(strings.TrimPrefix(raw, "\n"), prompt)
	}
	return strings.TrimRight(out, "\n")
}

func (c *console) prompt() string {
	c.sim.mu.Lock()
	defer c.sim.mu.Unlock()
	return c.sim.dev.prompt(c.sess)
}

func TestIOSModesAndPrompts(t *testing.T) {
	cases := []struct {
		personality Personality
		lines       []string
		prompt      string
	}{
		{NXOS, nil, "sw1# "},
		{NXOS, []string{"configure terminal"}, "sw1(config)# "},
		{NXOS, []string{"configure terminal", "interface Ethernet1/1"}, "sw1(config-if)# "},
		{NXOS, []string{"configure terminal", "policy-map type queuing Q", "class type queuing c-out-8q-q3"}, "sw1(config-pmap-c-que)# "},
		{NXOS, []string{"configure terminal", "policy-map type network-qos N", "class type network-qos c-8q-nq3"}, "sw1(config-pmap-nqos-c)# "},
		{NXOS, []string{"configure terminal", "system qos"}, "sw1(config-sys-qos)# "},
		{NXOS, []string{"configure terminal", "system qos", "exit", "exit"}, "sw1# "},
		{NXOS, []string{"configure terminal", "interface Ethernet1/1", "end"}, "sw1# "},
		{EOS, nil, "sw1>"},
		{EOS, []string{"enable"}, "sw1#"},
		{EOS, []string{"enable", "configure terminal", "interface Ethernet1"}, "sw1(config-if-Et1)#"},
		{EOS, []string{"enable", "configure session s1", "qos profile P", "uc-tx-queue 3"}, "sw1(config-s-s1-qos-profile-P-txq-3)#"},
		{EOS, []string{"enable", "configure session rocefab-x", "interface Ethernet2"}, "sw1(config-s-rocefa-if-Et2)#"},
	}
	for _, tc := range cases {
		t.Run(string(tc.personality)+" "+strings.Join(tc.lines, "; "), func(t *testing.T) {
			c := newConsole(t, startSim(t, Options{Personality: tc.personality, Hostname: "sw1", Blank: true, Ports: 4}))
			c.do(tc.lines...)
			if got := c.prompt(); got != tc.prompt {
				t.Fatalf("prompt %q, want %q", got, tc.prompt)
			}
		})
	}
}

func TestIOSConfigurationSemantics(t *testing.T) {
	cases := []struct {
		name        string
		personality Personality
		lines       []string
		want        []string // lines the running config must contain, in order
		absent      []string
	}{
		{"single-valued line replaced in place", NXOS,
			[]string{"interface Ethernet1/1", "description a", "mtu 1500", "speed 100000", "mtu 9216"},
			[]string{"interface Ethernet1/1\n  description a\n  mtu 9216\n  speed 100000\n  no shutdown\n"}, []string{"mtu 1500"}},
		{"no removes a single-valued line whatever its value", NXOS,
			[]string{"interface Ethernet1/1", "mtu 9216", "no mtu 1500"},
			[]string{"interface Ethernet1/1\n  no shutdown\n"}, []string{"mtu"}},
		{"no removes a whole block", NXOS,
			[]string{"policy-map type queuing Q", "class type queuing c-out-8q-q3", "bandwidth remaining percent 50", "exit", "exit", "no policy-map type queuing Q"},
			nil, []string{"policy-map type queuing Q", "bandwidth remaining percent 50"}},
		{"an outer-level command returns to its level", NXOS,
			[]string{"policy-map type queuing Q", "class type queuing c-out-8q-q3", "interface Ethernet1/2", "mtu 9216"},
			[]string{"policy-map type queuing Q\n  class type queuing c-out-8q-q3\n", "interface Ethernet1/2\n  mtu 9216\n"}, nil},
		{"shutdown hides the generated no shutdown", NXOS,
			[]string{"interface Ethernet1/3", "shutdown"},
			[]string{"interface Ethernet1/3\n  shutdown\n"}, []string{"interface Ethernet1/3\n  shutdown\n  no shutdown"}},
		{"EOS hides the default weight 0", EOS,
			[]string{"qos profile P", "uc-tx-queue 3", "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100 weight 0"},
			[]string{"qos profile P\n   !\n   uc-tx-queue 3\n      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100\n"}, []string{"weight 0"}},
		{"EOS shows a non-default weight", EOS,
			[]string{"qos profile P", "uc-tx-queue 3", "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes weight 5"},
			[]string{"maximum-threshold 1500 kbytes weight 5\n"}, nil},
		{"EOS no removes a line typed as shown, without its hidden default", EOS,
			[]string{"interface Ethernet1", "uc-tx-queue 3", "random-detect ecn minimum-threshold 1 mbytes maximum-threshold 2 mbytes weight 0", "random-detect ecn count",
				"no random-detect ecn minimum-threshold 1 mbytes maximum-threshold 2 mbytes", "no random-detect ecn count"},
			[]string{"interface Ethernet1\n   uc-tx-queue 3\n!\ninterface Ethernet2\n!\n"}, []string{"random-detect"}},
		// EOS ports are switched until `no switchport`, which the running
		// config prints; `switchport` makes the port switched again.
		{"EOS stores no switchport and switchport removes it", EOS,
			[]string{"interface Ethernet1", "no switchport", "interface Ethernet2", "no switchport", "switchport"},
			[]string{"interface Ethernet1\n   no switchport\n!\ninterface Ethernet2\n!\n"}, []string{"interface Ethernet2\n   no switchport", "   switchport\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := startSim(t, Options{Personality: tc.personality, Hostname: "sw1", Blank: true, Ports: 4})
			c := newConsole(t, sim)
			c.do("enable", "configure terminal")
			for _, l := range tc.lines {
				if out := c.do(l); out != "" {
					t.Fatalf("%q: %s", l, out)
				}
			}
			cfg := sim.Config()
			pos := 0
			for _, w := range tc.want {
				i := strings.Index(cfg[pos:], w)
				if i < 0 {
					t.Fatalf("config lacks %q (in order):\n%s", w, cfg)
				}
				pos += i
			}
			for _, a := range tc.absent {
				if strings.Contains(cfg, a) {
					t.Fatalf("config still has %q:\n%s", a, cfg)
				}
			}
		})
	}
}

func TestIOSRejectsUnknownCommands(t *testing.T) {
	cases := []struct {
		personality Personality
		line, want  string
	}{
		{NXOS, "interfce Ethernet1/1", "% Invalid command at '^' marker."},
		{NXOS, "mtu 9216", "% Invalid command at '^' marker."}, // only valid inside a context
		{EOS, "qos profil P", "% Invalid input (at token 0: 'qos')"},
		{EOS, "service-profile P", "% Invalid input"},
		// EOS's IP MTU tops out at 9214: 9216 is refused.
		{EOS, "interface Ethernet1\nmtu 9216", "% Invalid input"},
	}
	for _, tc := range cases {
		t.Run(string(tc.personality)+" "+tc.line, func(t *testing.T) {
			sim := startSim(t, Options{Personality: tc.personality, Blank: true, Ports: 2})
			before := sim.Config()
			c := newConsole(t, sim)
			c.do("enable", "configure terminal")
			lines := strings.Split(tc.line, "\n")
			c.do(lines[:len(lines)-1]...)
			if out := c.do(lines[len(lines)-1]); !strings.Contains(out, tc.want) {
				t.Fatalf("output %q lacks %q", out, tc.want)
			}
			if sim.Config() != before {
				t.Fatal("a rejected line changed the configuration")
			}
		})
	}
}

func TestNXOSRunningConfigHeaders(t *testing.T) {
	at := time.Date(2024, 5, 22, 10, 11, 12, 0, time.UTC)
	sim := startSim(t, Options{Personality: NXOS, Hostname: "leaf1", Now: func() time.Time { return at }, Ports: 2})
	show := sim.ShowRunning()
	for _, want := range []string{"!Command: show running-config\n", "!Running configuration last done at: Wed May 22 10:11:12 2024\n", "!Time: Wed May 22 10:11:12 2024\n", "version 10.3(4a)", "hostname leaf1\n", "interface Ethernet1/1\n", "  no shutdown\n", "class-map type qos match-any FOREIGN-VOICE", "vlan 1,10\nvlan 10\n  name servers\n"} {
		if !strings.Contains(show, want) {
			t.Errorf("show running-config lacks %q", want)
		}
	}
	if cfg := sim.Config(); strings.Contains(cfg, "!Time:") || strings.Contains(cfg, "last done at") {
		t.Error("Config() keeps volatile lines")
	}
	// Sections keep the device's order whatever the order of configuration:
	// a class-map configured last still prints before the VLANs, and VLANs
	// fold into one list line.
	if err := sim.HandChange("vlan 100", "exit", "vlan 101", "exit", "class-map type qos match-any LATE", "match dscp 1"); err != nil {
		t.Fatal(err)
	}
	show = sim.Config()
	late, vlans := strings.Index(show, "class-map type qos match-any LATE"), strings.Index(show, "vlan 1,10,100-101\n")
	if late < 0 || vlans < 0 || late > vlans {
		t.Fatalf("section order or VLAN folding wrong:\n%s", show)
	}
}

func TestEOSRunningConfigFraming(t *testing.T) {
	sim := startSim(t, Options{Personality: EOS, Hostname: "leaf2", Ports: 2})
	show := sim.ShowRunning()
	if !strings.HasPrefix(show, "! Command: show running-config\n! device: leaf2") || !strings.HasSuffix(show, "!\nend\n") {
		t.Fatalf("EOS framing wrong:\n%s", show)
	}
	if !strings.Contains(show, "!\ninterface Ethernet1\n   description gpu02 ens1f0np0\n!\n") {
		t.Fatalf("blocks not separated by !:\n%s", show)
	}
}

func TestNXOSCheckpointRollback(t *testing.T) {
	sim := startSim(t, Options{Personality: NXOS, Ports: 2})
	c := newConsole(t, sim)
	before := sim.Config()
	if out := c.do("checkpoint cp1"); !strings.Contains(out, "Done") {
		t.Fatalf("checkpoint: %q", out)
	}
	if out := c.do("checkpoint cp1"); !strings.Contains(out, "ERROR:") {
		t.Fatalf("duplicate checkpoint accepted: %q", out)
	}
	c.do("configure terminal", "interface Ethernet1/1", "mtu 9216", "end")
	if sim.Config() == before {
		t.Fatal("change not applied")
	}
	if out := c.do("rollback running-config checkpoint cp1"); !strings.Contains(out, "Rollback completed successfully.") {
		t.Fatalf("rollback: %q", out)
	}
	if sim.Config() != before {
		t.Fatal("rollback did not restore the configuration")
	}
	c.do("no checkpoint cp1")
	if len(sim.Checkpoints()) != 0 {
		t.Fatal("checkpoint not deleted")
	}
	if out := c.do("rollback running-config checkpoint cp1"); !strings.Contains(out, "ERROR:") {
		t.Fatalf("rollback to a deleted checkpoint: %q", out)
	}
}

func TestEOSSessions(t *testing.T) {
	t.Run("abort discards", func(t *testing.T) {
		sim := startSim(t, Options{Personality: EOS, Ports: 2})
		before := sim.Config()
		c := newConsole(t, sim)
		c.do("enable", "configure session s1", "interface Ethernet1", "mtu 9214")
		if sim.Config() != before {
			t.Fatal("an uncommitted session changed the running config")
		}
		c.do("abort")
		if sim.Config() != before || c.prompt() != "switch#" {
			t.Fatalf("abort: prompt %q", c.prompt())
		}
	})
	t.Run("commit applies", func(t *testing.T) {
		sim := startSim(t, Options{Personality: EOS, Ports: 2})
		c := newConsole(t, sim)
		c.do("enable", "configure session s1", "interface Ethernet1", "mtu 9214", "exit", "commit")
		if !strings.Contains(sim.Config(), "interface Ethernet1\n   description gpu02 ens1f0np0\n   mtu 9214\n") {
			t.Fatalf("not committed:\n%s", sim.Config())
		}
	})
	t.Run("commit timer rolls back unless confirmed", func(t *testing.T) {
		sim := startSim(t, Options{Personality: EOS, Ports: 2, Second: 10 * time.Millisecond})
		before := sim.Config()
		c := newConsole(t, sim)
		c.do("enable", "configure session s1", "interface Ethernet1", "mtu 9214", "exit", "commit timer 00:00:05")
		if sim.Config() == before || !sim.PendingCommit() {
			t.Fatal("commit timer did not apply the change")
		}
		deadline := time.Now().Add(5 * time.Second)
		for sim.Config() != before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if sim.Config() != before || sim.PendingCommit() {
			t.Fatal("the commit timer did not roll back")
		}
		if out := c.do("configure session s1 commit"); !strings.Contains(out, "% Cannot commit") {
			t.Fatalf("late confirm: %q", out)
		}
	})
	t.Run("confirm stops the timer", func(t *testing.T) {
		sim := startSim(t, Options{Personality: EOS, Ports: 2, Second: 10 * time.Millisecond})
		c := newConsole(t, sim)
		c.do("enable", "configure session s1", "interface Ethernet1", "mtu 9214", "exit", "commit timer 00:00:05")
		if out := c.do("configure session s1 commit"); out != "" {
			t.Fatal(out)
		}
		time.Sleep(100 * time.Millisecond)
		if !strings.Contains(sim.Config(), "mtu 9214") || sim.PendingCommit() {
			t.Fatal("the confirmed change was rolled back")
		}
	})
}

func TestHandChange(t *testing.T) {
	cases := []struct {
		personality Personality
		lines       []string
		want        string
	}{
		{NXOS, []string{"interface Ethernet1/1", "mtu 1500"}, "  mtu 1500\n"},
		{EOS, []string{"interface Ethernet1", "mtu 1500"}, "   mtu 1500\n"},
		{Junos, []string{"set interfaces et-0/0/1 mtu 1500"}, "set interfaces et-0/0/1 mtu 1500\n"},
		{Cumulus, []string{"nv set interface swp1 link mtu 1500"}, `"mtu": 1500`},
		{SONiC, []string{"SET /PORT/Ethernet0/mtu 1500"}, `"mtu": "1500"`},
	}
	for _, tc := range cases {
		t.Run(string(tc.personality), func(t *testing.T) {
			sim := startSim(t, Options{Personality: tc.personality, Ports: 2})
			if err := sim.HandChange(tc.lines...); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sim.Config(), tc.want) {
				t.Fatalf("hand change missing %q:\n%s", tc.want, sim.Config())
			}
			if err := sim.HandChange("no-such-command x"); err == nil {
				t.Fatal("an invalid hand change was accepted")
			}
		})
	}
}

func TestCountersMove(t *testing.T) {
	cases := []struct {
		personality Personality
		setup       []string
		show        string
		port        string
	}{
		{NXOS, []string{"interface Ethernet1/1", "priority-flow-control mode on"}, "show interface priority-flow-control", "Ethernet1/1"},
		{EOS, []string{"interface Ethernet1", "priority-flow-control on"}, "show priority-flow-control counters", "Et1 "},
		{SONiC, []string{"SET /PORT_QOS_MAP/Ethernet0/pfc_enable 3"}, "show pfc counters", "Ethernet0"},
	}
	for _, tc := range cases {
		t.Run(string(tc.personality), func(t *testing.T) {
			sim := startSim(t, Options{Personality: tc.personality, Ports: 2})
			if err := sim.HandChange(tc.setup...); err != nil {
				t.Fatal(err)
			}
			c := newConsole(t, sim)
			c.do("enable")
			first := portLine(c.do(tc.show), tc.port)
			sim.AddCounters(strings.TrimSpace(strings.Replace(tc.port, "Et1", "Ethernet1", 1)), Counters{PFCRx: 1000})
			second := portLine(c.do(tc.show), tc.port)
			if first == "" || first == second {
				t.Fatalf("counters did not move:\n%s\n%s", first, second)
			}
		})
	}
}

func portLine(out, port string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), strings.TrimSpace(port)) {
			return l
		}
	}
	return ""
}

func TestPersonalityFor(t *testing.T) {
	for platform, want := range map[string]Personality{"nxos": NXOS, "eos": EOS, "junos": Junos, "sonic": SONiC, "cumulus": Cumulus} {
		if got, ok := PersonalityFor(platform); !ok || got != want {
			t.Errorf("%s: %q %v", platform, got, ok)
		}
	}
	if _, ok := PersonalityFor("openconfig"); ok {
		t.Error("openconfig has no SSH CLI personality")
	}
}
