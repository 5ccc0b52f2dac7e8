package ssh

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gliderssh "github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
)

// TestHostContractNeverShowsThePassword: a host whose rocefab fails and
// echoes the login password, on stderr (no JSON answer) or inside its JSON
// answer, hands the central rocefab nothing that holds it: neither the
// client's error nor the decoded report, while the host's message itself
// still comes through.
func TestHostContractNeverShowsThePassword(t *testing.T) {
	const pw = "Host-Pa55word-echoed"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &gliderssh.Server{
		Handler: func(s gliderssh.Session) {
			host := "gpu01"
			if strings.Contains(s.RawCommand(), "gpu02") {
				host = "gpu02"
			}
			switch host {
			case "gpu01": // no answer, the password on stderr
				fmt.Fprintf(s.Stderr(), "error: sudo: password %q is not accepted here\n", pw)
				_ = s.Exit(1)
			default: // a JSON answer whose error repeats it
				out, _ := hostcontract.Encode(&hostcontract.HostReport{Envelope: hostcontract.Envelope{Kind: hostcontract.KindHostApply, Host: host,
					Error: "sysfs: write failed for password " + pw}})
				_, _ = s.Write(out)
				_ = s.Exit(1)
			}
		},
		PasswordHandler: func(_ gliderssh.Context, got string) bool { return got == pw },
	}
	signer := testSigner(t)
	srv.AddHostKey(signer)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	known := filepath.Join(t.TempDir(), "known_hosts")
	line := "[127.0.0.1]:" + fmt.Sprint(ln.Addr().(*net.TCPAddr).Port) + " " + string(gossh.MarshalAuthorizedKey(signer.PublicKey()))
	if err := os.WriteFile(known, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	exec := &Exec{KnownHostsFile: known, Resolve: func(string) (ExecTarget, error) {
		return ExecTarget{Address: ln.Addr().String(), Creds: drivers.Credentials{Username: "ops", Password: pw}}, nil
	}}
	c := &hostcontract.Client{Runner: exec, Intent: []byte("apiVersion: rocefab.io/v1alpha1\n")}
	ctx := context.Background()

	_, err = c.Plan(ctx, "gpu01")
	if err == nil || !strings.Contains(err.Error(), "is not accepted here") {
		t.Fatalf("the host's failure does not come through: %v", err)
	}
	if strings.Contains(err.Error(), pw) {
		t.Errorf("the plan error holds the password: %v", err)
	}
	rep, err := c.Apply(ctx, "gpu02")
	if err != nil {
		t.Fatalf("an answer with an error is a report: %v", err)
	}
	data, _ := json.Marshal(rep)
	if strings.Contains(string(data), pw) {
		t.Errorf("the decoded report holds the password: %s", data)
	}
	if !strings.Contains(rep.Error, "write failed for password "+"<redacted>") {
		t.Errorf("the report's error lost the host's message: %q", rep.Error)
	}
	res, err := exec.Run(ctx, "gpu01", "anything", nil)
	if err != nil || strings.Contains(string(res.Stdout)+string(res.Stderr), pw) || !strings.Contains(string(res.Stderr), "<redacted>") {
		t.Errorf("Run hands back the password: %+v %v", res, err)
	}
}
