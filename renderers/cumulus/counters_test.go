package cumulus

import (
	"testing"

	"github.com/rocefab/rocefab/internal/counterstest"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

func TestShowCounters(t *testing.T) {
	counterstest.Parses(t, []counterstest.Case{
		{Name: "nvue qos", File: "qos.json", Port: "swp5", Parse: ParseNVUEQoS, Want: map[string]uint64{
			"swp5 pfc0/rx-pause": 0, "swp5 pfc0/tx-pause": 0, "swp5 pfc3/rx-pause": 1204, "swp5 pfc3/tx-pause": 77,
			"swp5 queue0/tx-packets": 16, "swp5 queue0/ecn-marked": 0, "swp5 queue0/drops": 0,
			"swp5 queue3/tx-packets": 5520031, "swp5 queue3/ecn-marked": 35012, "swp5 queue3/drops": 6}},
	})
	counterstest.Refuses(t, map[string]counterstest.Parser{"qos": ParseNVUEQoS})
	for _, c := range ShowCounters([]string{"p1"}) {
		if !counterstest.Cited(ShowCounterSources, c.Line) {
			t.Errorf("%q: no entry in ShowCounterSources", c.Line)
		}
	}
}

// knownCounter: a sample names a counter rocefab labels.
func knownCounter(c string) bool { return counters.Label(c) != c }

func FuzzShowCounters(f *testing.F) {
	counterstest.Fuzz(f, "cumulus", knownCounter, []counterstest.Parser{ParseNVUEQoS})
}
