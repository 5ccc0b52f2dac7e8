package all

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/drivers/ssh"
	"github.com/rocefab/rocefab/intent"
)

// membershipPlatform is one platform of TestVLANMembershipRoundTrip: a RoCE
// trunk port that carries VLANs 10 and 200 (withVLANs) and one that allows
// every VLAN (allVLANs: no allowed list, or a Cumulus port inheriting the
// bridge's VLANs), as an operator set them up by hand.
type membershipPlatform struct {
	switchName  string
	personality sshsim.Personality
	withVLANs   string
	allVLANs    string
	setup       []string
	// vlans is what the device shows for a port: "10,100,200", "all", "none".
	vlans func(t *testing.T, config, port string) string
	// add and remove are the commands that change the port's membership.
	add, remove func(port string, vlan int) string
	// resets matches a command that sets, clears or resets a whole list.
	resets *regexp.Regexp
}

var membershipPlatforms = []membershipPlatform{
	{
		switchName: "leaf-nxos", personality: sshsim.NXOS, withVLANs: "Ethernet1/7", allVLANs: "Ethernet1/8",
		setup: []string{"interface Ethernet1/7", "switchport", "switchport mode trunk", "switchport trunk allowed vlan 10,200", "exit",
			"interface Ethernet1/8", "switchport", "switchport mode trunk"},
		vlans:  cliAllowedVLANs,
		add:    func(_ string, v int) string { return "switchport trunk allowed vlan add " + strconv.Itoa(v) },
		remove: func(_ string, v int) string { return "switchport trunk allowed vlan remove " + strconv.Itoa(v) },
		resets: regexp.MustCompile(`^(no )?switchport trunk allowed vlan($| (none|all|except|[0-9]))`),
	},
	{
		switchName: "leaf-eos", personality: sshsim.EOS, withVLANs: "Ethernet7", allVLANs: "Ethernet8",
		setup: []string{"interface Ethernet7", "switchport mode trunk", "switchport trunk allowed vlan 10,200", "exit",
			"interface Ethernet8", "switchport mode trunk"},
		vlans:  cliAllowedVLANs,
		add:    func(_ string, v int) string { return "switchport trunk allowed vlan add " + strconv.Itoa(v) },
		remove: func(_ string, v int) string { return "switchport trunk allowed vlan remove " + strconv.Itoa(v) },
		resets: regexp.MustCompile(`^(no )?switchport trunk allowed vlan($| (none|all|except|[0-9]))`),
	},
	{
		switchName: "leaf-cumulus", personality: sshsim.Cumulus, withVLANs: "swp7", allVLANs: "swp8",
		setup: []string{"nv set interface swp7 bridge domain br_default vlan 10,200", "nv set interface swp8 bridge domain br_default"},
		vlans: nvuePortVLANs,
		add: func(p string, v int) string {
			return "nv set interface " + p + " bridge domain br_default vlan " + strconv.Itoa(v)
		},
		remove: func(p string, v int) string {
			return "nv unset interface " + p + " bridge domain br_default vlan " + strconv.Itoa(v)
		},
		resets: regexp.MustCompile(`^nv (un)?set interface \S+ bridge domain br_default( vlan)?$`),
	},
}

// TestVLANMembershipRoundTrip pushes plans to simulated NX-OS, EOS and
// Cumulus switches whose RoCE trunks carry other VLANs, and reads them
// back: rocefab adds the lossless VLAN with one command, leaves VLANs 10
// and 200 and a port that allows every VLAN alone, removes its membership
// with one command when a port stops being a RoCE trunk, and never sends a
// command that sets or clears a whole list.
func TestVLANMembershipRoundTrip(t *testing.T) {
	for _, mp := range membershipPlatforms {
		t.Run(mp.switchName, func(t *testing.T) {
			reg := Renderers()
			base := scenarioSwitch(t, "basic", mp.switchName)
			e, err := reg.Lookup(base.Platform)
			if err != nil {
				t.Fatal(err)
			}
			start := func(t *testing.T) *membershipDevice {
				d := startMembershipDevice(t, mp, e.Attrs.Platform)
				if err := d.sim.HandChange(mp.setup...); err != nil {
					t.Fatal(err)
				}
				d.check(t, "before", map[string]string{mp.withVLANs: "10,200", mp.allVLANs: "all"})
				return d
			}
			render := func(t *testing.T, edit func(*intent.Switch)) *devcfg.Config {
				sw := *base
				sw.Ports = slices.Clone(base.Ports)
				if edit != nil {
					edit(&sw)
				}
				return mustRender(t, reg, &sw)
			}
			basic := render(t, nil)

			t.Run("add the lossless VLAN", func(t *testing.T) {
				t.Parallel()
				d := start(t)
				sent := d.apply(t, basic, basic.Owned)
				d.expect(t, sent, mp.withVLANs, mp.add(mp.withVLANs, 100))
				d.expect(t, sent, mp.allVLANs)
				d.check(t, "after", map[string]string{mp.withVLANs: "10,100,200", mp.allVLANs: "all"})
			})
			t.Run("port stops being a RoCE trunk", func(t *testing.T) {
				t.Parallel()
				d := start(t)
				d.apply(t, basic, basic.Owned)
				access := render(t, func(sw *intent.Switch) {
					for i := range sw.Ports {
						if sw.Ports[i].Name == mp.withVLANs || sw.Ports[i].Name == mp.allVLANs {
							sw.Ports[i].Mode = "access"
						}
					}
				})
				sent := d.apply(t, access, access.Owned)
				d.expect(t, sent, mp.withVLANs, mp.remove(mp.withVLANs, 100))
				d.expect(t, sent, mp.allVLANs) // `add` changed nothing there: nothing to take back
				d.check(t, "after", map[string]string{mp.withVLANs: "10,200", mp.allVLANs: "all"})
			})
			t.Run("lossless VLAN changes", func(t *testing.T) {
				t.Parallel()
				d := start(t)
				d.apply(t, basic, basic.Owned)
				moved := render(t, func(sw *intent.Switch) { sw.Policy.VLAN = 101 })
				// Scoped from the new intent alone, VLAN 100 could be another
				// team's: it stays.
				sent := d.apply(t, moved, moved.Owned)
				d.expect(t, sent, mp.withVLANs, mp.add(mp.withVLANs, 101))
				d.expect(t, sent, mp.allVLANs)
				d.check(t, "after", map[string]string{mp.withVLANs: "10,100-101,200", mp.allVLANs: "all"})
				// Still owning VLAN 100 (the scope it applied last), rocefab
				// moves the membership, and leaves the port with every VLAN.
				back := render(t, func(sw *intent.Switch) { sw.Policy.VLAN = 102 })
				scope := back.Owned.Clone()
				scope.Merge(moved.Owned)
				sent = d.apply(t, back, scope)
				d.expect(t, sent, mp.withVLANs, mp.add(mp.withVLANs, 102), mp.remove(mp.withVLANs, 101))
				d.expect(t, sent, mp.allVLANs)
				d.check(t, "after", map[string]string{mp.withVLANs: "10,100,102,200", mp.allVLANs: "all"})
			})
		})
	}
}

func scenarioSwitch(t *testing.T, scenario, name string) *intent.Switch {
	t.Helper()
	for _, sw := range loadScenario(t, scenario).Switches {
		if sw.Name == name {
			return sw
		}
	}
	t.Fatalf("scenario %s has no switch %s", scenario, name)
	return nil
}

type membershipDevice struct {
	mp       membershipPlatform
	sim      *sshsim.Sim
	kh       string
	platform devcfg.Platform
}

func startMembershipDevice(t *testing.T, mp membershipPlatform, pf devcfg.Platform) *membershipDevice {
	t.Helper()
	sim, err := sshsim.Start(sshsim.Options{Personality: mp.personality, Hostname: mp.switchName, Username: "rocefab", Password: "s3cret-pw"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(sim.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &membershipDevice{mp: mp, sim: sim, kh: kh, platform: pf}
}

// apply plans desired against the device within scope, pushes the patch
// (never one that resets a list), reads back and returns the commands sent
// per port: the diff after the push is empty.
func (d *membershipDevice) apply(t *testing.T, desired *devcfg.Config, scope devcfg.Scope) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	drv, err := ssh.New(ctx, drivers.Options{
		Device: d.mp.switchName, Address: d.sim.Addr(), Platform: d.platform, Scope: scope,
		Creds: drivers.Credentials{Username: "rocefab", Password: "s3cret-pw"},
		SSH:   drivers.SSHOptions{KnownHostsFile: d.kh}, Timeout: 5 * time.Second, Retries: 2, Backoff: 20 * time.Millisecond,
	}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	desired = desired.Clone()
	desired.Owned = scope
	syn := d.platform.Syntax
	before, err := drv.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	patch := devcfg.BuildPatch(devcfg.Diff(desired, before.Owned, syn, nil), syn)
	sent := map[string][]string{}
	port := ""
	for _, l := range patch.Lines {
		if d.mp.resets.MatchString(l) {
			t.Fatalf("the patch sets, clears or resets a whole list: %q", l)
		}
		switch {
		case strings.HasPrefix(l, "interface "):
			port = strings.TrimPrefix(l, "interface ")
		case l == syn.Exit:
			port = ""
		case strings.HasPrefix(l, "nv "):
			if f := strings.Fields(l); len(f) > 3 && f[2] == "interface" {
				sent[f[3]] = append(sent[f[3]], l)
			}
		case port != "":
			sent[port] = append(sent[port], l)
		}
	}
	if _, err := drv.Push(ctx, patch, drivers.PushOptions{}); err != nil {
		t.Fatalf("push: %v", err)
	}
	after, err := drv.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again := devcfg.Diff(desired, after.Owned, syn, nil); len(again) != 0 {
		t.Fatalf("after the push the device still differs: %+v", again)
	}
	return sent
}

// expect: the VLAN commands sent to port are exactly want.
func (d *membershipDevice) expect(t *testing.T, sent map[string][]string, port string, want ...string) {
	t.Helper()
	var got []string
	for _, l := range sent[port] {
		if strings.Contains(l, " vlan ") && !strings.Contains(l, "access vlan") && !strings.Contains(l, " access ") {
			got = append(got, l)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: VLAN commands %q, want %q", port, got, want)
	}
}

// check: each port shows the VLANs wanted.
func (d *membershipDevice) check(t *testing.T, when string, want map[string]string) {
	t.Helper()
	cfg := d.sim.Config()
	for port, w := range want {
		if got := d.mp.vlans(t, cfg, port); got != w {
			t.Errorf("%s: %s carries VLANs %q, want %q", when, port, got, w)
		}
	}
}

// cliAllowedVLANs reads a port's allowed list as NX-OS and EOS print it:
// one line, continued on "add" lines; none printed means every VLAN.
func cliAllowedVLANs(t *testing.T, config, port string) string {
	t.Helper()
	var ids []int
	seen, in := false, false
	for _, l := range strings.Split(config, "\n") {
		if strings.HasPrefix(l, "interface ") {
			in = l == "interface "+port
			continue
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "switchport trunk allowed vlan ")
		if !in || !ok {
			continue
		}
		seen = true
		if rest == "none" {
			continue
		}
		list, err := devcfg.ParseIDList(strings.TrimPrefix(rest, "add "), 1, 4094)
		if err != nil {
			t.Fatalf("%s: allowed list %q: %v", port, rest, err)
		}
		ids = append(ids, list...)
	}
	switch {
	case !seen:
		return "all"
	case len(ids) == 0:
		return "none"
	}
	return devcfg.FormatIDList(ids)
}

// nvuePortVLANs reads a port's VLAN set from `nv config show -o json`: its
// own VLANs, or "all" when it is a bridge port that inherits the bridge's.
func nvuePortVLANs(t *testing.T, config, port string) string {
	t.Helper()
	var doc []map[string]any
	if err := json.Unmarshal([]byte(config), &doc); err != nil {
		t.Fatalf("config is not JSON: %v", err)
	}
	for _, item := range doc {
		m, _ := item["set"].(map[string]any)
		for _, k := range []string{"interface", port, "bridge", "domain", "br_default"} {
			m, _ = m[k].(map[string]any)
		}
		if m == nil {
			continue
		}
		own, _ := m["vlan"].(map[string]any)
		if len(own) == 0 {
			return "all"
		}
		var ids []int
		for k := range own {
			id, err := strconv.Atoi(k)
			if err != nil {
				t.Fatalf("%s: VLAN key %q", port, k)
			}
			ids = append(ids, id)
		}
		return devcfg.FormatIDList(ids)
	}
	return "none"
}
