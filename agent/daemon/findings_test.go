package daemon

import (
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/cabling"
	"github.com/rocefab/rocefab/validators/consistency"
	"github.com/rocefab/rocefab/validators/doctor"
	"github.com/rocefab/rocefab/validators/lint"
	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// decodeGolden reads a producer's JSON report golden into v.
func decodeGolden(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestEveryProducerOneFinding: every source's findings carry a code and a
// valid severity in the shared shape, and come out through the one path
// the agent has for them: a run's JSON, the status page and a webhook.
func TestEveryProducerOneFinding(t *testing.T) {
	for _, tc := range []struct {
		source finding.Source
		get    func(t *testing.T) []finding.Finding
	}{
		{finding.SourceLint, func(t *testing.T) []finding.Finding {
			reg := all.Renderers()
			var fs []finding.Finding
			for _, f := range []string{"RF001.yaml", "RF101.yaml", "RF120.yaml"} {
				_, diags := lint.Validate(reg, "../../examples/broken/"+f)
				fs = append(fs, diags.Findings()...)
			}
			return fs
		}},
		{finding.SourceConsistency, func(t *testing.T) []finding.Finding {
			pfc := uint8(0x01)
			fs := consistency.Check(consistency.HostNIC{Host: "gpu01", NIC: devcfg.NICSettings{Netdev: "ens1f0", MTU: 1500,
				PFCEnable: &pfc, Trust: "pcp"}},
				consistency.SwitchPort{Switch: "leaf1", Port: "Ethernet1", Mode: "routed", MTU: 9216,
					Policy: intent.Policy{NoDropPriority: 3, RoCEDSCP: []int{26}, Trust: "dscp", CNPDSCP: 48}})
			return finding.All(fs)
		}},
		{finding.SourceDoctor, func(t *testing.T) []finding.Finding {
			r := doctor.NewReport("gpu01")
			r.Add(doctor.Result{Check: doctor.CheckMTU, Subject: "ens1f0", Status: doctor.Fail, Message: "MTU 1500, RoCE needs 9000", Fix: "ip link set ens1f0 mtu 9000"})
			r.Add(doctor.Result{Check: doctor.CheckPause, Subject: "ens1f0", Status: doctor.Warn, Message: "link pause is on"})
			r.Add(doctor.Result{Check: doctor.CheckGID, Subject: "mlx5_0", Status: doctor.Pass, Message: "RoCE v2 GID present"})
			return r.Findings()
		}},
		{finding.SourceCabling, func(t *testing.T) []finding.Finding {
			var r cabling.Report
			decodeGolden(t, "../../validators/cabling/testdata/report.json", &r)
			fs := finding.All(r.Findings)
			dcbx := []cabling.DCBXFinding{{Device: "leaf1", Port: "Ethernet1", TLV: "pfc", Message: "the neighbour enables PFC on 4, the intent on 3"}}
			return append(fs, finding.All(dcbx)...)
		}},
		{finding.SourceProbe, func(t *testing.T) []finding.Finding {
			var r probe.Report
			decodeGolden(t, "../../validators/probe/testdata/report.json", &r)
			fs := finding.All(r.Findings)
			pair := probe.PairResult{From: "gpu01", To: "gpu02"}
			return append(fs, finding.All(probe.Evaluate(pair, probe.Policy{}))...)
		}},
		{finding.SourceLocalize, func(t *testing.T) []finding.Finding {
			var r localize.Result
			decodeGolden(t, "../../validators/localize/testdata/report.json", &r)
			return finding.All(r.Findings)
		}},
		{finding.SourceTelemetry, func(t *testing.T) []finding.Finding {
			now := time.Unix(1_800_000_000, 0).UTC()
			fs := []telemetry.Finding{
				{Code: telemetry.CodePFCStorm, Severity: telemetry.SeverityError, Subject: telemetry.Subject{Device: "leaf1", Port: "Ethernet2", Priority: 3},
					Message: "the PFC watchdog detected 3 storm(s)", Where: intent.Loc{File: "fabric.yaml", Line: 9, Col: 5},
					Evidence: []telemetry.Evidence{{Name: "storms", Value: 3}}, FirstSeen: now, LastSeen: now, Rounds: 1},
				{Code: telemetry.CodeRetransmits, Severity: telemetry.SeverityWarning, Subject: telemetry.Subject{Device: "gpu01", Port: "ens1f0", Priority: telemetry.NoPriority},
					Message: "retransmits", FirstSeen: now, LastSeen: now, Rounds: 2},
			}
			return finding.All(fs)
		}},
		{finding.SourcePlan, func(t *testing.T) []finding.Finding {
			p := compliance.Plan{Devices: []compliance.DevicePlan{
				{Device: "leaf1", Status: compliance.StatusDrifted, Changes: []devcfg.Change{{Action: devcfg.Modify, Path: "mtu", Old: "1500", New: "9216", Effect: devcfg.EffectBreaks}}},
				{Device: "leaf2", Status: compliance.StatusConflict, Conflicts: []devcfg.Conflict{{Singleton: "qos map", Held: "other", Want: "rocefab"}}},
				{Device: "leaf3", Status: compliance.StatusUnreachable, Error: "dial tcp: timeout"},
				{Device: "leaf4", Status: compliance.StatusChanges, Changes: []devcfg.Change{{Action: devcfg.Add, Path: "pfc"}}},
			}}
			return p.Findings()
		}},
	} {
		t.Run(string(tc.source), func(t *testing.T) {
			fs := tc.get(t)
			if len(fs) == 0 {
				t.Fatal("the producer found nothing")
			}
			if err := finding.Check(fs); err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.Source != tc.source {
					t.Errorf("%s: source %q", f, f.Source)
				}
			}
			// A run's JSON: code and severity as words, and back.
			run := history.Run{Kind: history.KindProbe, Findings: fs}
			b, err := json.Marshal(&run)
			if err != nil {
				t.Fatal(err)
			}
			var back history.Run
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			b2, _ := json.Marshal(&back)
			if string(b) != string(b2) {
				t.Errorf("run JSON does not round-trip:\n%s\n%s", b, b2)
			}
			var raw struct {
				Findings []map[string]any `json:"findings"`
			}
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			for i, m := range raw.Findings {
				sev, _ := m["severity"].(string)
				if _, err := finding.ParseSeverity(sev); err != nil || m["code"] == "" || m["source"] != string(tc.source) {
					t.Errorf("finding %d in JSON: %v (%v)", i, m, err)
				}
			}
			for _, f := range fs {
				pf := pageFindingOf(string(tc.source), f)
				if pf.Code != string(f.Code) || pf.Severity != f.Severity.String() || pf.Message != f.Message {
					t.Errorf("page finding %+v of %s", pf, f)
				}
				if (f.Severity >= finding.Warning) != (pf.Class == "bad" || pf.Class == "warn") {
					t.Errorf("page class %q for %s", pf.Class, f.Severity)
				}
				fc := notify.NewFindingChange(notify.FindingRaised, f)
				want := map[finding.Severity]string{finding.Info: notify.SeverityInfo, finding.Warning: notify.SeverityWarning,
					finding.Error: notify.SeverityCritical, finding.Critical: notify.SeverityCritical}[f.Severity]
				if fc.Code != string(f.Code) || fc.Severity != want || !strings.Contains(fc.Message, f.Message) {
					t.Errorf("webhook change %+v of %s", fc, f)
				}
			}
		})
	}
}

// TestFindingsMetric: rocefab_findings counts the last run of each kind
// and the active counter findings with the same labels, and a later run
// of a kind replaces its counts.
func TestFindingsMetric(t *testing.T) {
	f := newFixture(t, 0)
	a, err := New(f.config(), f.deps())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	a.watch.active = []telemetry.Finding{{Code: telemetry.CodePFCStorm, Severity: telemetry.SeverityError,
		Subject: telemetry.Subject{Device: "leaf1", Port: "Ethernet1", Priority: 3}, Message: "storm"}}
	loss := finding.Finding{Source: finding.SourceProbe, Code: probe.CodeLoss, Severity: finding.Error, Message: "loss"}
	lintF := finding.Finding{Source: finding.SourceLint, Code: "RF101", Severity: finding.Error, Message: "vlan"}
	a.metrics.observeRun(&history.Run{Kind: history.KindProbe, Findings: []finding.Finding{loss, loss}})
	a.metrics.observeRun(&history.Run{Kind: history.KindReload, Findings: []finding.Finding{lintF}})
	a.metrics.observeRun(&history.Run{Kind: history.KindPlan, Findings: []finding.Finding{lintF}}) // not a findings kind
	got := func() map[string]float64 {
		mfs, err := a.metrics.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, mf := range mfs {
			if mf.GetName() != "rocefab_findings" {
				continue
			}
			for _, m := range mf.GetMetric() {
				l := map[string]string{}
				for _, p := range m.GetLabel() {
					l[p.GetName()] = p.GetValue()
				}
				out[l["source"]+"/"+l["code"]+"/"+l["severity"]] = m.GetGauge().GetValue()
			}
		}
		return out
	}
	want := map[string]float64{"probe/loss/error": 2, "lint/RF101/error": 1, "telemetry/pfc_storm/error": 1}
	if g := got(); !maps.Equal(g, want) {
		t.Errorf("rocefab_findings = %v, want %v", g, want)
	}
	a.metrics.observeRun(&history.Run{Kind: history.KindProbe})
	delete(want, "probe/loss/error")
	if g := got(); !maps.Equal(g, want) {
		t.Errorf("after a clean probe run: %v, want %v", g, want)
	}
}

// TestSeverityMapping pins how each source's own scale maps onto the
// shared one, as docs/agent.md and package finding describe it.
func TestSeverityMapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  finding.Severity
		want finding.Severity
	}{
		{"intent error", intent.SeverityError.Finding(), finding.Error},
		{"intent warning", intent.SeverityWarning.Finding(), finding.Warning},
		{"consistency error", consistency.Finding{Code: "mtu", Severity: consistency.Error, Message: "m"}.AsFinding().Severity, finding.Error},
		{"consistency warning", consistency.Finding{Code: "mtu", Severity: consistency.Warning, Message: "m"}.AsFinding().Severity, finding.Warning},
		{"doctor fail", doctor.Fail.Finding(), finding.Error},
		{"doctor warn", doctor.Warn.Finding(), finding.Warning},
		{"doctor pass", doctor.Pass.Finding(), finding.Info},
		{"cabling miscabled", cabling.Finding{Status: cabling.Miscabled}.AsFinding().Severity, finding.Error},
		{"cabling missing", cabling.Finding{Status: cabling.Missing}.AsFinding().Severity, finding.Warning},
		{"cabling unexpected", cabling.Finding{Status: cabling.Unexpected}.AsFinding().Severity, finding.Warning},
		{"cabling unread", cabling.Finding{Status: cabling.Unread}.AsFinding().Severity, finding.Warning},
		{"cabling verified", cabling.Finding{Status: cabling.Verified}.AsFinding().Severity, finding.Info},
		{"probe error", probe.SeverityError.Finding(), finding.Error},
		{"probe warning", probe.SeverityWarning.Finding(), finding.Warning},
		{"probe info", probe.SeverityInfo.Finding(), finding.Info},
		{"localize localized", localize.Finding{Class: localize.Loss, Status: localize.Localized}.AsFinding().Severity, finding.Error},
		{"localize CE", localize.Finding{Class: localize.CE, Status: localize.Localized}.AsFinding().Severity, finding.Warning},
		{"localize inconclusive", localize.Finding{Class: localize.Loss, Status: localize.Inconclusive}.AsFinding().Severity, finding.Warning},
		{"telemetry error", telemetry.SeverityError.Finding(), finding.Error},
		{"telemetry warning", telemetry.SeverityWarning.Finding(), finding.Warning},
		{"mesh critical", notifySeverity(notify.SeverityCritical), finding.Critical},
		{"mesh warning", notifySeverity(notify.SeverityWarning), finding.Warning},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}
