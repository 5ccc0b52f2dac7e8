package cabling

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/golden"
)

func ep(s string) intent.Endpoint {
	d, p, _ := strings.Cut(s, ":")
	return intent.Endpoint{Device: d, Port: p}
}

// hostLink is a host NIC cabled to a switch port, as Resolve makes it.
func hostLink(host, sw string) intent.Link {
	h, s := ep(host), ep(sw)
	return intent.Link{A: h, B: s, HostEnd: &h, SwitchEnd: s}
}

func swLink(a, b string) intent.Link { return intent.Link{A: ep(a), B: ep(b), SwitchEnd: ep(a)} }

// nb is a neighbour: device:port hears sys with port id and descr.
func nb(local, sys, id, descr string) Neighbor {
	l := ep(local)
	return Neighbor{Device: l.Device, Port: l.Port, SysName: sys, PortID: id, PortDescr: descr}
}

var testLinks = []intent.Link{
	hostLink("gpu03:ens1f0", "leaf1:Ethernet7"),
	hostLink("gpu04:ens1f0", "leaf1:Ethernet8"),
	swLink("leaf1:Ethernet1/1", "spine1:Ethernet1/1"),
}

var testKnown = []string{"gpu03", "gpu04", "leaf1", "leaf2", "spine1"}

// clean is both ends of every link reporting the intent's peer, the way
// each platform does: lldpd's MAC port ID with the ifname as descr, NX-OS's
// Eth1/1 short names.
func clean() []Neighbor {
	return []Neighbor{
		nb("gpu03:ens1f0", "leaf1", "Ethernet7", "to gpu03"),
		nb("leaf1:Ethernet7", "gpu03", "7a:4c:f6:33:0d:cc", "ens1f0"),
		nb("gpu04:ens1f0", "leaf1", "Ethernet8", ""),
		nb("leaf1:Ethernet8", "gpu04", "7a:4c:f6:33:0d:cd", "ens1f0"),
		nb("leaf1:Ethernet1/1", "spine1.dc1.example.net", "Eth1/1", ""),
		nb("spine1:Eth1/1", "LEAF1", "Ethernet1/1", ""),
	}
}

func TestClassify(t *testing.T) {
	all := []string{"gpu03", "gpu04", "leaf1", "spine1"}
	type want map[string]Status // link name to status
	cases := []struct {
		name     string
		obs      Observed
		want     want
		verdict  Verdict
		messages []string // substrings the findings' messages must hold, in order
	}{
		{
			name:    "clean, both ends",
			obs:     Observed{Read: all, Neighbors: clean()},
			want:    want{"gpu03:ens1f0 – leaf1:Ethernet7": Verified, "gpu04:ens1f0 – leaf1:Ethernet8": Verified, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Verified},
			verdict: Pass,
		},
		{
			name: "clean, switches only report",
			obs: Observed{Read: []string{"leaf1", "spine1"}, Neighbors: []Neighbor{
				nb("leaf1:Ethernet7", "gpu03", "ens1f0", ""),
				nb("leaf1:Ethernet8", "gpu04", "aa:bb:cc:dd:ee:ff", "ens1f0"),
				nb("spine1:Ethernet1/1", "leaf1", "Et1/1", ""),
			}},
			want:    want{"gpu03:ens1f0 – leaf1:Ethernet7": Verified, "gpu04:ens1f0 – leaf1:Ethernet8": Verified, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Verified},
			verdict: Pass,
		},
		{
			name: "ifalias as descr: lldpd sends the ifname as port ID",
			obs: Observed{Read: []string{"leaf1"}, Neighbors: []Neighbor{
				nb("leaf1:Ethernet7", "gpu03", "ens1f0", "rail0 uplink"),
			}},
			want:    want{"gpu03:ens1f0 – leaf1:Ethernet7": Verified, "gpu04:ens1f0 – leaf1:Ethernet8": Missing, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Missing},
			verdict: Warn,
		},
		{
			name: "SONiC peer advertises its alias",
			obs: Observed{Read: []string{"gpu03"}, Neighbors: []Neighbor{
				nb("gpu03:ens1f0", "leaf1", "etp8", "Servers0:eth0"),
			}, Aliases: map[string]map[string]string{"leaf1": {"etp8": "Ethernet7"}}},
			want:    want{"gpu03:ens1f0 – leaf1:Ethernet7": Verified, "gpu04:ens1f0 – leaf1:Ethernet8": Unread, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Unread},
			verdict: Warn,
		},
		{
			name: "host reaches the wrong leaf",
			obs: Observed{Read: all, Neighbors: []Neighbor{
				nb("gpu03:ens1f0", "leaf2", "Ethernet7", ""),
			}},
			want:     want{"gpu03:ens1f0 – leaf1:Ethernet7": Miscabled, "gpu04:ens1f0 – leaf1:Ethernet8": Missing, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Missing},
			verdict:  Fail,
			messages: []string{"gpu03 ens1f0 reaches leaf2 Ethernet7; the intent says leaf1 Ethernet7"},
		},
		{
			name: "swapped host cables, both ends report",
			obs: Observed{Read: all, Neighbors: []Neighbor{
				nb("gpu03:ens1f0", "leaf1", "Ethernet8", ""),
				nb("leaf1:Ethernet8", "gpu03", "7a:4c:f6:33:0d:cc", "ens1f0"),
				nb("gpu04:ens1f0", "leaf1", "Ethernet7", ""),
				nb("leaf1:Ethernet7", "gpu04", "7a:4c:f6:33:0d:cd", "ens1f0"),
				nb("leaf1:Ethernet1/1", "spine1", "Ethernet1/1", ""),
			}},
			want:    want{"gpu03:ens1f0 – leaf1:Ethernet7": Miscabled, "gpu04:ens1f0 – leaf1:Ethernet8": Miscabled, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Verified},
			verdict: Fail,
			messages: []string{
				"gpu03 ens1f0 reaches leaf1 Ethernet8; the intent says leaf1 Ethernet7. leaf1 Ethernet7 reaches gpu04 ens1f0; the intent says gpu03 ens1f0",
				"gpu04 ens1f0 reaches leaf1 Ethernet7; the intent says leaf1 Ethernet8. leaf1 Ethernet8 reaches gpu03 ens1f0; the intent says gpu04 ens1f0",
			},
		},
		{
			name: "swapped host cables, hosts silent: the leaf names both",
			obs: Observed{Read: []string{"leaf1"}, Neighbors: []Neighbor{
				nb("leaf1:Ethernet8", "gpu03", "ens1f0", ""),
				nb("leaf1:Ethernet7", "gpu04", "ens1f0", ""),
			}},
			want:    want{"gpu03:ens1f0 – leaf1:Ethernet7": Miscabled, "gpu04:ens1f0 – leaf1:Ethernet8": Miscabled, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Missing},
			verdict: Fail,
			messages: []string{
				"gpu03 ens1f0 reaches leaf1 Ethernet8; the intent says leaf1 Ethernet7. leaf1 Ethernet7 reaches gpu04 ens1f0; the intent says gpu03 ens1f0",
				"gpu04 ens1f0 reaches leaf1 Ethernet7; the intent says leaf1 Ethernet8. leaf1 Ethernet8 reaches gpu03 ens1f0; the intent says gpu04 ens1f0",
			},
		},
		{
			name:    "nothing read",
			obs:     Observed{},
			want:    want{"gpu03:ens1f0 – leaf1:Ethernet7": Unread, "gpu04:ens1f0 – leaf1:Ethernet8": Unread, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Unread},
			verdict: Warn,
		},
		{
			name: "unexpected cable between known devices, strangers ignored",
			obs: Observed{Read: all, Neighbors: append(clean(),
				nb("leaf1:Ethernet9", "leaf2", "Ethernet9", ""),
				nb("leaf2:Eth9", "leaf1", "Ethernet9", ""),
				nb("leaf1:mgmt0", "oob-switch", "Gi0/1", ""),
			)},
			want: want{"gpu03:ens1f0 – leaf1:Ethernet7": Verified, "gpu04:ens1f0 – leaf1:Ethernet8": Verified, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Verified,
				"leaf1:Ethernet9 – leaf2:Ethernet9": Unexpected},
			verdict:  Warn,
			messages: []string{"leaf1 Ethernet9 reaches leaf2 Ethernet9; the intent has no link on either port"},
		},
		{
			name: "a host on a spare switch port the intent did not write",
			obs: Observed{Read: all, Neighbors: []Neighbor{
				nb("leaf1:Ethernet12", "gpu03", "ens1f0", ""),
			}},
			want: want{"gpu03:ens1f0 – leaf1:Ethernet7": Miscabled, "gpu04:ens1f0 – leaf1:Ethernet8": Missing, "leaf1:Ethernet1/1 – spine1:Ethernet1/1": Missing,
				"leaf1:Ethernet12 – gpu03:ens1f0": Unexpected},
			verdict: Fail,
			messages: []string{
				"gpu03 ens1f0 reaches leaf1 Ethernet12; the intent says leaf1 Ethernet7",
				"leaf1 Ethernet12 reaches gpu03 ens1f0; the intent has no link on leaf1 Ethernet12",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := Classify(testLinks, testKnown, tc.obs)
			got := want{}
			var msgs []string
			for _, f := range rep.Findings {
				got[f.Link] = f.Status
				if f.Status == Miscabled || f.Status == Unexpected {
					msgs = append(msgs, f.Message)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("statuses (-want +got):\n%s", d)
			}
			if rep.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, tc.verdict)
			}
			if tc.messages != nil {
				if d := cmp.Diff(tc.messages, msgs); d != "" {
					t.Errorf("messages (-want +got):\n%s", d)
				}
			}
			for _, l := range testLinks {
				if rep.Status(l) != got[LinkName(l)] {
					t.Errorf("Status(%s) = %s, findings say %s", LinkName(l), rep.Status(l), got[LinkName(l)])
				}
			}
		})
	}
}

func TestNormPort(t *testing.T) {
	same := [][2]string{
		{"Ethernet1/1", "Eth1/1"}, {"Ethernet1", "Et1"}, {"ethernet7", "Ethernet7"},
		{"swp1", "SWP1"}, {" ens1f0 ", "ens1f0"}, {"Ethernet1/1/2", "Eth1/1/2"},
	}
	for _, p := range same {
		if NormPort(p[0]) != NormPort(p[1]) {
			t.Errorf("%q and %q should be one port: %q vs %q", p[0], p[1], NormPort(p[0]), NormPort(p[1]))
		}
	}
	differ := [][2]string{{"Ethernet1", "Ethernet11"}, {"et-0/0/1", "eth0/0/1"}, {"etp1", "eth1"}, {"Ethernet", "Eth"},
		{"Ethernet0", "eth0"}, {"Et1", "et1"}}
	for _, p := range differ {
		if NormPort(p[0]) == NormPort(p[1]) {
			t.Errorf("%q and %q are different ports, both normalise to %q", p[0], p[1], NormPort(p[0]))
		}
	}
}

func TestSkipped(t *testing.T) {
	rep := Classify(testLinks, testKnown, Observed{Read: []string{"leaf1"}, Neighbors: []Neighbor{
		nb("leaf1:Ethernet8", "gpu03", "ens1f0", ""),
		nb("leaf1:Ethernet7", "gpu04", "ens1f0", ""),
		nb("leaf1:Ethernet1/1", "spine1", "Ethernet1/1", ""),
		nb("leaf1:Ethernet9", "leaf2", "Ethernet9", ""),
	}})
	var got []string
	for _, f := range rep.Skipped() {
		got = append(got, f.Link+" "+string(f.Status))
	}
	want := []string{"gpu03:ens1f0 – leaf1:Ethernet7 miscabled", "gpu04:ens1f0 – leaf1:Ethernet8 miscabled"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
}

func TestReportRendering(t *testing.T) {
	rep := Classify(testLinks, testKnown, Observed{Read: []string{"leaf1", "gpu03", "gpu04"}, Neighbors: []Neighbor{
		nb("gpu03:ens1f0", "leaf1", "Ethernet8", ""),
		nb("gpu04:ens1f0", "leaf1", "Ethernet7", ""),
		nb("leaf1:Ethernet8", "gpu03", "ens1f0", ""),
		nb("leaf1:Ethernet7", "gpu04", "ens1f0", ""),
		nb("leaf1:Ethernet9", "leaf2", "Ethernet9", "to | leaf2"),
	}})
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"report.txt", func(b *bytes.Buffer) error { return rep.WriteText(b) }},
		{"report.md", func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }},
		{"report.json", func(b *bytes.Buffer) error { return rep.WriteJSON(b) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", f.name), b.Bytes())
	}
	var back Report
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rep, &back); d != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", d)
	}
}

// TestMarkdownBodyRoom: within a room the table keeps what needs a person
// first and counts the rows it leaves out; unbounded it shows them all.
func TestMarkdownBodyRoom(t *testing.T) {
	rep := Classify(testLinks, testKnown, Observed{Read: []string{"leaf1", "gpu03", "gpu04"}, Neighbors: []Neighbor{
		nb("gpu03:ens1f0", "leaf1", "Ethernet8", ""),
		nb("gpu04:ens1f0", "leaf1", "Ethernet7", ""),
		nb("leaf1:Ethernet8", "gpu03", "ens1f0", ""),
		nb("leaf1:Ethernet7", "gpu04", "ens1f0", ""),
	}})
	full := rep.MarkdownBody(-1, 3)
	rows := strings.Count(full, "\n| `")
	if rows != len(rep.Findings) || strings.Contains(full, "not shown") {
		t.Fatalf("unbounded: %d rows for %d findings:\n%s", rows, len(rep.Findings), full)
	}
	for _, tc := range []struct {
		room, rows int
	}{
		{len(full) + 100, rows},
		{72 + rowLen(full) + 1 + 80 + 5, 1}, // the header, the first row, the count line
		{100, 0},
	} {
		got := rep.MarkdownBody(tc.room, 3)
		if len(got) > tc.room {
			t.Errorf("room %d: %d characters", tc.room, len(got))
		}
		if n := strings.Count(got, "\n| `"); n != tc.rows {
			t.Errorf("room %d: %d rows, want %d:\n%s", tc.room, n, tc.rows, got)
		}
		if left := rows - strings.Count(got, "\n| `"); left > 0 && !strings.Contains(got, fmt.Sprintf("%d more link(s) not shown", left)) {
			t.Errorf("room %d: the %d rows left out are not counted:\n%s", tc.room, left, got)
		}
		if strings.Count(got, "\n| `") > 0 && !strings.Contains(got, "**miscabled**") {
			t.Errorf("room %d: the miscabled rows are not kept first:\n%s", tc.room, got)
		}
	}
}

func rowLen(md string) int {
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| `") {
			return len(l)
		}
	}
	return 0
}
