package sshsim

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/cumulus"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/junos"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/validators/cabling"
)

// TestLLDPNeighborsParsedAndMiscablingFound: the NX-OS and EOS
// personalities answer `show lldp neighbors detail | json` with the
// neighbours a test cabled; rocefab's parser for each reads them, and the
// cabling check finds the two host cables a test swapped.
func TestLLDPNeighborsParsedAndMiscablingFound(t *testing.T) {
	for _, tc := range []struct {
		p      Personality
		parse  cabling.Parser
		h3, h4 string
	}{
		{NXOS, nxos.ParseLLDP, "Ethernet1/7", "Ethernet1/8"},
		{EOS, eos.ParseLLDP, "Ethernet7", "Ethernet8"},
		{Junos, junos.ParseLLDP, "et-0/0/6", "et-0/0/7"},
	} {
		t.Run(string(tc.p), func(t *testing.T) {
			sim := startSim(t, Options{Personality: tc.p, Hostname: "leaf1", NoAuth: true, Blank: true})
			c := newConsole(t, sim)
			if tc.p == EOS {
				c.do("enable")
			}
			links := []intent.Link{hostLink("gpu03:ens1f0", "leaf1:"+tc.h3), hostLink("gpu04:ens1f0", "leaf1:"+tc.h4)}
			known := []string{"leaf1", "gpu03", "gpu04"}
			for _, v := range []struct {
				name   string
				nbs    []LLDPNeighbor
				status cabling.Status
			}{
				{"one neighbour", []LLDPNeighbor{{tc.h3, "gpu03", "02:00:00:00:00:03", "ens1f0"}}, cabling.Verified},
				{"as cabled", []LLDPNeighbor{{tc.h3, "gpu03", "02:00:00:00:00:03", "ens1f0"}, {tc.h4, "gpu04", "02:00:00:00:00:04", "ens1f0"}}, cabling.Verified},
				{"swapped", []LLDPNeighbor{{tc.h3, "gpu04", "02:00:00:00:00:04", "ens1f0"}, {tc.h4, "gpu03", "02:00:00:00:00:03", "ens1f0"}}, cabling.Miscabled},
			} {
				sim.SetLLDP(v.nbs)
				cmd := "show lldp neighbors detail | json"
				if tc.p == Junos {
					cmd = "show lldp neighbors detail | display json"
				}
				out := c.do(cmd)
				nbs, err := tc.parse("leaf1", []byte(out))
				if err != nil || len(nbs) != len(v.nbs) {
					t.Fatalf("%s: parsed %d neighbours (%v) from:\n%s", v.name, len(nbs), err, out)
				}
				rep := cabling.Classify(links, known, cabling.Observed{Read: []string{"leaf1"}, Neighbors: nbs})
				if got := rep.Status(links[0]); got != v.status {
					t.Errorf("%s: %s, want %s\n%s", v.name, got, v.status, out)
				}
				if v.status == cabling.Miscabled {
					want := "leaf1 " + tc.h3 + " reaches gpu04 ens1f0; the intent says gpu03 ens1f0"
					if msg := rep.Finding(links[0]).Message; !strings.Contains(msg, want) {
						t.Errorf("%s: %q lacks %q", v.name, msg, want)
					}
				}
			}
		})
	}
}

func hostLink(host, sw string) intent.Link {
	hd, hp, _ := strings.Cut(host, ":")
	sd, sp, _ := strings.Cut(sw, ":")
	h, s := intent.Endpoint{Device: hd, Port: hp}, intent.Endpoint{Device: sd, Port: sp}
	return intent.Link{A: h, B: s, HostEnd: &h, SwitchEnd: s}
}

// TestNVUELLDPParsedAndMiscablingFound: the NVUE personality prints the
// neighbours a test cabled in `nv show interface -o json` and in one
// port's `nv show interface swp7 lldp -o json`; ParseNVUE reads both.
func TestNVUELLDPParsedAndMiscablingFound(t *testing.T) {
	sim := startSim(t, Options{Personality: Cumulus, Hostname: "leaf1", NoAuth: true, Blank: true})
	c := newConsole(t, sim)
	links := []intent.Link{hostLink("gpu03:ens1f0", "leaf1:swp7"), hostLink("gpu04:ens1f0", "leaf1:swp8")}
	known := []string{"leaf1", "gpu03", "gpu04"}
	sim.SetLLDP([]LLDPNeighbor{{"swp7", "gpu04", "02:00:00:00:00:04", "ens1f0"}, {"swp8", "gpu03", "02:00:00:00:00:03", "ens1f0"}})
	out := c.do("nv show interface -o json")
	nbs, err := cumulus.ParseLLDP("leaf1", []byte(out))
	if err != nil || len(nbs) != 2 {
		t.Fatalf("parsed %v (%v) from:\n%s", nbs, err, out)
	}
	rep := cabling.Classify(links, known, cabling.Observed{Read: []string{"leaf1"}, Neighbors: nbs})
	for _, l := range links {
		if rep.Status(l) != cabling.Miscabled {
			t.Errorf("%s: %s, want miscabled", cabling.LinkName(l), rep.Status(l))
		}
	}
	out = c.do("nv show interface swp7 lldp -o json")
	one, err := cumulus.ParseLLDP("leaf1:swp7", []byte(out))
	if err != nil || len(one) != 1 || one[0].Port != "swp7" || one[0].SysName != "gpu04" {
		t.Errorf("one port: %v (%v) from:\n%s", one, err, out)
	}
}
