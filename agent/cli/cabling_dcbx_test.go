package cli

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/netlink/dcbnl"
)

// kernelDCBXAnswer is the kernel's IEEE_GET answer for a driver that runs
// DCBX and reports its peer, laid out as include/uapi/linux/dcbnl.h and
// net/dcb/dcbnl.c (dcbnl_ieee_fill, dcbnl_build_peer_app) write it: the
// local PFC, then DCB_ATTR_IEEE_PEER_PFC and the nested
// DCB_ATTR_IEEE_PEER_APP of DCB_ATTR_IEEE_APP entries.
func kernelDCBXAnswer(ifname string, peerPFC uint8, peerDSCP map[int]int) []byte {
	nla := func(typ uint16, data []byte) []byte {
		b := binary.NativeEndian.AppendUint16(nil, uint16(4+len(data)))
		b = binary.NativeEndian.AppendUint16(b, typ)
		b = append(b, data...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	var apps []byte
	for _, dscp := range []int{26, 48} {
		if prio, ok := peerDSCP[dscp]; ok {
			apps = append(apps, nla(dcbnl.AttrIEEEApp, dcbnl.App{Selector: dcbnl.SelDSCP, Priority: uint8(prio), Protocol: uint16(dscp)}.Marshal())...)
		}
	}
	inner := nla(dcbnl.AttrIEEEPFC, dcbnl.PFC{Cap: 8, Enable: 0x08}.Marshal())
	inner = append(inner, nla(dcbnl.AttrIEEEPeerPFC, dcbnl.PFC{Cap: 8, Enable: peerPFC}.Marshal())...)
	inner = append(inner, nla(dcbnl.AttrIEEEPeerApp|0x8000, apps)...)
	b := append([]byte{0, dcbnl.CmdIEEEGet, 0, 0}, nla(dcbnl.AttrIfname, []byte(ifname+"\x00"))...)
	return append(b, nla(dcbnl.AttrIEEE|0x8000, inner)...)
}

// TestCablingDCBX: rocefab cabling --dcbx reads each netns port's DCBX
// neighbour from the (simulated) kernel answer and reports a neighbour
// that advertises PFC on another priority, or maps the RoCE DSCP to
// another priority, naming the port; a driver without DCB is a note.
// Without --dcbx nothing is read.
func TestCablingDCBX(t *testing.T) {
	dir := t.TempDir()
	doc := `apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: dcbx}
spec:
  lossless: {profile: dcqcn, roceDscp: [26]}
  switches:
    - {name: leaf1, platform: linux, transport: netlink, netns: rfdcbx-leaf1, ports: [{names: swp1-2, mode: routed}]}
  hosts:
    - {name: h1, netns: rfdcbx-h1, nics: [{netdev: eth0, address: 192.0.2.2}]}
    - {name: h2, netns: rfdcbx-h2, nics: [{netdev: eth0, address: 192.0.2.6}]}
  links:
    - {a: h1:eth0, b: leaf1:swp1, bAddress: 192.0.2.1}
    - {a: h2:eth0, b: leaf1:swp2, bAddress: 192.0.2.5}
`
	path := filepath.Join(dir, "fabric.yaml")
	empty := filepath.Join(dir, "none.json")
	for f, body := range map[string]string{path: doc, empty: `{"lldp": {}}`} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		pfc  uint8
		dscp map[int]int
	}
	good := answer{0x08, map[int]int{26: 3, 48: 6}}
	for _, tc := range []struct {
		name    string
		answers map[string]answer // by netns/netdev; absent: no DCB
		code    int
		want    []string
		read    int
	}{
		{"agrees", map[string]answer{"rfdcbx-h1/eth0": good, "rfdcbx-h2/eth0": good, "rfdcbx-leaf1/swp1": good, "rfdcbx-leaf1/swp2": good}, ExitOK, nil, 4},
		{"PFC and APP disagree", map[string]answer{
			"rfdcbx-h1/eth0":    {0x10, map[int]int{26: 3, 48: 6}},
			"rfdcbx-h2/eth0":    {0x08, map[int]int{26: 0, 48: 6}},
			"rfdcbx-leaf1/swp1": good,
		}, ExitFailure, []string{
			"h1 eth0 neighbour advertises PFC on 4, the intent has 3",
			"h2 eth0 neighbour's APP table maps DSCP 26 to 0, the intent 3",
		}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := readDCBXPeer
			t.Cleanup(func() { readDCBXPeer = old })
			readDCBXPeer = func(netns, netdev string) (*dcbnl.IEEE, error) {
				a, ok := tc.answers[netns+"/"+netdev]
				if !ok {
					return nil, fmt.Errorf("%w: operation not supported", drivers.ErrUnsupported)
				}
				r, err := dcbnl.ParseReply(kernelDCBXAnswer(netdev, a.pfc, a.dscp))
				if err != nil {
					t.Fatal(err)
				}
				return r.IEEE, nil
			}
			args := []string{"cabling", path, "--dcbx"}
			for _, d := range []string{"leaf1", "h1", "h2"} {
				args = append(args, "--lldp", d+"="+empty)
			}
			code, out, errOut := runCLI(t, "", append(args, "-o", "json")...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			var got cablingOutput
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if got.DCBX == nil {
				t.Fatalf("no dcbx in the JSON:\n%s", out)
			}
			var msgs []string
			for _, f := range got.DCBX.Findings {
				msgs = append(msgs, f.Message)
			}
			if strings.Join(msgs, "\n") != strings.Join(tc.want, "\n") || got.DCBX.Read != tc.read {
				t.Errorf("read %d, findings %q; want %d, %q", got.DCBX.Read, msgs, tc.read, tc.want)
			}
			if tc.read < 4 && !strings.Contains(strings.Join(got.DCBX.Notes, "\n"), "leaf1 swp2: its driver does no DCB") {
				t.Errorf("notes do not say leaf1 swp2 has no DCB: %q", got.DCBX.Notes)
			}
			_, text, _ := runCLI(t, "", args...)
			for _, m := range tc.want {
				if !strings.Contains(text, "dcbx: "+m+"\n") {
					t.Errorf("the text does not say %q:\n%s", m, text)
				}
			}
		})
	}
	t.Run("off by default", func(t *testing.T) {
		old := readDCBXPeer
		t.Cleanup(func() { readDCBXPeer = old })
		readDCBXPeer = func(string, string) (*dcbnl.IEEE, error) { t.Fatal("DCBX read without --dcbx"); return nil, nil }
		_, out, _ := runCLI(t, "", "cabling", path, "-o", "json", "--lldp", "leaf1="+empty, "--lldp", "h1="+empty, "--lldp", "h2="+empty)
		if strings.Contains(out, `"dcbx"`) {
			t.Errorf("dcbx in the output without --dcbx:\n%s", out)
		}
	})
}
