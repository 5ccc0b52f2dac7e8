// Package lldptest holds the checks every LLDP parser's tests share: the
// table of fixtures, the rejections, and the fuzz target's invariants.
package lldptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// N is a parsed neighbour: on dev's port it hears sys, whose port is id
// (and descr).
func N(dev, port, sys, id, descr string) observe.Neighbor {
	return observe.Neighbor{Device: dev, Port: port, SysName: sys, PortID: id, PortDescr: descr}
}

// Read reads a fixture from testdata/lldp.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "lldp", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Case is one fixture and the neighbours parsed from it.
type Case struct {
	Name, File, Device string
	Want               []observe.Neighbor
}

// Parses checks each fixture parses to its neighbours.
func Parses(t *testing.T, parse observe.LLDPParser, cases []Case) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got, err := parse(tc.Device, Read(t, tc.File))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.Want, got); d != "" {
				t.Errorf("neighbours (-want +got):\n%s", d)
			}
		})
	}
}

// Rejects checks each input fails with an error containing want.
func Rejects(t *testing.T, parse observe.LLDPParser, inputs map[string]string) {
	for in, want := range inputs {
		_, err := parse("leaf1", []byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one saying %q", in, err, want)
		}
	}
}

// Fuzz seeds f with the fixtures and the extra inputs and checks what
// every parse must hold: the device named, a local port and a remote end
// on every neighbour, sorted, and the same result twice.
func Fuzz(f *testing.F, parse observe.LLDPParser, device string, fixtures []string, extra ...string) {
	for _, name := range fixtures {
		f.Add(Read(f, name))
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
	dev, _ := observe.SplitDevicePort(device)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parse(device, data)
		if err != nil {
			return
		}
		for i, n := range got {
			if n.Device != dev || n.Port == "" {
				t.Fatalf("neighbour %d %+v: want device %q and a local port", i, n, dev)
			}
			if n.SysName == "" && n.PortID == "" && n.PortDescr == "" {
				t.Fatalf("neighbour %d %+v names no remote end", i, n)
			}
			if i > 0 && (got[i-1].Port > n.Port || got[i-1].Port == n.Port && got[i-1].SysName > n.SysName) {
				t.Fatalf("neighbours not sorted at %d: %+v", i, got)
			}
		}
		again, err := parse(device, data)
		if err != nil || !cmp.Equal(got, again) {
			t.Fatalf("a second parse differs: %v %v", err, cmp.Diff(got, again))
		}
	})
}
