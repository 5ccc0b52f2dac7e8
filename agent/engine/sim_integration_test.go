package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/devcfg"
)

// TestSimPlanApplyIdempotent: on a fresh device of every simulated
// platform the plan holds the full change (applying exactly it makes the
// owned running config equal the rendered one), and afterwards plan and
// drift show nothing.
func TestSimPlanApplyIdempotent(t *testing.T) {
	for _, kind := range enginetest.AllKinds {
		t.Run(kind.String(), func(t *testing.T) {
			h := newSimHarness(t, []enginetest.Spec{{Name: "leaf1", Kind: kind}})
			res := h.intent("fabric.yaml", enginetest.Params{})
			sw := h.fleet.Switch("leaf1")
			fresh := sw.Config()

			p := h.plan(res)
			dp := devicePlan(t, p, "leaf1")
			if dp.Status != compliance.StatusChanges || len(dp.Changes) == 0 || dp.Patch.Empty() {
				t.Fatalf("fresh device: status %s, %d changes, error %q", dp.Status, len(dp.Changes), dp.Error)
			}
			// A fresh device has nothing of rocefab's to remove; a platform
			// may take over stock entries its own replace (SONiC's lossless
			// PGs), and then its plan notes say how many.
			if n := p.Summary.Remove; n != 0 && !slices.ContainsFunc(dp.Notes, func(note string) bool { return strings.Contains(note, fmt.Sprintf("removes %d ", n)) }) {
				t.Fatalf("a fresh device has nothing of rocefab's to remove (notes %q):%s", dp.Notes, changeList(dp.Changes))
			}
			if sw.Config() != fresh {
				t.Fatal("plan changed the device")
			}

			rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true})
			if d := rep.Devices[0]; d.Outcome != engine.OutcomeApplied || d.Changes != len(dp.Changes) {
				t.Fatalf("apply: %s (%d changes): %s", d.Outcome, d.Changes, d.Reason)
			}
			if sw.Config() == fresh {
				t.Fatal("apply reported success but the device did not change")
			}
			running, desired, entry := h.owned(res, "leaf1")
			want := desired.Filter(desired.Owned)
			if norm := entry.Attrs.Platform.Normalise; norm != nil {
				want = norm(want)
			}
			if got := running.Owned.Text(); got != want.Text() {
				t.Fatalf("owned running config differs from the intent after applying the plan:\n%s", lineDiff(want.Text(), got))
			}

			again := devicePlan(t, h.plan(res), "leaf1")
			if again.Status != compliance.StatusNoChanges || len(again.Changes) != 0 {
				t.Fatalf("second plan: %s%s", again.Status, changeList(again.Changes))
			}
			d := devicePlan(t, h.drift(res), "leaf1")
			if d.Status != compliance.StatusCompliant || d.Fingerprint != running.Fingerprint {
				t.Fatalf("drift after apply: %s%s", d.Status, changeList(d.Changes))
			}
		})
	}
}

// TestSimNoFalseDriftFromDeviceDefaults: devices show what they generate
// or default (EOS hides ` weight 0`, SONiC fills WRED defaults, NX-OS
// prints headers with the time and `no shutdown`); none of it is drift.
// SONiC on the dynamic buffer model keeps its NULL PG profiles in
// CONFIG_DB over either transport.
func TestSimNoFalseDriftFromDeviceDefaults(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{
		{Name: "eos", Kind: enginetest.EOS},
		{Name: "nxos", Kind: enginetest.NXOS},
		{Name: "sonic-gnmi", Kind: enginetest.SONiC},
		{Name: "sonic-ssh", Kind: enginetest.SONiCSSH},
	})
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	eosPlan := devicePlan(t, p, "eos")
	if !strings.Contains(strings.Join(eosPlan.Patch.Lines, "\n"), " weight 0") {
		t.Fatal("the EOS patch no longer sends ` weight 0`: the hidden default is untested")
	}
	h.converge(res)

	// Evidence that each device shows something other than what was sent,
	// so a clean drift below means normalisation worked.
	evidence := map[string][]string{
		"eos":       {"random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100\n"},
		"nxos":      {"!Time: ", "!Running configuration last done at: ", "  priority-flow-control mode on\n  no shutdown\n"},
		"sonic-ssh": {`"wred_yellow_enable": "false"`},
	}
	for name, wants := range evidence {
		sw := h.fleet.Switch(name)
		shown := sw.Config()
		if sw.SSH != nil {
			shown = sw.SSH.ShowRunning()
		}
		for _, w := range wants {
			if !strings.Contains(shown, w) {
				t.Errorf("%s: the device no longer shows %q; the no-false-drift check proves less:\n%s", name, w, shown)
			}
		}
	}
	if strings.Contains(h.fleet.Switch("eos").SSH.ShowRunning(), " weight 0") {
		t.Error("EOS shows ` weight 0`; a real EOS hides it")
	}

	first := h.drift(res)
	second := h.drift(res)
	for _, d := range first.Devices {
		if d.Status != compliance.StatusCompliant {
			t.Errorf("%s: false drift: %s %s%s", d.Device, d.Status, d.Error, changeList(d.Changes))
		}
		if again := devicePlan(t, second, d.Device); again.Fingerprint != d.Fingerprint {
			t.Errorf("%s: fingerprint moved between two reads of an unchanged device", d.Device)
		}
	}
}

// handChange is an operator's edit to an owned setting and the single
// change drift must report for it, plus edits to configuration rocefab
// does not own, which drift must not report.
type handChange struct {
	owned    func(*enginetest.Switch) error
	where    string
	old, new string
	foreign  func(*enginetest.Switch) error
}

func sshLines(lines ...string) func(*enginetest.Switch) error {
	return func(sw *enginetest.Switch) error { return sw.SSH.HandChange(lines...) }
}

func gnmiSets(kv ...string) func(*enginetest.Switch) error {
	return func(sw *enginetest.Switch) error {
		for i := 0; i < len(kv); i += 2 {
			v := devcfg.Value(kv[i+1])
			if err := sw.GNMI.HandChange(kv[i], v); err != nil {
				return err
			}
		}
		return nil
	}
}

var handChanges = map[enginetest.Kind]handChange{
	enginetest.NXOS: {
		owned: sshLines("interface Ethernet1/1", "mtu 9000"),
		where: "interface Ethernet1/1 > mtu ", old: "mtu 9000", new: "mtu 9216",
		foreign: sshLines("interface Ethernet1/1", "description moved to rack 12", "exit", "interface Ethernet1/40", "mtu 9000"),
	},
	enginetest.EOS: {
		owned: sshLines("interface Ethernet1", "mtu 9000"),
		where: "interface Ethernet1 > mtu ", old: "mtu 9000", new: "mtu 9214",
		foreign: sshLines("interface Ethernet1", "description moved to rack 12", "exit", "interface Ethernet40", "mtu 9000"),
	},
	enginetest.Junos: {
		owned: sshLines("set interfaces et-0/0/0 mtu 9000"),
		where: "interfaces et-0/0/0 mtu", old: "9000", new: "9216",
		foreign: sshLines("set interfaces et-0/0/0 description moved-to-rack-12", "set interfaces et-0/0/40 mtu 9000"),
	},
	enginetest.Cumulus: {
		owned: sshLines("nv set interface swp1 link mtu 9000"),
		where: "interface swp1 link mtu", old: "9000", new: "9216",
		foreign: sshLines("nv set interface swp40 link mtu 9000"),
	},
	enginetest.SONiCSSH: {
		owned: sshLines("SET /PORT/Ethernet0/mtu 9000"),
		where: "sonic-db:/PORT/Ethernet0/mtu", old: "9000", new: "9216",
		foreign: sshLines("SET /PORT/Ethernet0/description moved-to-rack-12", "SET /PORT/Ethernet160/mtu 9000"),
	},
	enginetest.SONiC: {
		owned: gnmiSets("sonic-db:/PORT/Ethernet0/mtu", `"9000"`),
		where: "sonic-db:/PORT/Ethernet0/mtu", old: "9000", new: "9216",
		foreign: gnmiSets("sonic-db:/PORT/Ethernet0/description", `"moved to rack 12"`, "sonic-db:/PORT/Ethernet12/mtu", `"9000"`),
	},
	enginetest.OpenConfig: {
		owned: gnmiSets("/interfaces/interface[name=Ethernet1]/config/mtu", "9000"),
		where: "/interfaces/interface[name=Ethernet1]/config/mtu", old: "9000", new: "9216",
		foreign: gnmiSets("/interfaces/interface[name=Ethernet1]/config/description", `"moved to rack 12"`, "/interfaces/interface[name=Ethernet4]/config/mtu", "9000"),
	},
}

// TestSimDriftShowsExactlyTheHandChange: after a converged apply, an
// operator edits one owned setting on each platform: drift reports exactly
// that change (path or line, old and new value). Edits outside rocefab's
// scope on other devices report nothing.
func TestSimDriftShowsExactlyTheHandChange(t *testing.T) {
	var specs []enginetest.Spec
	for _, k := range enginetest.AllKinds {
		specs = append(specs,
			enginetest.Spec{Name: "owned-" + k.Platform + "-" + k.Transport, Kind: k},
			enginetest.Spec{Name: "foreign-" + k.Platform + "-" + k.Transport, Kind: k})
	}
	h := newSimHarness(t, specs)
	res := h.intent("fabric.yaml", enginetest.Params{})
	h.converge(res)
	for _, k := range enginetest.AllKinds {
		hc := handChanges[k]
		for _, edit := range []struct {
			name string
			fn   func(*enginetest.Switch) error
		}{{"owned-", hc.owned}, {"foreign-", hc.foreign}} {
			sw := h.fleet.Switch(edit.name + k.Platform + "-" + k.Transport)
			before := sw.Config()
			if err := edit.fn(sw); err != nil {
				t.Fatalf("%s: hand change: %v", sw.Name, err)
			}
			if sw.Config() == before {
				t.Fatalf("%s: the hand change did not change the device; the test would prove nothing", sw.Name)
			}
		}
	}

	d := h.drift(res)
	if got := d.Summary.ByStatus[compliance.StatusDrifted]; got != len(enginetest.AllKinds) {
		t.Errorf("%d drifted devices, want %d: %+v", got, len(enginetest.AllKinds), d.Summary.ByStatus)
	}
	for _, k := range enginetest.AllKinds {
		t.Run(k.String(), func(t *testing.T) {
			hc := handChanges[k]
			owned := devicePlan(t, d, "owned-"+k.Platform+"-"+k.Transport)
			if owned.Status != compliance.StatusDrifted || len(owned.Changes) != 1 {
				t.Fatalf("want exactly one drifted change, got %s %s%s", owned.Status, owned.Error, changeList(owned.Changes))
			}
			c := owned.Changes[0]
			if c.Action != devcfg.Modify || c.Where() != hc.where || devcfg.Value(c.Old).Text() != hc.old || devcfg.Value(c.New).Text() != hc.new {
				t.Fatalf("change %s %q old %q new %q; want ~ %q old %q new %q", c.Action.Symbol(), c.Where(), c.Old, c.New, hc.where, hc.old, hc.new)
			}
			foreign := devicePlan(t, d, "foreign-"+k.Platform+"-"+k.Transport)
			if foreign.Status != compliance.StatusCompliant || len(foreign.Changes) != 0 {
				t.Fatalf("a change outside rocefab's scope shows as drift: %s%s", foreign.Status, changeList(foreign.Changes))
			}
		})
	}
}
