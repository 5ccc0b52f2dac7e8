package cabling

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/intent"
)

// n is a parsed neighbour of leaf1 (or dev): port hears sys id descr.
func n(dev, port, sys, id, descr string) Neighbor {
	return Neighbor{Device: dev, Port: port, SysName: sys, PortID: id, PortDescr: descr}
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParsers(t *testing.T) {
	cases := []struct {
		name, file, device string
		parse              Parser
		want               []Neighbor
	}{
		// Captured from lldpd 1.0.16 (Debian 12) across veths; node-a's
		// second port has an ifalias, so lldpd sends the ifname as port
		// ID and the alias as description.
		{"lldpcli array form", "lldpcli_array.json", "node-b", ParseLLDPCLI, []Neighbor{
			n("node-b", "h21cb0", "node-a", "7a:4c:f6:33:0d:cc", "h21ca0"),
			n("node-b", "h21cb1", "node-a", "h21ca1", "uplink-to-b"),
		}},
		{"lldpcli single-interface object form", "lldpcli_single.json", "node-b", ParseLLDPCLI, []Neighbor{
			n("node-b", "h21cb1", "node-a", "h21ca1", "uplink-to-b"),
		}},
		{"lldpcli json0", "lldpcli_json0.json", "node-a", ParseLLDPCLI, []Neighbor{
			n("node-a", "h21ca0", "vm", "6a:f1:25:97:d5:d7", "h21cb0"),
			n("node-a", "h21ca1", "vm", "d2:b8:cd:6a:79:dc", "h21cb1"),
		}},
		{"lldpcli no neighbours", "lldpcli_none.json", "node-c", ParseLLDPCLI, []Neighbor{}},
		{"NX-OS rows", "nxos_detail.json", "leaf1", ParseNXOS, []Neighbor{
			n("leaf1", "Eth1/49", "spine1.dc1.example.net", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Eth1/7", "gpu03", "b8ce.f6a0.1c02", "ens1f0"),
			n("leaf1", "Eth1/8", "gpu04", "b8ce.f6a0.2d04", "ens1f0"),
		}},
		{"NX-OS one row is an object", "nxos_single.json", "leaf1", ParseNXOS, []Neighbor{
			n("leaf1", "Eth1/49", "spine1", "Ethernet1/1", ""),
		}},
		{"EOS", "eos_detail.json", "leaf1", ParseEOS, []Neighbor{
			n("leaf1", "Ethernet49/1", "spine1", "Ethernet1/1", "P2P_LINK_TO_LEAF1_Ethernet49/1"),
			n("leaf1", "Ethernet7/1", "gpu03", "b8ce.f6a0.1c02", "ens1f0"),
			n("leaf1", "Ethernet8/1", "gpu04", "b8ce.f6a0.2d04", "ens1f0"),
		}},
		{"OpenConfig JSON_IETF", "openconfig.json", "leaf1", ParseOpenConfig, []Neighbor{
			n("leaf1", "Ethernet1/1", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Ethernet7", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
			n("leaf1", "Ethernet8", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
		}},
		{"NVUE interface tree", "nvue_interfaces.json", "leaf1", ParseNVUE, []Neighbor{
			n("leaf1", "eth0", "oob-mgmt-switch", "swp10", ""),
			n("leaf1", "swp1", "spine1", "swp1", "swp1"),
			n("leaf1", "swp7", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
			n("leaf1", "swp8", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
		}},
		{"NVUE one port's lldp", "nvue_port_lldp.json", "leaf1:swp7", ParseNVUE, []Neighbor{
			n("leaf1", "swp7", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
		}},
		{"Junos detail: the local interface, not the SNMP index", "junos_detail.json", "leaf1", ParseJunos, []Neighbor{
			n("leaf1", "et-0/0/0", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "et-0/0/6", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
		}},
		{"Junos brief", "junos_brief.json", "leaf1", ParseJunos, []Neighbor{
			n("leaf1", "et-0/0/7", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
		}},
		{"SONiC sonic-db-dump", "sonic_dump.json", "leaf1", ParseSONiC, []Neighbor{
			n("leaf1", "Ethernet0", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Ethernet24", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
			n("leaf1", "Ethernet28", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
			n("leaf1", "eth0", "oob-mgmt-switch", "Gi1/0/7", ""),
		}},
		{"SONiC flat hashes, a neighbour with no identity dropped", "sonic_flat.json", "leaf1", ParseSONiC, []Neighbor{
			n("leaf1", "Ethernet4", "spine1", "Ethernet1/2", ""),
			n("leaf1", "Ethernet8", "", "541", ""),
		}},
		{"SONiC gNMI APPL_DB", "sonic_gnmi.json", "leaf1", ParseSONiC, []Neighbor{
			n("leaf1", "Ethernet0", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Ethernet24", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.parse(tc.device, readTestdata(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("neighbours (-want +got):\n%s", d)
			}
		})
	}
}

func TestParsersReject(t *testing.T) {
	cases := []struct {
		name  string
		parse Parser
		in    string
		want  string
	}{
		{"lldpcli not JSON", ParseLLDPCLI, "Interface: eth0, via: LLDP", "lldpcli JSON"},
		{"lldpcli plain object", ParseLLDPCLI, `{"interface": {}}`, `no "lldp" key`},
		{"lldpcli trailing", ParseLLDPCLI, `{"lldp": {}} {}`, "trailing data"},
		{"NX-OS other command", ParseNXOS, `{"TABLE_interface": {}}`, "no TABLE_nbor_detail"},
		{"EOS other command", ParseEOS, `{"interfaces": {}}`, "no lldpNeighbors"},
		{"OpenConfig other tree", ParseOpenConfig, `{"openconfig-interfaces:interfaces": {}}`, "no lldp/interfaces/interface"},
		{"NVUE array", ParseNVUE, `[]`, "want an object"},
		{"SONiC array", ParseSONiC, `[1]`, "want an object"},
		{"Junos XML", ParseJunos, `<rpc-reply/>`, "Junos JSON"},
		{"Junos other command", ParseJunos, `{"interface-information": []}`, "no lldp-neighbors-information"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.parse("leaf1", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	// NX-OS leaves the table out when there is no neighbour: that is none,
	// not an error.
	got, err := ParseNXOS("leaf1", []byte(`{"neigh_hdr": "neigh_hdr", "neigh_count": 0}`))
	if err != nil || len(got) != 0 {
		t.Errorf("NX-OS with no neighbours: %v, %v; want none and no error", got, err)
	}
}

// TestPlatformsDetectMiscabling parses each platform's output for leaf1
// with its two host cables swapped and classifies it against the intent
// written in that platform's port names.
func TestPlatformsDetectMiscabling(t *testing.T) {
	swap := func(s string, a, b string) string {
		s = strings.ReplaceAll(s, a, "\x00")
		s = strings.ReplaceAll(s, b, a)
		return strings.ReplaceAll(s, "\x00", b)
	}
	cases := []struct {
		platform, file, device string
		up, h3, h4             string // leaf1's uplink and host ports as the intent names them
	}{
		{"nxos", "nxos_detail.json", "leaf1", "Ethernet1/49", "Ethernet1/7", "Ethernet1/8"},
		{"eos", "eos_detail.json", "leaf1", "Ethernet49/1", "Ethernet7/1", "Ethernet8/1"},
		{"openconfig", "openconfig.json", "leaf1", "Ethernet1/1", "Ethernet7", "Ethernet8"},
		{"cumulus", "nvue_interfaces.json", "leaf1", "swp1", "swp7", "swp8"},
		{"sonic", "sonic_dump.json", "leaf1", "Ethernet0", "Ethernet24", "Ethernet28"},
	}
	for _, tc := range cases {
		t.Run(tc.platform, func(t *testing.T) {
			spinePort := "Ethernet1/1"
			if tc.platform == "cumulus" {
				spinePort = "swp1"
			}
			links := []intent.Link{
				hostLink("gpu03:ens1f0", "leaf1:"+tc.h3),
				hostLink("gpu04:ens1f0", "leaf1:"+tc.h4),
				swLink("leaf1:"+tc.up, "spine1:"+spinePort),
			}
			known := []string{"leaf1", "spine1", "gpu03", "gpu04"}
			raw := string(readTestdata(t, tc.file))
			for _, variant := range []struct {
				name string
				data string
				want []Status
			}{
				{"clean", raw, []Status{Verified, Verified, Verified}},
				{"hosts swapped", swap(raw, `"gpu03"`, `"gpu04"`), []Status{Miscabled, Miscabled, Verified}},
			} {
				nbs, err := Parsers[tc.platform](tc.device, []byte(variant.data))
				if err != nil {
					t.Fatal(err)
				}
				rep := Classify(links, known, Observed{Read: []string{"leaf1"}, Neighbors: nbs})
				var got []Status
				for _, l := range links {
					got = append(got, rep.Status(l))
				}
				if d := cmp.Diff(variant.want, got); d != "" {
					t.Errorf("%s (-want +got):\n%s", variant.name, d)
				}
				if variant.name == "hosts swapped" {
					// The hosts were not read: the leaf's view names both ends.
					want := "gpu03 ens1f0 reaches leaf1 " + tc.h4 + "; the intent says leaf1 " + tc.h3 +
						". leaf1 " + tc.h3 + " reaches gpu04 ens1f0; the intent says gpu03 ens1f0"
					if f := rep.Findings[0]; f.Message != want {
						t.Errorf("message %q, want %q", f.Message, want)
					}
				}
			}
		})
	}
}

func TestEveryParserIsSourced(t *testing.T) {
	cited := map[string]bool{}
	for _, s := range Sources {
		if s.Command == "" || s.Cite == "" {
			t.Errorf("source %+v names no command or citation", s)
		}
		cited[s.Platform] = true
	}
	for p := range Parsers {
		if p == "host" {
			p = "linux" // the same lldpcli parser
		}
		if !cited[p] {
			t.Errorf("parser for %s has no entry in Sources", p)
		}
	}
}
