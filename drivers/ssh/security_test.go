package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nxos"
)

var nxosTest = treePlatform("nxos", "cisco_nxos", nxos.Dialect)

func openErr(t *testing.T, opt drivers.Options) error {
	t.Helper()
	d, err := New(testCtx(t), opt)
	if err == nil {
		_ = d.Close()
	}
	return err
}

func TestHostKeyPolicy(t *testing.T) {
	other, err := sshsim.Start(sshsim.Options{Personality: sshsim.NXOS, NoAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	cases := []struct {
		name      string
		known     func(sim *sshsim.Sim) string // known_hosts content; "-" for no file
		acceptNew bool
		wantErr   string // "" for success
		recorded  bool   // the sim's key is in the file afterwards
	}{
		{"known key", func(sim *sshsim.Sim) string { return sim.KnownHostsLine() + "\n" }, false, "", true},
		{"unknown host refused", func(*sshsim.Sim) string { return "" }, false, "unknown host key", false},
		{"no known_hosts file refused", func(*sshsim.Sim) string { return "-" }, false, "does not exist", false},
		{"unknown host trusted on first use", func(*sshsim.Sim) string { return "" }, true, "", true},
		{"no file, trusted on first use", func(*sshsim.Sim) string { return "-" }, true, "", true},
		{"changed key refused", func(sim *sshsim.Sim) string {
			return strings.Replace(other.KnownHostsLine(), knownHostsHost(other), knownHostsHost(sim), 1) + "\n"
		}, false, "CHANGED", false},
		{"changed key refused even with accept-new", func(sim *sshsim.Sim) string {
			return strings.Replace(other.KnownHostsLine(), knownHostsHost(other), knownHostsHost(sim), 1) + "\n"
		}, true, "CHANGED", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim, _ := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
			kh := filepath.Join(t.TempDir(), "ssh", "known_hosts")
			if content := tc.known(sim); content != "-" {
				if err := os.MkdirAll(filepath.Dir(kh), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(kh, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opt := testOptions(sim, kh, nxosTest, nil)
			opt.SSH.AcceptNew = tc.acceptNew
			err := openErr(t, opt)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("want success, got %v", err)
			case tc.wantErr != "":
				if !errors.Is(err, drivers.ErrTrust) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want ErrTrust %q, got %v", tc.wantErr, err)
				}
				if sim.AuthAttempts() != 0 {
					t.Fatal("credentials were offered to an untrusted host")
				}
			}
			content, _ := os.ReadFile(kh)
			if got := strings.Contains(string(content), sim.KnownHostsLine()[len(knownHostsHost(sim)):]); got != tc.recorded {
				t.Fatalf("sim key recorded in known_hosts = %v, want %v:\n%s", got, tc.recorded, content)
			}
			if tc.acceptNew && tc.wantErr == "" {
				// Trusted once, it is now simply known.
				opt.SSH.AcceptNew = false
				if err := openErr(t, opt); err != nil {
					t.Fatalf("reconnect with the recorded key: %v", err)
				}
				if info, err := os.Stat(kh); err != nil || info.Mode().Perm()&0o077 != 0 {
					t.Fatalf("known_hosts must be private: %v %v", info.Mode(), err)
				}
			}
		})
	}
}

// knownHostsHost is the host field of the sim's known_hosts line.
func knownHostsHost(sim *sshsim.Sim) string {
	h, _, _ := strings.Cut(sim.KnownHostsLine(), " ")
	return h
}

func TestAuthenticationFailures(t *testing.T) {
	cases := []struct {
		name   string
		faults sshsim.Faults
		pw     string
	}{
		{"wrong password", sshsim.Faults{}, "not-the-password"},
		{"device refuses", sshsim.Faults{RefuseAuth: true}, testPassword},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim, kh := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
			sim.SetFaults(tc.faults)
			opt := testOptions(sim, kh, nxosTest, nil)
			opt.Creds.Password = tc.pw
			opt.Retries = 3
			err := openErr(t, opt)
			if !errors.Is(err, drivers.ErrAuth) {
				t.Fatalf("want ErrAuth, got %v", err)
			}
			if errors.Is(err, drivers.ErrTransient) {
				t.Fatal("an authentication failure must not be transient")
			}
			if !strings.Contains(err.Error(), "leaf1") || !strings.Contains(err.Error(), "credentials") {
				t.Errorf("unclear message: %v", err)
			}
			if n := sim.AuthAttempts(); n != 1 {
				t.Fatalf("authentication tried %d times; it must not be retried", n)
			}
		})
	}
}

func TestPublicKeyAuthentication(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	otherBlock, _ := gossh.MarshalPrivateKey(otherPriv, "")
	otherFile := filepath.Join(t.TempDir(), "id_other")
	if err := os.WriteFile(otherFile, pem.EncodeToMemory(otherBlock), 0o600); err != nil {
		t.Fatal(err)
	}

	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.EOS, Username: testUser, AuthorizedKeys: []gossh.PublicKey{sshPub}})
	opt := testOptions(sim, kh, treePlatform("eos", "arista_eos", eos.Dialect), nil)
	opt.Creds.Password = ""
	opt.SSH.IdentityFile = keyFile
	d := open(t, opt)
	if _, err := d.Fetch(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	opt.SSH.IdentityFile = otherFile
	if err := openErr(t, opt); !errors.Is(err, drivers.ErrAuth) {
		t.Fatalf("an unauthorised key: want ErrAuth, got %v", err)
	}
}

// TestSecretsNeverLogged runs a full session (login, enable password typed
// in-band, push, fetch) and a failed login at debug level, and greps every
// log entry and error for the password.
func TestSecretsNeverLogged(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	log := zap.New(core)
	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.EOS, EnableSecret: testPassword})
	opt := testOptions(sim, kh, treePlatform("eos", "arista_eos", eos.Dialect), log)
	d := open(t, opt)
	ctx := testCtx(t)
	if _, err := d.Push(ctx, devcfg.Patch{Lines: []string{"interface Ethernet3", "mtu 9214", "exit"}}, drivers.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	typed := false
	for _, l := range sim.Received() {
		typed = typed || l == "<secret>"
	}
	if !typed {
		t.Fatal("the enable password was never typed: the test proves nothing")
	}
	bad := opt
	bad.Creds.Password = testPassword + "-wrong"
	err := openErr(t, bad)
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	if logs.Len() == 0 {
		t.Fatal("nothing was logged: the test proves nothing")
	}
	for _, e := range logs.All() {
		text := e.Message
		for k, v := range e.ContextMap() {
			text += " " + k + "=" + toString(v)
		}
		if strings.Contains(text, testPassword) {
			t.Fatalf("password in log entry: %s", text)
		}
	}
	if strings.Contains(err.Error(), testPassword) {
		t.Fatalf("password in error: %v", err)
	}
	if s := opt.Creds.String(); strings.Contains(s, testPassword) {
		t.Fatalf("credentials print the password: %s", s)
	}
}

func toString(v any) string { return fmt.Sprint(v) }

// closedAddress is a loopback address where nothing listens.
func closedAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestMissingKnownHostsFile: without a known_hosts file the error says the
// file does not exist and how to create it, names the key the device
// presented, and leaves no file behind.
func TestMissingKnownHostsFile(t *testing.T) {
	sim, _ := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	kh := filepath.Join(t.TempDir(), "ssh", "known_hosts")
	err := openErr(t, testOptions(sim, kh, nxosTest, nil))
	if !errors.Is(err, drivers.ErrTrust) || errors.Is(err, drivers.ErrUnreachable) {
		t.Fatalf("want ErrTrust, got %v", err)
	}
	pub, _, _, _, perr := gossh.ParseAuthorizedKey([]byte(strings.TrimPrefix(sim.KnownHostsLine(), knownHostsHost(sim)+" ")))
	if perr != nil {
		t.Fatal(perr)
	}
	host, port, _ := net.SplitHostPort(sim.Addr())
	for _, want := range []string{"known_hosts file " + kh + " does not exist", gossh.FingerprintSHA256(pub),
		"ssh-keyscan -p " + port + " " + host + " >> " + kh, "--known-hosts", "--ssh-accept-new"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "not in "+kh) {
		t.Errorf("error says the key is not in a file that does not exist:\n%v", err)
	}
	if sim.AuthAttempts() != 0 {
		t.Error("credentials were offered to an unverified host")
	}
	if _, err := os.Stat(kh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("known_hosts created without --ssh-accept-new: %v", err)
	}
}

// TestUnreachableWithoutKnownHosts: a device that refuses the TCP
// connection is unreachable, whether or not its known_hosts file exists;
// host-key trust only comes into question once it answers.
func TestUnreachableWithoutKnownHosts(t *testing.T) {
	addr := closedAddress(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		known string
	}{
		{"no known_hosts file", filepath.Join(dir, "missing", "known_hosts")},
		{"empty known_hosts file", filepath.Join(dir, "empty_known_hosts")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.known, "empty") {
				if err := os.WriteFile(tc.known, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opt := drivers.Options{Device: "gone", Address: addr, Platform: nxosTest, SSH: drivers.SSHOptions{KnownHostsFile: tc.known},
				Timeout: 5 * time.Second, Retries: 1, Backoff: 10 * time.Millisecond}.WithDefaults()
			err := openErr(t, opt)
			if !errors.Is(err, drivers.ErrUnreachable) || errors.Is(err, drivers.ErrTrust) {
				t.Fatalf("driver: want ErrUnreachable (not ErrTrust), got %v", err)
			}
			e := &Exec{KnownHostsFile: tc.known, Timeout: 5 * time.Second, Resolve: func(string) (ExecTarget, error) {
				return ExecTarget{Address: addr, Creds: drivers.Credentials{Username: "ops", Password: "pw"}}, nil
			}}
			_, err = e.Run(testCtx(t), "gpu-gone", "true", nil)
			if !errors.Is(err, drivers.ErrUnreachable) || errors.Is(err, drivers.ErrTrust) {
				t.Fatalf("exec: want ErrUnreachable (not ErrTrust), got %v", err)
			}
		})
	}
}
