package finding

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestSeverityText(t *testing.T) {
	for _, tc := range []struct {
		s    Severity
		text string
	}{{Info, "info"}, {Warning, "warning"}, {Error, "error"}, {Critical, "critical"}, {0, ""}} {
		b, err := tc.s.MarshalText()
		if err != nil || string(b) != tc.text {
			t.Errorf("%d: MarshalText = %q, %v; want %q", tc.s, b, err, tc.text)
		}
		var back Severity
		if err := back.UnmarshalText(b); err != nil || back != tc.s {
			t.Errorf("%q: UnmarshalText = %v, %v", b, back, err)
		}
	}
	if _, err := Severity(9).MarshalText(); err == nil {
		t.Error("severity 9 marshalled")
	}
	var s Severity
	if err := s.UnmarshalText([]byte("fatal")); err == nil {
		t.Error("fatal parsed")
	}
	if !(Info < Warning && Warning < Error && Error < Critical) || Severity(0).Valid() {
		t.Error("severities out of order")
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Finding
		want string
	}{
		{"lint", Finding{Source: SourceLint, Code: "R012", Severity: Warning, Message: "m", Where: "fabric.yaml:3:5 policy"},
			`{"source":"lint","code":"R012","severity":"warning","message":"m","where":"fabric.yaml:3:5 policy"}`},
		{"telemetry", Finding{Source: SourceTelemetry, Code: "pfc_storm", Severity: Error,
			Subject: Subject{Device: "leaf1", Port: "Ethernet8", Priority: Prio(0)}, Message: "m",
			Evidence: []Evidence{{Name: "pauses", Value: 12, Unit: "frames"}}},
			`{"source":"telemetry","code":"pfc_storm","severity":"error","subject":{"device":"leaf1","port":"Ethernet8","priority":0},"message":"m","evidence":[{"name":"pauses","value":12,"unit":"frames"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.f)
			if err != nil || string(b) != tc.want {
				t.Fatalf("got %s, %v\nwant %s", b, err, tc.want)
			}
			var back Finding
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			b2, _ := json.Marshal(back)
			if string(b2) != tc.want {
				t.Errorf("round trip %s", b2)
			}
		})
	}
	// An old run record (severity a word, where a string) still reads.
	var old Finding
	if err := json.Unmarshal([]byte(`{"code":"loss","severity":"critical","where":"a -> b","message":"m"}`), &old); err != nil ||
		old.Severity != Critical || old.Where != "a -> b" {
		t.Errorf("old record: %+v, %v", old, err)
	}
}

func TestSubjectString(t *testing.T) {
	for _, tc := range []struct {
		s    Subject
		want string
	}{
		{Subject{}, ""},
		{Subject{Device: "leaf1", Port: "Ethernet8", Priority: Prio(3)}, "leaf1 Ethernet8 priority 3"},
		{Subject{Device: "gpu01", Port: "mlx5_0", Peer: "leaf1", PeerPort: "Ethernet8"}, "gpu01 mlx5_0 ↔ leaf1 Ethernet8"},
		{Subject{Pair: "gpu01 -> gpu02", Direction: "forward"}, "gpu01 -> gpu02 forward"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
		if tc.s.IsZero() != (tc.want == "") {
			t.Errorf("%+v: IsZero %v", tc.s, tc.s.IsZero())
		}
	}
}

func TestSortFilterMax(t *testing.T) {
	fs := []Finding{
		{Source: SourceProbe, Code: "loss", Severity: Warning, Message: "b", Subject: Subject{Pair: "b"}},
		{Source: SourceLint, Code: "R1", Severity: Error, Message: "a"},
		{Source: SourceDoctor, Code: "link.mtu", Severity: Info, Message: "c"},
		{Source: SourceProbe, Code: "loss", Severity: Warning, Message: "a", Subject: Subject{Pair: "a"}},
		{Source: SourceTelemetry, Code: "pfc_storm", Severity: Critical, Message: "d"},
	}
	Sort(fs)
	var got []string
	for _, f := range fs {
		got = append(got, string(f.Code)+"/"+f.Message)
	}
	if want := []string{"pfc_storm/d", "R1/a", "loss/a", "loss/b", "link.mtu/c"}; !slices.Equal(got, want) {
		t.Errorf("Sort: %v, want %v", got, want)
	}
	if n := len(AtLeast(fs, Error)); n != 2 {
		t.Errorf("AtLeast(Error) = %d findings, want 2", n)
	}
	if m := Max(fs); m != Critical {
		t.Errorf("Max = %s", m)
	}
	if m := Max(nil); m != 0 {
		t.Errorf("Max(nil) = %s", m)
	}
	if c := Count(fs); c[Warning] != 2 || c[Info] != 1 || c[Error] != 1 || c[Critical] != 1 {
		t.Errorf("Count = %v", c)
	}
	if err := Check(fs); err != nil {
		t.Error(err)
	}
	for _, bad := range []Finding{{Severity: Error, Message: "m"}, {Code: "x", Message: "m"}, {Code: "x", Severity: Info}} {
		if err := Check([]Finding{bad}); err == nil {
			t.Errorf("Check(%+v) passed", bad)
		}
	}
	l := Finding{Source: SourceTelemetry, Code: "pfc_storm", Severity: Error, Subject: Subject{Device: "d", Port: "p", Priority: Prio(3)}}.Labels()
	if strings.Join(l, ",") != "telemetry,pfc_storm,error,d,p,3" || len(l) != len(LabelNames) {
		t.Errorf("Labels = %v", l)
	}
}
