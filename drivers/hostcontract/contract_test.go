package hostcontract

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
)

func sampleReport() *HostReport {
	pfc := uint8(0x08)
	return &HostReport{
		Envelope: NewEnvelope(KindHostApply, "gpu07"),
		Desired: &devcfg.HostSettings{Host: "gpu07", NICs: []devcfg.NICSettings{
			{Netdev: "ens1f0np0", MTU: 9000, PFCEnable: &pfc},
		}},
		Settings: []Setting{
			{NIC: "ens1f0np0", Path: "nic/ens1f0np0/mtu", Name: "MTU", Mechanism: "netlink", Want: "9000", Current: "1500", Status: StatusChanged},
			{NIC: "ens1f0np0", Path: "nic/ens1f0np0/pfc/enable", Name: "PFC enable", Mechanism: "dcbnl", Want: "0x08", Status: StatusUnsupported, Message: "operation not supported"},
		},
		Applications: []AppHint{{Name: "NCCL_IB_TC", Value: "106", Why: "DSCP 26 with ECT(0)"}},
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	in := sampleReport()
	in.Summary = Summarise(in.Settings)
	data, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"schemaVersion": "rocefab.io/host/v1"`) || !strings.Contains(string(data), `"kind": "host-apply"`) {
		t.Fatalf("envelope missing:\n%s", data)
	}
	out, err := DecodeHostReport(data, KindHostApply)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	if out.Summary.Changed != 1 || out.Summary.Unsupported != 1 {
		t.Errorf("summary = %+v", out.Summary)
	}
}

func TestEncodeFillsVersion(t *testing.T) {
	r := &HostReport{Envelope: Envelope{Kind: KindHostPlan, Host: "h"}}
	data, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Peek(data); err != nil {
		t.Fatalf("encoded answer does not peek: %v\n%s", err, data)
	}
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		want  Kind
		isErr error
		text  string
	}{
		{"unknown major", `{"schemaVersion":"rocefab.io/host/v2","kind":"host-plan","host":"h"}`, KindHostPlan, ErrSchemaVersion, "host answered rocefab.io/host/v2, this rocefab reads v1"},
		{"foreign schema", `{"schemaVersion":"rocefab.io/validate/v1","kind":"host-plan"}`, "", ErrSchemaVersion, "is not rocefab.io/host/v<major>"},
		{"no major", `{"schemaVersion":"rocefab.io/host/vX","kind":"host-plan"}`, "", ErrSchemaVersion, "has no major number"},
		{"no version", `{"kind":"host-plan","host":"h"}`, "", ErrNotAnswer, "no schemaVersion"},
		{"not json", `bash: line 1: syntax error`, "", ErrNotAnswer, "does not start with a JSON object"},
		{"empty", ``, "", ErrNotAnswer, "does not start"},
		{"wrong kind", `{"schemaVersion":"rocefab.io/host/v1","kind":"doctor","host":"h"}`, KindHostPlan, ErrKind, `got "doctor", want "host-plan"`},
		{"bad body", `{"schemaVersion":"rocefab.io/host/v1","kind":"host-plan","settings":"x"}`, KindHostPlan, ErrNotAnswer, "host-plan answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeHostReport([]byte(tt.data), tt.want)
			if !errors.Is(err, tt.isErr) {
				t.Fatalf("err = %v, want %v", err, tt.isErr)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("err = %q, want it to contain %q", err, tt.text)
			}
		})
	}
}

func TestDecodeAcceptsMinorAndUnknownFields(t *testing.T) {
	data := `{"schemaVersion":"rocefab.io/host/v1.4","kind":"host-plan","host":"h","futureField":{"x":1},"settings":[]}`
	r, err := DecodeHostReport([]byte(data), KindHostPlan)
	if err != nil {
		t.Fatal(err)
	}
	if r.Host != "h" {
		t.Errorf("host = %q", r.Host)
	}
}

type fakeRunner struct {
	res     Result
	err     error
	command string
	stdin   []byte
	host    string
}

func (f *fakeRunner) Run(_ context.Context, host, command string, stdin []byte) (Result, error) {
	f.host, f.command, f.stdin = host, command, stdin
	return f.res, f.err
}

func TestClientPlanSendsIntentAndNeverApplies(t *testing.T) {
	rep := sampleReport()
	rep.Kind = KindHostPlan
	out, _ := Encode(rep)
	fr := &fakeRunner{res: Result{Stdout: out}}
	c := &Client{Runner: fr, Intent: []byte("apiVersion: rocefab.io/v1alpha1\n")}
	got, err := c.Plan(context.Background(), "gpu07")
	if err != nil {
		t.Fatal(err)
	}
	if got.Host != "gpu07" || len(got.Settings) != 2 {
		t.Errorf("report = %+v", got)
	}
	if want := "rocefab host plan --host gpu07 --intent - --output json"; fr.command != want {
		t.Errorf("command = %q, want %q", fr.command, want)
	}
	if strings.Contains(fr.command, "apply") {
		t.Error("plan must never run apply")
	}
	if string(fr.stdin) != "apiVersion: rocefab.io/v1alpha1\n" {
		t.Errorf("stdin = %q", fr.stdin)
	}
}

func TestClientApplyWithPathAndQuoting(t *testing.T) {
	rep := sampleReport()
	out, _ := Encode(rep)
	fr := &fakeRunner{res: Result{Stdout: out, ExitCode: 1}}
	c := &Client{Runner: fr, Binary: "/opt/rocefab bin/rocefab", IntentPath: "/etc/rocefab/fabric.yaml"}
	got, err := c.Apply(context.Background(), "gpu07")
	if err != nil {
		t.Fatalf("a failed apply that answered JSON is a report, not an error: %v", err)
	}
	if !strings.HasPrefix(fr.command, "'/opt/rocefab bin/rocefab' host apply --host gpu07 --intent /etc/rocefab/fabric.yaml") {
		t.Errorf("command = %q", fr.command)
	}
	if fr.stdin != nil {
		t.Errorf("stdin should be empty with an intent path, got %q", fr.stdin)
	}
	if got.Kind != KindHostApply {
		t.Errorf("kind = %q", got.Kind)
	}
}

func TestClientErrors(t *testing.T) {
	tests := []struct {
		name  string
		res   Result
		err   error
		isErr error
		text  string
	}{
		{"not installed 127", Result{Stderr: []byte("bash: line 1: rocefab: command not found\n"), ExitCode: 127}, nil, ErrNotInstalled, "rocefab not found on gpu07: install it with"},
		{"not installed sh", Result{Stderr: []byte("sh: 1: rocefab: not found\n"), ExitCode: 127}, nil, ErrNotInstalled, "rocefab not found on gpu07"},
		{"transport", Result{}, errors.New("ssh: handshake failed"), nil, "gpu07: host plan: ssh: handshake failed"},
		{"garbage with stderr", Result{Stdout: []byte("oops"), Stderr: []byte("Error: unknown flag --intent"), ExitCode: 64}, nil, ErrNotAnswer, "exited 64: Error: unknown flag --intent"},
		{"newer host", Result{Stdout: []byte(`{"schemaVersion":"rocefab.io/host/v3","kind":"host-plan","host":"gpu07"}`)}, nil, ErrSchemaVersion, "v3"},
		{"other host", Result{Stdout: []byte(`{"schemaVersion":"rocefab.io/host/v1","kind":"host-plan","host":"gpu08"}`)}, nil, nil, `answer is for host "gpu08"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{Runner: &fakeRunner{res: tt.res, err: tt.err}, IntentPath: "/etc/rocefab"}
			_, err := c.Plan(context.Background(), "gpu07")
			if err == nil {
				t.Fatal("no error")
			}
			if tt.isErr != nil && !errors.Is(err, tt.isErr) {
				t.Errorf("err = %v, want %v", err, tt.isErr)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("err = %q, want %q", err, tt.text)
			}
		})
	}
}

func TestClientNeedsIntent(t *testing.T) {
	c := &Client{Runner: &fakeRunner{}}
	if _, err := c.Plan(context.Background(), "h"); err == nil || !strings.Contains(err.Error(), "no intent to send") {
		t.Errorf("err = %v", err)
	}
}

func FuzzDecodeHostReport(f *testing.F) {
	good, _ := Encode(sampleReport())
	f.Add(good)
	f.Add([]byte(`{"schemaVersion":"rocefab.io/host/v1.9","kind":"host-plan"}`))
	f.Add([]byte(`{"schemaVersion":"rocefab.io/host/v"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeHostReport(data, "")
		if err != nil {
			return
		}
		// Whatever decodes must re-encode and decode to the same envelope.
		again, err := Encode(r)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		r2, err := DecodeHostReport(again, r.Kind)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if r2.Envelope != r.Envelope {
			t.Fatalf("envelope changed: %+v vs %+v", r.Envelope, r2.Envelope)
		}
	})
}

type otherAnswer struct {
	Envelope
	Checks []string `json:"checks"`
}

func TestEncodeFillsVersionOfEmbeddingTypes(t *testing.T) {
	data, err := Encode(&otherAnswer{Envelope: Envelope{Kind: KindDoctor, Host: "h"}})
	if err != nil {
		t.Fatal(err)
	}
	var back otherAnswer
	if err := Decode(data, KindDoctor, &back); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
}

func TestChanges(t *testing.T) {
	r := &HostReport{Settings: []Setting{
		{Path: "nic/e/mtu", Want: "9000", Current: "1500", Status: StatusPending},
		{Path: "nic/e/app/sel5/26", Want: "3", Current: "absent", Status: StatusChanged},
		{Path: "nic/e/ecn/roce_np/enable/3", Want: "1", Current: "1", Status: StatusOK},
		{Path: "nic/e/pfc/enable", Want: "0x08", Status: StatusUnsupported},
	}}
	got := r.Changes()
	want := []devcfg.Change{
		{Action: devcfg.Modify, Path: "nic/e/mtu", Old: "1500", New: "9000", Disruption: devcfg.TrafficAffecting, Reason: "an MTU change relinks the NIC and drops frames in flight"},
		{Action: devcfg.Add, Path: "nic/e/app/sel5/26", New: "3"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}
