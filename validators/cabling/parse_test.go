package cabling

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
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
		{"OpenConfig JSON_IETF", "openconfig.json", "leaf1", ParseOpenConfig, []Neighbor{
			n("leaf1", "Ethernet1/1", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Ethernet7", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
			n("leaf1", "Ethernet8", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
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
		{"OpenConfig other tree", ParseOpenConfig, `{"openconfig-interfaces:interfaces": {}}`, "no lldp/interfaces/interface"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.parse("leaf1", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
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
		{"nxos", "../../../renderers/nxos/testdata/lldp/detail.json", "leaf1", "Ethernet1/49", "Ethernet1/7", "Ethernet1/8"},
		{"eos", "../../../renderers/eos/testdata/lldp/detail.json", "leaf1", "Ethernet49/1", "Ethernet7/1", "Ethernet8/1"},
		{"openconfig", "openconfig.json", "leaf1", "Ethernet1/1", "Ethernet7", "Ethernet8"},
		{"cumulus", "../../../renderers/cumulus/testdata/lldp/interfaces.json", "leaf1", "swp1", "swp7", "swp8"},
		{"sonic", "../../../renderers/sonic/testdata/lldp/dump.json", "leaf1", "Ethernet0", "Ethernet24", "Ethernet28"},
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
				nbs, err := parserOf(t, tc.platform)(tc.device, []byte(variant.data))
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

// parserOf is the generic parser of a platform, or the one it registers.
func parserOf(t *testing.T, platform string) Parser {
	t.Helper()
	if p := Parsers[platform]; p != nil {
		return p
	}
	e, err := all.Renderers().Lookup(platform)
	if err != nil || e.Attrs.LLDP == nil {
		t.Fatalf("%s registers no LLDP parser (%v)", platform, err)
	}
	return e.Attrs.LLDP.Parse
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
	reg := all.Renderers()
	for _, name := range reg.Names() {
		e, _ := reg.Lookup(name)
		if l := e.Attrs.LLDP; l != nil && (l.Parse == nil || l.Command == "" || l.Cite == "" || l.Show == "" && len(l.GNMIPath) == 0 || l.DCBX == "") {
			t.Errorf("%s: its LLDP reader lacks a parser, a command to read it, a citation or its DCBX note: %+v", name, l)
		}
	}
}
