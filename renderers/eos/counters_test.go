package eos

import (
	"testing"

	"github.com/rocefab/rocefab/internal/counterstest"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

func TestShowCounters(t *testing.T) {
	counterstest.Parses(t, []counterstest.Case{
		{Name: "eos pfc detail", File: "pfc_detail.json", Port: "Ethernet5", Parse: ParseEOSPFCDetail, Want: map[string]uint64{
			"Ethernet5 pfc0/rx-pause": 0, "Ethernet5 pfc0/tx-pause": 0, "Ethernet5 pfc3/rx-pause": 1204, "Ethernet5 pfc3/tx-pause": 77,
			"Ethernet5 pfc4/rx-pause": 9, "Ethernet5 pfc4/tx-pause": 0}},
		{Name: "eos watchdog", File: "watchdog.json", Port: "", Parse: ParseEOSWatchdog, Want: map[string]uint64{"Ethernet5 pfc3/watchdog-storms": 2}},
		{Name: "eos ecn", File: "ecn.json", Port: "", Parse: ParseEOSECN, Want: map[string]uint64{
			"Ethernet5 queue3/ecn-marked": 35012, "Ethernet5 queue4/ecn-marked": 0, "Ethernet6 queue3/ecn-marked": 0}},
		{Name: "eos queue detail", File: "queue_detail.json", Port: "", Parse: ParseEOSQueueDetail, Want: map[string]uint64{
			"Ethernet5 queue0/drops": 0, "Ethernet5 queue3/drops": 6}},
	})
	counterstest.Refuses(t, map[string]counterstest.Parser{"pfc": ParseEOSPFCDetail, "watchdog": ParseEOSWatchdog, "ecn": ParseEOSECN, "queue": ParseEOSQueueDetail})
	for _, c := range ShowCounters([]string{"p1"}) {
		if !counterstest.Cited(ShowCounterSources, c.Line) {
			t.Errorf("%q: no entry in ShowCounterSources", c.Line)
		}
	}
}

// knownCounter: a sample names a counter rocefab labels.
func knownCounter(c string) bool { return counters.Label(c) != c }

func FuzzShowCounters(f *testing.F) {
	counterstest.Fuzz(f, "eos", knownCounter, []counterstest.Parser{ParseEOSPFCDetail, ParseEOSWatchdog, ParseEOSECN, ParseEOSQueueDetail})
}
