package ssh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// TestSharedKnownHostsCache: drivers sharing one parsed known_hosts (as an
// engine's devices do) see a key recorded on first use at once, and still
// refuse a changed key.
func TestSharedKnownHostsCache(t *testing.T) {
	first, _ := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	second, _ := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var files drivers.FileCache
	opt := func(sim *sshsim.Sim, acceptNew bool) drivers.Options {
		o := testOptions(sim, kh, nxosTest, nil)
		o.SSH.AcceptNew, o.Files = acceptNew, &files
		return o
	}

	if err := openErr(t, opt(first, false)); err == nil || !strings.Contains(err.Error(), "unknown host key") {
		t.Fatalf("unknown host with an empty known_hosts: %v", err)
	}
	if err := openErr(t, opt(first, true)); err != nil {
		t.Fatalf("trust on first use: %v", err)
	}
	// The cache held the empty file; the recorded key must be seen now.
	if err := openErr(t, opt(first, false)); err != nil {
		t.Fatalf("recorded key not seen through the shared cache: %v", err)
	}
	if err := openErr(t, opt(second, false)); err == nil || !strings.Contains(err.Error(), "unknown host key") {
		t.Fatalf("another host is still unknown: %v", err)
	}

	// The first device's key changes (replaced device, or an attack).
	line := strings.Replace(second.KnownHostsLine(), knownHostsHost(second), knownHostsHost(first), 1)
	if err := os.WriteFile(kh, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := openErr(t, opt(first, true)); err == nil || !strings.Contains(err.Error(), "CHANGED") {
		t.Fatalf("changed key through the shared cache: %v", err)
	}
}
