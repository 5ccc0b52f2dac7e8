package cabling

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// The shared corpus holds no LLDP output: the seeds are the fixtures in
// testdata (the lldpcli ones captured from a real lldpd) plus each
// format's edge shapes.
func fuzzParser(f *testing.F, parse Parser, device string, fixtures []string, extra ...string) {
	for _, name := range fixtures {
		f.Add(readTestdata(f, name))
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

func FuzzParseLLDPCLI(f *testing.F) {
	fuzzParser(f, ParseLLDPCLI, "node-b",
		[]string{"lldpcli_array.json", "lldpcli_single.json", "lldpcli_json0.json", "lldpcli_none.json"},
		`{"lldp":{"interface":{"eth0":{"chassis":{"id":{"type":"mac","value":"aa:bb:cc:dd:ee:ff"}},"port":{"id":"x"}}}}}`,
		`{"lldp":[{"interface":[{"name":"eth0","chassis":[{"name":[{"value":7}]}],"port":[]}]}]}`)
}

func FuzzParseOpenConfig(f *testing.F) {
	fuzzParser(f, ParseOpenConfig, "leaf1", []string{"openconfig.json"},
		`{"interfaces":{"interface":{"state":{"name":"Ethernet1"},"neighbors":{"neighbor":{"state":{"system-name":"s"}}}}}}`)
}
