package probe

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocefab/rocefab/internal/golden"
	nic "github.com/rocefab/rocefab/validators/doctor/counters"
)

// sampleReport has a clean pair, a faulty one and an unreachable one.
func sampleReport() *Report {
	clean := cleanPair()
	clean.To = "host-c"
	bad := cleanPair()
	m := &bad.Measurements
	m.DSCPReceived = map[uint8]int{8: 300}
	remark(8, flowsOf(m.PerFlow, KindData)...)
	m.Received, m.LossPercent = 290, percent(10, 300)
	lose(flowsOf(m.PerFlow, KindData)[0], 10)
	allCE(m)
	m.ECNReceived = map[ECN]int{CE: 290}
	m.CNPsSent, m.CNPsReceived, m.CNPDSCPReceived = 290, 290, map[uint8]int{48: 290}
	m.PathMTU, m.PathMTUReverse = 1500, 1500
	for i := range m.MTUByFlow {
		m.MTUByFlow[i].PathMTU, m.MTUByFlow[i].Lost, m.MTUByFlow[i].Confirmed = 1500, 1504, true
	}
	m.MTUProbes = []SizeProbe{{Size: 1280, Direction: "forward", Passed: true, Flows: 4}, {Size: 1500, Direction: "forward", Passed: true, Flows: 4},
		{Size: 1504, Direction: "forward", Flows: 4, LostOn: fwdPorts}, {Size: 2048, Direction: "forward", Flows: 4, LostOn: fwdPorts},
		{Size: 1280, Direction: "reverse", Passed: true, Flows: 4}, {Size: 1500, Direction: "reverse", Passed: true, Flows: 4},
		{Size: 1504, Direction: "reverse", Flows: 4, LostOn: revPorts}, {Size: 2048, Direction: "reverse", Flows: 4, LostOn: revPorts}}
	gone := PairResult{From: "host-a", To: "host-d", Measurements: Measurements{
		Error: "no probe responder answered at 198.51.100.9:4791 within 2s", IntentMTU: 9000, IPOverhead: 28}}
	rep := NewReport([]PairResult{clean, bad, gone}, DefaultPolicy())
	k := func(port, counter string) nic.Key { return nic.Key{Device: "host-a", Port: port, Counter: counter} }
	rep.HostCounters = []nic.HostReport{
		{Host: "host-a", NICs: []string{"ens1f0np0"}, Ports: []string{"mlx5_0/1"}, Counters: []nic.Change{
			{Key: k("ens1f0np0", "ethtool/rx_prio3_pause"), Label: "priority 3 pause frames received", Kind: nic.KindCongestion, Before: 10, After: 1214, Delta: 1204},
			{Key: k("ens1f0np0", "ethtool/rx_prio3_buf_discard"), Label: "priority 3 packets discarded for lack of receive buffer (rx_prio3_buf_discard)", Kind: nic.KindError, Before: 0, After: 0},
			{Key: k("mlx5_0/1", "hw_counters/np_cnp_sent"), Label: "CNPs sent (np_cnp_sent)", Kind: nic.KindCongestion, Before: 5, After: 295, Delta: 290},
		}},
		{Host: "host-e", NICs: []string{"eth0"}, Counters: []nic.Change{},
			Unavailable: "unavailable on this NIC: eth0 has no RDMA device (so no hw_counters) and no per-priority pause, discard or ECN-mark counters in its ethtool statistics"},
	}
	return rep
}

func TestReportGolden(t *testing.T) {
	rep := sampleReport()
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"report.json", func(b *bytes.Buffer) error { return rep.WriteJSON(b) }},
		{"report.txt", func(b *bytes.Buffer) error { return rep.WriteText(b) }},
		{"report.md", func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }},
	} {
		var b bytes.Buffer
		if err := tc.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", tc.file), b.Bytes())
	}
}

func TestReportJSONShape(t *testing.T) {
	rep := sampleReport()
	if rep.Pass() || rep.FailedPairs() != 2 || rep.Pairs[0].Verdict != VerdictPass {
		t.Fatalf("verdicts: %s, %d failed", rep.Verdict, rep.FailedPairs())
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(bytes.NewReader(b.Bytes()))
	if err != nil || !reflect.DeepEqual(back, rep) {
		t.Fatalf("JSON round trip differs: %v", err)
	}
	// The keys the CLI and users script against.
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	pair := doc["pairs"].([]any)[1].(map[string]any)
	meas := pair["measurements"].(map[string]any)
	for _, k := range []string{"rttMicros", "sent", "received", "lossPercent", "reordered", "duplicates", "icrcErrors",
		"dscpSent", "dscpReceived", "ecnSent", "ecnReceived", "ceFraction", "cnpsReceived", "pathMTU", "reverse"} {
		if _, ok := meas[k]; !ok {
			t.Errorf("measurements lack %q", k)
		}
	}
	for _, k := range []string{"p50", "p90", "p99", "p99.9", "max"} {
		if _, ok := meas["rttMicros"].(map[string]any)[k]; !ok {
			t.Errorf("rttMicros lacks %q", k)
		}
	}
	f := doc["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"code", "severity", "pair", "direction", "packetKind", "flows", "flowsTotal", "measurement", "expected", "message"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding lacks %q", k)
		}
	}
	if doc["schemaVersion"] != "rocefab.io/probe/v1" || pair["from"] != "host-a" || pair["to"] != "host-b" {
		t.Errorf("header: %v %v %v", doc["schemaVersion"], pair["from"], pair["to"])
	}
	b.Reset()
	b.WriteString(`{"schemaVersion":"rocefab.io/probe/v9"}`)
	if _, err := ReadReport(&b); err == nil {
		t.Error("unknown schema version accepted")
	}
}
