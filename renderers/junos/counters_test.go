package junos

import (
	"testing"

	"github.com/rocefab/rocefab/internal/counterstest"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

func TestShowCounters(t *testing.T) {
	counterstest.Parses(t, []counterstest.Case{
		{Name: "junos extensive", File: "extensive.json", Port: "et-0/0/24", Parse: ParseJunosExtensive, Want: map[string]uint64{
			"et-0/0/24 pfc0/rx-pause": 0, "et-0/0/24 pfc0/tx-pause": 0, "et-0/0/24 pfc3/rx-pause": 1204, "et-0/0/24 pfc3/tx-pause": 77,
			"et-0/0/24 mac/rx-pause": 0, "et-0/0/24 mac/tx-pause": 0}},
		{Name: "junos queue", File: "queue.json", Port: "et-0/0/24", Parse: ParseJunosQueue, Want: map[string]uint64{
			"et-0/0/24 queue0/tx-packets": 29689243233, "et-0/0/24 queue0/drops": 0,
			"et-0/0/24 queue3/tx-packets": 5520025, "et-0/0/24 queue3/drops": 6}},
	})
	counterstest.Refuses(t, map[string]counterstest.Parser{"extensive": ParseJunosExtensive, "queue": ParseJunosQueue})
	for _, c := range ShowCounters([]string{"p1"}) {
		if !counterstest.Cited(ShowCounterSources, c.Line) {
			t.Errorf("%q: no entry in ShowCounterSources", c.Line)
		}
	}
}

// knownCounter: a sample names a counter rocefab labels.
func knownCounter(c string) bool { return counters.Label(c) != c }

func FuzzShowCounters(f *testing.F) {
	counterstest.Fuzz(f, "junos", knownCounter, []counterstest.Parser{ParseJunosExtensive, ParseJunosQueue}, `{"interface-information":[{"physical-interface":[{"name":[{"data":7}]}]}]}`)
}

// TestDecodeSkipsCLIText: what a CLI prints around the JSON (a Junos
// {master:0} line, the prompt) does not hide it.
func TestDecodeSkipsCLIText(t *testing.T) {
	body := string(counterstest.Fixture(t, "queue.json"))
	for _, out := range []string{
		"{master:0}\n" + body + "\n\n{master:0}\nadmin@leaf1> ",
		"show interfaces queue et-0/0/24 | display json\n" + body,
	} {
		samples, err := ParseJunosQueue([]byte(out), "et-0/0/24")
		if err != nil || counterstest.Got(samples)["et-0/0/24 queue3/drops"] != 6 {
			t.Errorf("%q: %v %v", out[:30], samples, err)
		}
	}
}
