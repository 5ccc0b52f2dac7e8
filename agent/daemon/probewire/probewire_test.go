package probewire

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/agent/daemon"
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

func TestPolicyFor(t *testing.T) {
	res := basic(t, nil)
	p := PolicyFor(res)
	want := probe.DefaultPolicy()
	want.RoCEDSCP, want.CNPDSCP, want.HostMTU, want.Profile = 26, 48, 9000, probe.ProfileDCQCN
	want.Count, want.RatePPS, want.MaxLossPercent = 200, 2000, 0
	want.PKey = uint16(intent.DefaultProbePKey) // the fabric's P_Key, which probe serve answers
	if diff := cmp.Diff(want, p); diff != "" {
		t.Fatalf("policy (-want +got):\n%s", diff)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("the probe refuses the policy: %v", err)
	}
}

func names(ts []probe.Target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name+"="+t.Addr.String())
	}
	return out
}

func TestTargets(t *testing.T) {
	res := basic(t, nil)
	listed := basic(t, func(f *intent.Fabric) {
		pairs := "listed"
		f.Probe.Pairs = &pairs
		f.Probe.List = []intent.PairSpec{{From: "gpu01", To: "gpu03"}, {From: "gpu04", To: "gpu01"}, {From: "gpu02", To: "gpu03"}}
	})
	for _, tc := range []struct {
		name string
		res  *intent.Resolved
		owns func(string) bool
		from string
		want []string
	}{
		{"every other host", res, nil, "gpu01", []string{"gpu02=192.0.2.102", "gpu03=192.0.2.103", "gpu04=192.0.2.104"}},
		{"owned only", res, func(n string) bool { return n != "gpu03" }, "gpu01", []string{"gpu02=192.0.2.102", "gpu04=192.0.2.104"}},
		{"listed pairs through this host", listed, nil, "gpu01", []string{"gpu03=192.0.2.103", "gpu04=192.0.2.104"}},
		{"agent off the fabric", res, nil, "mgmt1", []string{"gpu01=192.0.2.101", "gpu02=192.0.2.102", "gpu03=192.0.2.103", "gpu04=192.0.2.104"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Targets(tc.res, tc.owns, tc.from)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Fatalf("targets (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Targets(res, func(string) bool { return false }, "gpu01"); !errors.Is(err, probe.ErrNoTargets) {
		t.Fatalf("no owned host: %v", err)
	}
}

// TestRunnerSummarises: the runner hands the probe the intent's policy and
// targets and keeps the verdict, per-pair loss and RTT, and the findings.
func TestRunnerSummarises(t *testing.T) {
	res := basic(t, nil)
	var got probe.RunConfig
	run := Runner(Options{From: "gpu01", RunDir: "/tmp/x", run: func(_ context.Context, cfg probe.RunConfig) (*probe.Report, error) {
		got = cfg
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
		return probe.NewReport([]probe.PairResult{ok, lossy}, cfg.Policy), nil
	}})
	sum, err := run(context.Background(), res, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.From != "gpu01" || len(got.Targets) != 3 || got.Policy.RoCEDSCP != 26 || got.Endpoint.RunDir != "/tmp/x" || got.Endpoint.Policy.PKey != got.Policy.PKey {
		t.Fatalf("run config %+v", got)
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
		if f.Code == string(probe.CodeLoss) && f.Where == "gpu01 -> gpu03" && f.Severity == "error" && strings.Contains(f.Message, "expected") {
			loss = true
		}
	}
	if !loss {
		t.Fatalf("no loss finding for gpu01 -> gpu03: %+v", sum.Findings)
	}
}
