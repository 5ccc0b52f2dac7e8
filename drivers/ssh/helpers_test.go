package ssh

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

const (
	testUser     = "rocefab"
	testPassword = "Tr0ub4dor&3-never-logged"
)

// startSim runs a simulator with password auth and returns it with a
// known_hosts file that trusts it.
func startSim(t testing.TB, opt sshsim.Options) (*sshsim.Sim, string) {
	t.Helper()
	if opt.Username == "" {
		opt.Username, opt.Password = testUser, testPassword
	}
	if opt.Hostname == "" {
		opt.Hostname = "leaf-" + string(opt.Personality)
	}
	sim, err := sshsim.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	kh := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(kh, []byte(sim.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return sim, kh
}

func testOptions(sim *sshsim.Sim, kh string, p devcfg.Platform, log *zap.Logger) drivers.Options {
	if log == nil {
		log = zap.NewNop()
	}
	return drivers.Options{
		Device:   "leaf1",
		Address:  sim.Addr(),
		Platform: p,
		Creds:    drivers.Credentials{Username: testUser, Password: testPassword},
		SSH:      drivers.SSHOptions{KnownHostsFile: kh},
		Timeout:  5 * time.Second,
		Retries:  2,
		Backoff:  20 * time.Millisecond,
		Logger:   log,
	}.WithDefaults()
}

func open(t testing.TB, opt drivers.Options) *Driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := New(ctx, opt)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d.(*Driver)
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// treePlatform is a minimal CLI platform for tests that do not need a real
// renderer: indented running config, "!" comments skipped.
func treePlatform(name, scrapli string, dialect *devcfg.Dialect) devcfg.Platform {
	return devcfg.Platform{
		Name:        name,
		Shape:       devcfg.ShapeTree,
		Scrapli:     scrapli,
		Commit:      devcfg.CommitDialect,
		Dialect:     dialect,
		ShowRunning: "show running-config",
		Syntax:      devcfg.Syntax{Style: devcfg.StyleCLITree, Negate: "no ", Exit: "exit", LineKeys: []string{"mtu "}},
		Parse: func(raw []byte) (*devcfg.Config, error) {
			var keep []string
			for _, l := range strings.Split(string(raw), "\n") {
				if t := strings.TrimSpace(l); t == "end" || strings.HasPrefix(t, "version ") {
					continue
				}
				keep = append(keep, l)
			}
			tree, err := devcfg.ParseIndented(strings.Join(keep, "\n"), "!")
			if err != nil {
				return nil, err
			}
			return &devcfg.Config{Shape: devcfg.ShapeTree, Tree: tree}, nil
		},
	}
}
