package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/validators/cabling"
)

// TestCablingFromSimulatedSwitches: rocefab cabling reads each simulated
// switch's LLDP neighbours through its driver, as plan opens it (NX-OS,
// EOS and NVUE over SSH, SONiC's APPL_DB and OpenConfig's /lldp over
// gNMI, Junos over SSH), and finds the EOS leaf's two host cables swapped
// while every other switch's are verified; SONiC over SSH, which it does
// not ask, is noted.
func TestCablingFromSimulatedSwitches(t *testing.T) {
	f := enginetest.Start(t, []enginetest.Spec{
		{Name: "leaf-nxos", Kind: enginetest.NXOS},
		{Name: "leaf-eos", Kind: enginetest.EOS},
		{Name: "leaf-nvue", Kind: enginetest.Cumulus},
		{Name: "leaf-sonic", Kind: enginetest.SONiC},
		{Name: "leaf-oc", Kind: enginetest.OpenConfig},
		{Name: "leaf-junos", Kind: enginetest.Junos},
		{Name: "leaf-sonicssh", Kind: enginetest.SONiCSSH},
	})
	path := lldpSimFabric(t, f, "leaf-eos")
	code, out, stderr := runCLI(t, "", "cabling", path, "--state-dir", t.TempDir(), "--timeout", "10s", "-o", "json")
	var rep cabling.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
	}
	if code != ExitFailure {
		t.Errorf("exit %d, want %d for the miscabled EOS links", code, ExitFailure)
	}
	got := map[string]cabling.Status{}
	for _, fd := range rep.Findings {
		sw := fd.Link[strings.Index(fd.Link, "– ")+len("– "):]
		sw, _, _ = strings.Cut(sw, ":")
		if prev, ok := got[sw]; ok && prev != fd.Status {
			t.Errorf("%s's links differ: %s and %s", sw, prev, fd.Status)
		}
		got[sw] = fd.Status
	}
	want := map[string]cabling.Status{"leaf-nxos": cabling.Verified, "leaf-eos": cabling.Miscabled, "leaf-nvue": cabling.Verified,
		"leaf-sonic": cabling.Verified, "leaf-oc": cabling.Verified, "leaf-junos": cabling.Verified, "leaf-sonicssh": cabling.Unread}
	for sw, st := range want {
		if got[sw] != st {
			t.Errorf("%s's links are %s, want %s\n%s", sw, got[sw], st, out)
		}
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "leaf-sonicssh not read: rocefab reads no LLDP over ssh from sonic; give its LLDP output with --lldp leaf-sonicssh=FILE") {
		t.Errorf("notes do not say leaf-sonicssh was not read:\n%s", notes)
	}
}

// lldpSimFabric cables two hosts to each simulated switch, makes each
// switch's LLDP answer say who is on its ports (the swapped switches'
// two host cables crossed) and writes the intent, returning its path.
func lldpSimFabric(t *testing.T, f *enginetest.Fleet, swapped ...string) string {
	t.Helper()
	var hosts, links strings.Builder
	n := 0
	for _, sw := range f.Switches {
		ports := enginetest.Ports(sw.Platform, 2)
		host := func(i int) string { return fmt.Sprintf("h-%s-%d", strings.TrimPrefix(sw.Name, "leaf-"), i) }
		for i, p := range ports {
			n++
			fmt.Fprintf(&hosts, "    - {name: %s, address: 192.0.2.%d, nics: [{netdev: ens1f0, address: 198.51.100.%d}]}\n", host(i), n, n)
			fmt.Fprintf(&links, "    - {a: %s:ens1f0, b: %s:%s}\n", host(i), sw.Name, p)
		}
		// What each port hears; the EOS leaf's cables are swapped.
		heard := []string{host(0), host(1)}
		if slices.Contains(swapped, sw.Name) {
			heard = []string{host(1), host(0)}
		}
		switch {
		case sw.SSH != nil && sw.Platform == "sonic":
			// SONiC over SSH has no JSON LLDP command rocefab asks.
		case sw.SSH != nil:
			sw.SSH.SetLLDP([]sshsim.LLDPNeighbor{
				{LocalPort: ports[0], SysName: heard[0], PortID: "02:00:00:00:00:01", PortDescr: "ens1f0"},
				{LocalPort: ports[1], SysName: heard[1], PortID: "02:00:00:00:00:02", PortDescr: "ens1f0"},
			})
		case sw.Platform == "sonic":
			e := map[string]map[string]string{}
			for i, p := range ports {
				e[p] = map[string]string{"lldp_rem_sys_name": heard[i], "lldp_rem_port_id": "02:00:00:00:00:01", "lldp_rem_port_desc": "ens1f0"}
			}
			sw.GNMI.SetAPPLDB("LLDP_ENTRY_TABLE", e)
		default:
			leaves := devcfg.Paths{}
			for i, p := range ports {
				base := "/lldp/interfaces/interface[name=" + p + "]/neighbors/neighbor[id=" + heard[i] + "]/state/"
				leaves[base+"system-name"] = devcfg.String(heard[i])
				leaves[base+"port-description"] = devcfg.String("ens1f0")
			}
			if err := sw.GNMI.Load(leaves); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "fabric.yaml")
	doc := string(f.Intent(enginetest.Params{})) + "  hosts:\n" + hosts.String() + "  links:\n" + links.String()
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
