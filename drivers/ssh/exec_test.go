package ssh

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gliderssh "github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/drivers"
)

// execServer is a tiny SSH server that runs "echo-stdin" (prints its input)
// and "fail N" (exits N), with password auth.
func execServer(t *testing.T) (addr string, hostKey gossh.PublicKey) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &gliderssh.Server{
		Handler: func(s gliderssh.Session) {
			cmd := s.RawCommand()
			switch {
			case cmd == "echo-stdin":
				data, _ := io.ReadAll(s)
				fmt.Fprintf(s, "got:%s", data)
				_ = s.Exit(0)
			case strings.HasPrefix(cmd, "fail "):
				var n int
				fmt.Sscanf(cmd, "fail %d", &n)
				fmt.Fprint(s.Stderr(), "sh: rocefab: not found")
				_ = s.Exit(n)
			default:
				_ = s.Exit(127)
			}
		},
		PasswordHandler: func(_ gliderssh.Context, pw string) bool { return pw == "s3cret" },
	}
	signer := testSigner(t)
	srv.AddHostKey(signer)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String(), signer.PublicKey()
}

func testSigner(t *testing.T) gossh.Signer {
	t.Helper()
	// An ed25519 key from a fixed seed keeps the test deterministic.
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	signer, err := gossh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

func TestExecRunsCommandsOverVerifiedSSH(t *testing.T) {
	addr, key := execServer(t)
	dir := t.TempDir()
	known := filepath.Join(dir, "known_hosts")
	target := func(pw string) func(string) (ExecTarget, error) {
		return func(string) (ExecTarget, error) {
			return ExecTarget{Address: addr, Creds: drivers.Credentials{Username: "ops", Password: pw}}, nil
		}
	}
	ctx := context.Background()

	t.Run("unknown host key is refused", func(t *testing.T) {
		e := &Exec{Resolve: target("s3cret"), KnownHostsFile: known}
		_, err := e.Run(ctx, "gpu01", "echo-stdin", nil)
		if !errors.Is(err, drivers.ErrTrust) || !strings.Contains(err.Error(), "--ssh-accept-new") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("accept-new records the key, then it is trusted", func(t *testing.T) {
		e := &Exec{Resolve: target("s3cret"), KnownHostsFile: known, AcceptNew: true}
		res, err := e.Run(ctx, "gpu01", "echo-stdin", []byte("intent"))
		if err != nil || string(res.Stdout) != "got:intent" || res.ExitCode != 0 {
			t.Fatalf("res %+v err %v", res, err)
		}
		data, _ := os.ReadFile(known)
		if !strings.Contains(string(data), strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key)))) {
			t.Fatalf("known_hosts lacks the key: %s", data)
		}
		strict := &Exec{Resolve: target("s3cret"), KnownHostsFile: known}
		if _, err := strict.Run(ctx, "gpu01", "echo-stdin", nil); err != nil {
			t.Fatalf("a recorded key should be trusted: %v", err)
		}
	})
	t.Run("a failing command reports its exit code, not an error", func(t *testing.T) {
		e := &Exec{Resolve: target("s3cret"), KnownHostsFile: known}
		res, err := e.Run(ctx, "gpu01", "fail 127", nil)
		if err != nil || res.ExitCode != 127 || !strings.Contains(string(res.Stderr), "not found") {
			t.Fatalf("res %+v err %v", res, err)
		}
	})
	t.Run("wrong password is an auth error without the password", func(t *testing.T) {
		e := &Exec{Resolve: target("wrong-pw-123"), KnownHostsFile: known}
		_, err := e.Run(ctx, "gpu01", "echo-stdin", nil)
		if !errors.Is(err, drivers.ErrAuth) || strings.Contains(err.Error(), "wrong-pw-123") {
			t.Fatalf("err = %v", err)
		}
	})
}
