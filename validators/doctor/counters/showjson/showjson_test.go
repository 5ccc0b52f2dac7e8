package showjson

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/validators/doctor/counters"
)

func fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// got maps "port counter" to the value.
func got(samples []counters.Sample) map[string]uint64 {
	out := map[string]uint64{}
	for _, s := range samples {
		out[s.Port+" "+s.Counter] = s.Value
	}
	return out
}

func TestParsers(t *testing.T) {
	for _, tc := range []struct {
		name, file, port string
		parse            func([]byte, string) ([]counters.Sample, error)
		want             map[string]uint64
	}{
		{"nxos queuing", "nxos_queuing.json", "Ethernet1/5", ParseNXOSQueuing, map[string]uint64{
			"Ethernet1/5 queue0/tx-packets": 81246, "Ethernet1/5 queue0/drops": 4,
			"Ethernet1/5 queue3/tx-packets": 5520048, "Ethernet1/5 queue3/drops": 0, "Ethernet1/5 queue3/ecn-marked": 35012,
			"Ethernet1/5 pfc0/rx-pause": 0, "Ethernet1/5 pfc0/tx-pause": 0,
			"Ethernet1/5 pfc3/rx-pause": 1204, "Ethernet1/5 pfc3/tx-pause": 77}},
		{"nxos pfc-queue", "nxos_pfcqueue.json", "Ethernet1/5", ParseNXOSPFCQueue, map[string]uint64{
			"Ethernet1/5 pfc3/watchdog-storms": 2}},
		{"eos pfc detail", "eos_pfc_detail.json", "Ethernet5", ParseEOSPFCDetail, map[string]uint64{
			"Ethernet5 pfc0/rx-pause": 0, "Ethernet5 pfc0/tx-pause": 0, "Ethernet5 pfc3/rx-pause": 1204, "Ethernet5 pfc3/tx-pause": 77,
			"Ethernet5 pfc4/rx-pause": 9, "Ethernet5 pfc4/tx-pause": 0}},
		{"eos watchdog", "eos_watchdog.json", "", ParseEOSWatchdog, map[string]uint64{"Ethernet5 pfc3/watchdog-storms": 2}},
		{"eos ecn", "eos_ecn.json", "", ParseEOSECN, map[string]uint64{
			"Ethernet5 queue3/ecn-marked": 35012, "Ethernet5 queue4/ecn-marked": 0, "Ethernet6 queue3/ecn-marked": 0}},
		{"eos queue detail", "eos_queue_detail.json", "", ParseEOSQueueDetail, map[string]uint64{
			"Ethernet5 queue0/drops": 0, "Ethernet5 queue3/drops": 6}},
		{"nvue qos", "nvue_qos.json", "swp5", ParseNVUEQoS, map[string]uint64{
			"swp5 pfc0/rx-pause": 0, "swp5 pfc0/tx-pause": 0, "swp5 pfc3/rx-pause": 1204, "swp5 pfc3/tx-pause": 77,
			"swp5 queue0/tx-packets": 16, "swp5 queue0/ecn-marked": 0, "swp5 queue0/drops": 0,
			"swp5 queue3/tx-packets": 5520031, "swp5 queue3/ecn-marked": 35012, "swp5 queue3/drops": 6}},
		{"junos extensive", "junos_extensive.json", "et-0/0/24", ParseJunosExtensive, map[string]uint64{
			"et-0/0/24 pfc0/rx-pause": 0, "et-0/0/24 pfc0/tx-pause": 0, "et-0/0/24 pfc3/rx-pause": 1204, "et-0/0/24 pfc3/tx-pause": 77,
			"et-0/0/24 mac/rx-pause": 0, "et-0/0/24 mac/tx-pause": 0}},
		{"junos queue", "junos_queue.json", "et-0/0/24", ParseJunosQueue, map[string]uint64{
			"et-0/0/24 queue0/tx-packets": 29689243233, "et-0/0/24 queue0/drops": 0,
			"et-0/0/24 queue3/tx-packets": 5520025, "et-0/0/24 queue3/drops": 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			samples, err := tc.parse(fixture(t, tc.file), tc.port)
			if err != nil {
				t.Fatal(err)
			}
			g := got(samples)
			if len(g) != len(samples) {
				t.Errorf("a counter is reported twice: %v", samples)
			}
			for k, v := range tc.want {
				if gv, ok := g[k]; !ok || gv != v {
					t.Errorf("%s = %d (present %v), want %d", k, gv, ok, v)
				}
			}
			for k := range g {
				if _, ok := tc.want[k]; !ok {
					t.Errorf("unexpected counter %s = %d", k, g[k])
				}
			}
		})
	}
}

// TestParsersRefuse: output that is not the command's JSON is an error,
// never zeros.
func TestParsersRefuse(t *testing.T) {
	parsers := map[string]func([]byte, string) ([]counters.Sample, error){
		"nxos queuing": ParseNXOSQueuing, "nxos pfc-queue": ParseNXOSPFCQueue, "eos pfc": ParseEOSPFCDetail,
		"eos watchdog": ParseEOSWatchdog, "eos ecn": ParseEOSECN, "eos queue": ParseEOSQueueDetail,
		"nvue": ParseNVUEQoS, "junos extensive": ParseJunosExtensive, "junos queue": ParseJunosQueue,
	}
	for name, parse := range parsers {
		for _, out := range []string{"", "% Invalid command at '^' marker.", `{"unrelated": 1}`, `{"interfaces": [1]`} {
			if s, err := parse([]byte(out), "p1"); err == nil {
				t.Errorf("%s accepted %q: %v", name, out, s)
			}
		}
	}
}

// TestPlatformCommands: each platform's command lines, as the sources
// give them.
func TestPlatformCommands(t *testing.T) {
	want := map[string][]string{
		"nxos":    {"show queuing interface Ethernet1/5 | json", "show queuing pfc-queue interface Ethernet1/5 detail | json"},
		"eos":     {"show interfaces Ethernet5 priority-flow-control counters detail | json", "show priority-flow-control counters watchdog | json", "show qos interfaces ecn counters queue | json", "show interfaces counters queue detail | json"},
		"cumulus": {"nv show interface swp5 counters qos -o json"},
		"junos":   {"show interfaces et-0/0/24 extensive | display json", "show interfaces queue et-0/0/24 | display json"},
	}
	port := map[string]string{"nxos": "Ethernet1/5", "eos": "Ethernet5", "cumulus": "swp5", "junos": "et-0/0/24"}
	if got := strings.Join(Platforms(), ","); got != "cumulus,eos,junos,nxos" {
		t.Fatalf("platforms %s", got)
	}
	for name, lines := range want {
		p, ok := For(name)
		if !ok {
			t.Fatalf("no platform %s", name)
		}
		var got []string
		for _, c := range p.Commands([]string{port[name]}) {
			got = append(got, c.Line)
		}
		if strings.Join(got, "\n") != strings.Join(lines, "\n") {
			t.Errorf("%s commands:\n%s\nwant:\n%s", name, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
	if _, ok := For("sonic"); ok {
		t.Error("sonic reads its counters over gNMI, not show commands")
	}
}

func TestEverySourceCited(t *testing.T) {
	for _, k := range []string{"nxos show queuing interface", "nxos show queuing pfc-queue", "eos show interfaces priority-flow-control counters detail",
		"eos show priority-flow-control counters watchdog", "eos show qos interfaces ecn counters queue", "eos show interfaces counters queue detail",
		"cumulus nv show interface counters qos", "junos show interfaces extensive", "junos show interfaces queue"} {
		if strings.TrimSpace(Sources[k]) == "" {
			t.Errorf("no source for %s", k)
		}
	}
}

// TestDecodeSkipsCLIText: what a CLI prints around the JSON (a Junos
// {master:0} line, the prompt) does not hide it.
func TestDecodeSkipsCLIText(t *testing.T) {
	body := string(fixture(t, "junos_queue.json"))
	for _, out := range []string{
		"{master:0}\n" + body + "\n\n{master:0}\nadmin@leaf1> ",
		"show interfaces queue et-0/0/24 | display json\n" + body,
	} {
		samples, err := ParseJunosQueue([]byte(out), "et-0/0/24")
		if err != nil || got(samples)["et-0/0/24 queue3/drops"] != 6 {
			t.Errorf("%q: %v %v", out[:30], samples, err)
		}
	}
}
