package fleet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/netlink/dcbnl"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/cabling"
)

const smallFabric = `apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: small}
spec:
  lossless: {profile: dcqcn, roceDscp: [26]}
  switches:
    - {name: leaf1, platform: linux, transport: netlink, netns: rfnone-leaf1, ports: [{names: swp1-2, mode: routed}]}
  hosts:
    - {name: h1, netns: rfnone-h1, nics: [{netdev: eth0, address: 192.0.2.2}]}
    - {name: h2, netns: rfnone-h2, nics: [{netdev: eth0, address: 192.0.2.6}]}
  links:
    - {a: h1:eth0, b: leaf1:swp1, bAddress: 192.0.2.1}
    - {a: h2:eth0, b: leaf1:swp2, bAddress: 192.0.2.5}
`

func resolved(t *testing.T) *intent.Resolved {
	t.Helper()
	fab, diags := intent.LoadBytes("fabric.yaml", []byte(smallFabric))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return res
}

func TestParseLLDPFiles(t *testing.T) {
	got, err := ParseLLDPFiles([]string{"leaf1=a.json", "h1=b=c.json"})
	if err != nil || got["leaf1"] != "a.json" || got["h1"] != "b=c.json" {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"leaf1", "=a.json", "leaf1="} {
		_, err := ParseLLDPFiles([]string{bad})
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "want DEVICE=FILE") {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
}

func TestLLDPParser(t *testing.T) {
	for _, p := range []string{"host", "linux"} {
		if LLDPParser(p) == nil {
			t.Errorf("no LLDP parser for %s", p)
		}
	}
	if LLDPParser("no-such-platform") != nil {
		t.Error("a parser for an unknown platform")
	}
}

// TestReadCabling: a saved lldpcli file is read; a device in a namespace
// nobody runs is noted, not fatal; a file for a device the intent lacks
// is a usage error.
func TestReadCabling(t *testing.T) {
	res := resolved(t)
	dir := t.TempDir()
	leaf1 := filepath.Join(dir, "leaf1.json")
	data := `{"lldp": {"interface": [
{"swp1": {"via": "LLDP", "chassis": {"h1": {}}, "port": {"descr": "eth0"}}},
{"swp2": {"via": "LLDP", "chassis": {"h2": {}}, "port": {"descr": "eth0"}}}]}}`
	if err := os.WriteFile(leaf1, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, err := ReadCabling(context.Background(), res, map[string]string{"leaf1": leaf1}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Verified != 2 || rep.Verdict == cabling.Fail {
		t.Errorf("summary %+v, verdict %s: want 2 verified", rep.Summary, rep.Verdict)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "h1 not read: lldpcli in netns rfnone-h1") {
		t.Errorf("notes do not say h1 was not read: %v", rep.Notes)
	}
	_, err = ReadCabling(context.Background(), res, map[string]string{"leaf9": leaf1}, "", nil)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no device of that name") {
		t.Errorf("unknown device: %v, want a usage error", err)
	}
}

// TestReadDCBX: a peer advertising PFC on another priority is a finding;
// a driver without DCB and a port without a peer are notes.
func TestReadDCBX(t *testing.T) {
	res := resolved(t)
	out := ReadDCBX(res, func(netns, netdev string) (*dcbnl.IEEE, error) {
		switch netns {
		case "rfnone-h2":
			return nil, drivers.ErrUnsupported
		case "rfnone-leaf1":
			return &dcbnl.IEEE{}, nil
		}
		return &dcbnl.IEEE{PeerPFC: &dcbnl.PFC{Cap: 8, Enable: 0x10}}, nil
	})
	if out.Read != 1 || len(out.Peers) != 1 || out.Peers[0].Device != "h1" {
		t.Fatalf("read %d peers %+v, want h1's alone", out.Read, out.Peers)
	}
	if len(out.Findings) == 0 {
		t.Error("no finding for a peer with PFC on priority 4")
	}
	notes := strings.Join(out.Notes, "\n")
	for _, want := range []string{"h2 eth0: its driver does no DCB", "leaf1 swp1: the driver reports no DCBX neighbour"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %v", want, out.Notes)
		}
	}
}
