package sshsim

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestJunos(t *testing.T) {
	t.Run("prompts and candidate", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Junos, Hostname: "qfx1", Ports: 2})
		before := sim.Config()
		c := newConsole(t, sim)
		if c.prompt() != "admin@qfx1> " {
			t.Fatalf("exec prompt %q", c.prompt())
		}
		if out := c.do("configure private"); !strings.Contains(out, "Entering configuration mode") || c.prompt() != "\n[edit]\nadmin@qfx1# " {
			t.Fatalf("configure private: %q prompt %q", out, c.prompt())
		}
		c.do("set interfaces et-0/0/1 mtu 1500", "set interfaces et-0/0/1 mtu 9216")
		if sim.Config() != before {
			t.Fatal("an uncommitted candidate changed the active configuration")
		}
		if out := c.do("show | display set"); strings.Contains(out, "mtu 1500") || !strings.Contains(out, "set interfaces et-0/0/1 mtu 9216") {
			t.Fatalf("single-valued leaf not replaced:\n%s", out)
		}
		if out := c.do("commit confirmed 5"); !strings.Contains(out, "not supported in private mode") {
			t.Fatalf("commit confirmed in private mode: %q", out)
		}
		c.do("commit check")
		if out := c.do("commit"); !strings.HasSuffix(out, "commit complete") {
			t.Fatalf("commit: %q", out)
		}
		if !strings.Contains(sim.Config(), "set interfaces et-0/0/1 mtu 9216\n") {
			t.Fatal("commit did not apply")
		}
		c.do("delete interfaces et-0/0/1 mtu", "commit", "exit configuration-mode")
		if sim.Config() != before {
			t.Fatalf("delete did not restore:\n%s", sim.Config())
		}
	})
	t.Run("syntax errors", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Junos, Ports: 2})
		c := newConsole(t, sim)
		c.do("configure")
		for _, bad := range []string{"set foo bar", "set class-of-service schedulerz s1", "set interfaces bogus0 mtu 9216", `set system host-name "unterminated`} {
			if out := c.do(bad); !strings.Contains(out, "syntax error.") {
				t.Errorf("%q accepted: %q", bad, out)
			}
		}
		if out := c.do("delete vlans nonexistent"); !strings.Contains(out, "warning: statement not found") {
			t.Errorf("delete of a missing statement: %q", out)
		}
	})
	t.Run("commit confirmed rolls back unless confirmed", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Junos, Ports: 2, Second: 2 * time.Millisecond})
		before := sim.Config()
		c := newConsole(t, sim)
		c.do("configure exclusive", "set interfaces et-0/0/1 mtu 9216")
		if out := c.do("commit confirmed 1"); !strings.Contains(out, "rolled back in 1 minutes") {
			t.Fatalf("commit confirmed: %q", out)
		}
		if !sim.PendingCommit() || !strings.Contains(c.do("run show system commit"), "commit confirmed, rollback in") {
			t.Fatal("no pending confirmation shown")
		}
		deadline := time.Now().Add(5 * time.Second)
		for sim.PendingCommit() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if sim.Config() != before {
			t.Fatalf("not rolled back:\n%s", sim.Config())
		}
		if strings.Contains(c.do("run show system commit"), "rollback in") {
			t.Fatal("show system commit still reports a pending rollback")
		}
	})
	// Juniper (QFX CoS forwarding classes): classes that share an output
	// queue share its packet drop attribute, and the default lossless fcoe
	// class holds queue 3, so a lossy class on queue 3 fails the commit.
	t.Run("one drop attribute per queue", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Junos, Ports: 2})
		before := sim.Config()
		c := newConsole(t, sim)
		c.do("configure", "set class-of-service forwarding-classes class RDMA queue-num 3")
		for _, cmd := range []string{"commit check", "commit"} {
			if out := c.do(cmd); !strings.Contains(out, "RDMA and fcoe share queue 3") || !strings.Contains(out, "check-out failed") {
				t.Fatalf("%s of a lossy class on queue 3: %q", cmd, out)
			}
		}
		if sim.Config() != before {
			t.Fatal("a refused commit changed the configuration")
		}
		c.do("set class-of-service forwarding-classes class RDMA queue-num 3 no-loss")
		if out := c.do("commit"); !strings.HasSuffix(out, "commit complete") {
			t.Fatalf("a lossless class beside fcoe: %q", out)
		}
	})
	t.Run("exclusive lock", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Junos, Ports: 2})
		a, b := newConsole(t, sim), newConsole(t, sim)
		a.do("configure exclusive")
		if out := b.do("configure exclusive"); !strings.Contains(out, "locked") {
			t.Fatalf("second exclusive session: %q", out)
		}
	})
}

func TestSONiC(t *testing.T) {
	write := func(c *console, file string, patch any) {
		body, _ := json.Marshal(patch)
		c.do("echo " + base64.StdEncoding.EncodeToString(body) + " > " + file + ".b64")
		c.do("base64 -d " + file + ".b64 > " + file)
	}
	t.Run("apply-patch, checkpoint and rollback", func(t *testing.T) {
		sim := startSim(t, Options{Personality: SONiC, Hostname: "sonic1", Ports: 2, BufferModel: "traditional"})
		before := sim.Config()
		c := newConsole(t, sim)
		if c.prompt() != "admin@sonic1:~$ " {
			t.Fatalf("prompt %q", c.prompt())
		}
		if out := c.do("config checkpoint x"); !strings.Contains(out, "Root privileges") {
			t.Fatalf("config without sudo: %q", out)
		}
		c.do("sudo config checkpoint cp")
		write(c, "/tmp/p.json", []map[string]any{
			{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"},
			{"op": "add", "path": "/BUFFER_PG", "value": map[string]any{"Ethernet0|3": map[string]any{"profile": "NULL"}}},
			{"op": "add", "path": "/WRED_PROFILE", "value": map[string]any{"ROCEFAB_LOSSLESS": map[string]any{"ecn": "ecn_all"}}},
		})
		if out := c.do("sudo config apply-patch /tmp/p.json"); !strings.HasSuffix(out, "Patch applied successfully.") {
			t.Fatalf("apply-patch: %q", out)
		}
		show := c.do("show runningconfiguration all")
		for _, want := range []string{`"mtu": "9216"`, `"profile": "pg_lossless_100000_5m_profile"`, `"pg_lossless_100000_5m_profile": {`, `"wred_red_enable": "false"`} {
			if !strings.Contains(show, want) {
				t.Errorf("running config lacks %s", want)
			}
		}
		if out := c.do("sudo config rollback cp"); !strings.HasSuffix(out, "Config rolled back successfully.") || sim.Config() != before {
			t.Fatalf("rollback: %q", out)
		}
	})
	t.Run("the dynamic buffer model keeps NULL in config_db", func(t *testing.T) {
		sim := startSim(t, Options{Personality: SONiC, Hostname: "sonic1", Ports: 2})
		c := newConsole(t, sim)
		write(c, "/tmp/p.json", []map[string]any{
			{"op": "add", "path": "/BUFFER_PG/Ethernet0|3", "value": map[string]any{"profile": "NULL"}},
		})
		if out := c.do("sudo config apply-patch /tmp/p.json"); !strings.HasSuffix(out, "Patch applied successfully.") {
			t.Fatalf("apply-patch: %q", out)
		}
		show := c.do("show runningconfiguration all")
		if strings.Contains(show, "pg_lossless_") || !strings.Contains(show, `"Ethernet0|3": {`+"\n"+`            "profile": "NULL"`) {
			t.Errorf("dynamic model: config_db should keep the NULL profile:\n%s", show)
		}
	})
	t.Run("invalid patches change nothing", func(t *testing.T) {
		cases := map[string][]map[string]any{
			"mtu out of range":     {{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9300"}},
			"table without YANG":   {{"op": "add", "path": "/NO_SUCH_TABLE", "value": map[string]any{"k": map[string]any{"f": "v"}}}},
			"missing parent":       {{"op": "add", "path": "/WRED_PROFILE/X/ecn", "value": "ecn_all"}},
			"remove missing":       {{"op": "remove", "path": "/PORT/Ethernet99"}},
			"second op fails only": {{"op": "replace", "path": "/PORT/Ethernet0/mtu", "value": "9216"}, {"op": "replace", "path": "/PORT/Ethernet0/nope", "value": "1"}},
		}
		for name, patch := range cases {
			t.Run(name, func(t *testing.T) {
				sim := startSim(t, Options{Personality: SONiC, Ports: 2})
				before := sim.Config()
				c := newConsole(t, sim)
				write(c, "/tmp/p.json", patch)
				if out := c.do("sudo config apply-patch /tmp/p.json"); !strings.Contains(out, "Error:") {
					t.Fatalf("accepted: %q", out)
				}
				if sim.Config() != before {
					t.Fatal("a failed patch changed config_db")
				}
			})
		}
	})
}

func TestNVUE(t *testing.T) {
	t.Run("stage, apply, unset", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Cumulus, Hostname: "cl1", Ports: 2})
		before := sim.Config()
		c := newConsole(t, sim)
		if c.prompt() != "admin@cl1:mgmt:~$ " {
			t.Fatalf("prompt %q", c.prompt())
		}
		c.do("nv set interface swp1 link mtu 9216", "nv set qos pfc default-global switch-priority 3")
		if sim.Config() != before {
			t.Fatal("staged edits changed the applied configuration")
		}
		if out := c.do("nv config apply -y"); !strings.HasPrefix(out, "applied") {
			t.Fatalf("apply: %q", out)
		}
		show := c.do("nv config show -o json")
		for _, want := range []string{`"header"`, `"mtu": 9216`, `"switch-priority": {`, `"3": {}`, `"xoff-threshold": 10000`, `"type": "swp"`} {
			if !strings.Contains(show, want) {
				t.Errorf("nv config show lacks %s:\n%s", want, show)
			}
		}
		c.do("nv unset interface swp1 link mtu", "nv unset qos pfc", "nv config apply -y")
		if sim.Config() != before {
			t.Fatalf("unset did not restore:\n%s", lineDiffSim(before, sim.Config()))
		}
	})
	t.Run("errors", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Cumulus, Ports: 2})
		c := newConsole(t, sim)
		for _, bad := range []string{"nv set qoss pfc", "nv set interface swp1 linkz mtu 9216", "nv set interface swp1 link mtu 20000", "nv set interface swp1 link mtu 9216 extra words"} {
			if out := c.do(bad); !strings.Contains(out, "Error:") {
				t.Errorf("%q accepted: %q", bad, out)
			}
		}
		if out := c.do("nv config apply --confirm-yes"); !strings.Contains(out, "Error:") {
			t.Errorf("confirming nothing: %q", out)
		}
	})
	// NVIDIA's QoS guide: the bw-percent values of an egress scheduler add
	// up to at most 100; apply refuses more and keeps the configuration.
	t.Run("bw-percent adds up to at most 100", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Cumulus, Ports: 2})
		before := sim.Config()
		c := newConsole(t, sim)
		c.do("nv set qos egress-scheduler default-global traffic-class 0,3 mode dwrr",
			"nv set qos egress-scheduler default-global traffic-class 0 bw-percent 60",
			"nv set qos egress-scheduler default-global traffic-class 3 bw-percent 50")
		if out := c.do("nv config apply -y"); !strings.Contains(out, "Error: Invalid config") || !strings.Contains(out, "add up to 110") {
			t.Fatalf("apply of 110 %%: %q", out)
		}
		if sim.Config() != before {
			t.Fatal("a refused apply changed the configuration")
		}
		c.do("nv set qos egress-scheduler default-global traffic-class 0 bw-percent 50")
		if out := c.do("nv config apply -y"); !strings.HasPrefix(out, "applied") {
			t.Fatalf("apply of 100 %%: %q", out)
		}
	})
	// NVIDIA's port ranges carry the prefix once: swp1-2,32 is swp1, swp2
	// and swp32.
	t.Run("port ranges", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Cumulus, Ports: 32})
		c := newConsole(t, sim)
		c.do("nv set interface swp1-2,32 link mtu 9000", "nv config apply -y")
		show := c.do("nv config show -o json")
		for _, port := range []string{"swp1", "swp2", "swp32"} {
			if !strings.Contains(show, `"`+port+`": {`) {
				t.Errorf("%s not configured:\n%s", port, show)
			}
		}
		if strings.Contains(show, `"32": {`) {
			t.Errorf("a bare 32 became an interface:\n%s", show)
		}
	})
	t.Run("apply --confirm counts bare minutes only", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Cumulus, Ports: 2})
		c := newConsole(t, sim)
		// NVIDIA's NVUE reference: "nv config apply --confirm 60 requires
		// you to confirm within one hour"; it documents no unit suffix.
		for _, bad := range []string{"20s", "1h", "0"} {
			c.do("nv set interface swp1 link mtu 9216")
			if out := c.do("nv config apply --confirm " + bad + " -y"); !strings.Contains(out, "Error:") || sim.PendingCommit() {
				t.Errorf("--confirm %s accepted: %q", bad, out)
			}
		}
		if out := c.do("nv config apply --confirm 60 -y"); !strings.Contains(out, "60 minutes") || !sim.PendingCommit() {
			t.Errorf("--confirm 60: %q", out)
		}
	})
	t.Run("apply --confirm rolls back unless confirmed", func(t *testing.T) {
		sim := startSim(t, Options{Personality: Cumulus, Ports: 2, Second: 100 * time.Microsecond})
		before := sim.Config()
		c := newConsole(t, sim)
		c.do("nv config detach", "nv set interface swp1 link mtu 9216", "nv config apply --confirm 1 -y")
		if sim.Config() == before || !sim.PendingCommit() {
			t.Fatal("apply --confirm did not apply")
		}
		deadline := time.Now().Add(5 * time.Second)
		for sim.PendingCommit() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if sim.Config() != before {
			t.Fatal("not rolled back")
		}
	})
}

func lineDiffSim(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "want " + al[i] + "\ngot  " + bl[i]
		}
	}
	return "lengths differ"
}

// TestNXOSWrapsAtTheTerminalWidth: NX-OS prints lines longer than the
// session's terminal width on several lines (80 columns until `terminal
// width`, at most 511), which is how a narrow terminal breaks a long
// allowed-VLAN or description line in published output.
func TestNXOSWrapsAtTheTerminalWidth(t *testing.T) {
	sim := startSim(t, Options{Personality: NXOS, Ports: 2})
	long := "description " + strings.Repeat("gpu-rack-07-", 8) + "end"
	if err := sim.HandChange("interface Ethernet1/1", long); err != nil {
		t.Fatal(err)
	}
	c := newConsole(t, sim)
	if out := c.do("show running-config"); strings.Contains(out, long) {
		t.Fatal("a line longer than 80 columns was printed whole at the default width")
	}
	if out := c.do("terminal width 10"); !strings.Contains(out, "Invalid") {
		t.Errorf("terminal width 10 accepted: %q", out)
	}
	c.do("terminal width 511")
	if out := c.do("show running-config"); !strings.Contains(out, "  "+long+"\n") {
		t.Fatalf("at width 511 the line is not printed whole:\n%s", out)
	}
}
