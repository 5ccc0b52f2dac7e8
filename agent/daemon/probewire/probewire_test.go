package probewire

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/probe"
)

func basic(t *testing.T, edit func(*intent.Fabric)) *intent.Resolved {
	t.Helper()
	fab, diags := intent.Load(filepath.Join("..", "..", "..", "examples", "basic"))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if edit != nil {
		edit(fab)
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return res
}

func TestRunnerSummarises(t *testing.T) {
	res := basic(t, nil)
	var got []probe.Target
	run := Runner(proberFunc(func(_ context.Context, _ *intent.Resolved, from *intent.Host, targets []probe.Target, pol probe.Policy) (*probe.Report, error) {
		if from.Name != "gpu01" {
			return probe.NewReport(nil, pol), nil
		}
		got = targets
		ok := probe.PairResult{From: "gpu01", To: "gpu02", Measurements: probe.Measurements{Reachable: true,
			Direction: probe.Direction{Sent: 200, Received: 200, DSCPSent: 26, DSCPReceived: map[uint8]int{26: 200}, ECNSent: probe.ECT0, ECNReceived: map[probe.ECN]int{probe.ECT0: 200}},
			Reverse:   probe.Direction{Sent: 200, Received: 200, DSCPSent: 26, DSCPReceived: map[uint8]int{26: 200}, ECNSent: probe.ECT0, ECNReceived: map[probe.ECN]int{probe.ECT0: 200}},
			RTT:       probe.RTT{Samples: 200, Mean: 12.5, P99: 30}, StatsExchanged: true, PathMTU: 9000, PathMTUReverse: 9000, IntentMTU: 9000}}
		lossy := ok
		lossy.To = "gpu03"
		lossy.Measurements.Direction.Received = 190
		lossy.Measurements.Direction.LossPercent = 5
		lossy.Measurements.Direction.DSCPReceived = map[uint8]int{26: 190}
		lossy.Measurements.Direction.ECNReceived = map[probe.ECN]int{probe.ECT0: 190}
		return probe.NewReport([]probe.PairResult{ok, lossy}, pol), nil
	}), 2)
	sum, err := run(context.Background(), res, func(host string) bool { return host == "gpu01" })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("gpu01 probed nothing")
	}
	if sum.Verdict != daemon.VerdictFail || len(sum.Pairs) != 2 {
		t.Fatalf("summary %+v", sum)
	}
	p0, p1 := sum.Pairs[0], sum.Pairs[1]
	if p0.Verdict != "pass" || p0.RTTMeanMicros != 12.5 || p0.RTTP99Micros != 30 || p0.LossPercent != 0 {
		t.Fatalf("good pair %+v", p0)
	}
	if p1.Verdict != "fail" || p1.LossPercent != 5 {
		t.Fatalf("lossy pair %+v", p1)
	}
	loss := false
	for _, f := range sum.Findings {
		if f.Code == probe.CodeLoss && f.Where == "gpu01 -> gpu03" && f.Severity == finding.Error && strings.Contains(f.Message, "expected") {
			loss = true
		}
	}
	if !loss {
		t.Fatalf("no loss finding for gpu01 -> gpu03: %+v", sum.Findings)
	}
}

type proberFunc func(ctx context.Context, r *intent.Resolved, from *intent.Host, targets []probe.Target, pol probe.Policy) (*probe.Report, error)

func (f proberFunc) Probe(ctx context.Context, r *intent.Resolved, from *intent.Host, targets []probe.Target, pol probe.Policy) (*probe.Report, error) {
	return f(ctx, r, from, targets, pol)
}

func TestRunnerNeedsPairs(t *testing.T) {
	res := basic(t, nil)
	run := Runner(proberFunc(nil), 1)
	if _, err := run(context.Background(), res, func(string) bool { return false }); !errors.Is(err, probe.ErrNoTargets) {
		t.Fatalf("err = %v", err)
	}
}
