package nxos

import (
	"testing"

	"github.com/rocefab/rocefab/internal/counterstest"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

func TestShowCounters(t *testing.T) {
	counterstest.Parses(t, []counterstest.Case{
		{Name: "nxos queuing", File: "queuing.json", Port: "Ethernet1/5", Parse: ParseNXOSQueuing, Want: map[string]uint64{
			"Ethernet1/5 queue0/tx-packets": 81246, "Ethernet1/5 queue0/drops": 4,
			"Ethernet1/5 queue3/tx-packets": 5520048, "Ethernet1/5 queue3/drops": 0, "Ethernet1/5 queue3/ecn-marked": 35012,
			"Ethernet1/5 pfc0/rx-pause": 0, "Ethernet1/5 pfc0/tx-pause": 0,
			"Ethernet1/5 pfc3/rx-pause": 1204, "Ethernet1/5 pfc3/tx-pause": 77}},
		{Name: "nxos pfc-queue", File: "pfcqueue.json", Port: "Ethernet1/5", Parse: ParseNXOSPFCQueue, Want: map[string]uint64{
			"Ethernet1/5 pfc3/watchdog-storms": 2}},
	})
	counterstest.Refuses(t, map[string]counterstest.Parser{"queuing": ParseNXOSQueuing, "pfc-queue": ParseNXOSPFCQueue})
	for _, c := range ShowCounters([]string{"p1"}) {
		if !counterstest.Cited(ShowCounterSources, c.Line) {
			t.Errorf("%q: no entry in ShowCounterSources", c.Line)
		}
	}
}

// knownCounter: a sample names a counter rocefab labels.
func knownCounter(c string) bool { return counters.Label(c) != c }

func FuzzShowCounters(f *testing.F) {
	counterstest.Fuzz(f, "nxos", knownCounter, []counterstest.Parser{ParseNXOSQueuing, ParseNXOSPFCQueue}, `{"TABLE_module":{"ROW_module":[{"TABLE_queuing_interface":{"ROW_queuing_interface":{"if_name_str":""}}}]}}`)
}
