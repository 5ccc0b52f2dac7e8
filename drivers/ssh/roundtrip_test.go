package ssh_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/drivers/ssh"
	"github.com/rocefab/rocefab/internal/examplestest"
	"github.com/rocefab/rocefab/internal/golden"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/all"
)

// basic renders one switch of examples/basic with its real renderer.
func basic(t testing.TB, name string) (*devcfg.Config, *renderers.Entry) {
	t.Helper()
	sw := examplestest.Switch(t, "basic", name)
	reg := all.Renderers()
	e, err := reg.Lookup(sw.Platform)
	if err != nil {
		t.Fatalf("platform %s of %s is not registered in renderers/all: %v", sw.Platform, name, err)
	}
	cfg, err := reg.Render(sw)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, e
}

type roundTrip struct {
	switchName  string
	personality sshsim.Personality
}

var roundTrips = []roundTrip{
	{"leaf-nxos", sshsim.NXOS},
	{"leaf-eos", sshsim.EOS},
	{"leaf-junos", sshsim.Junos},
	{"leaf-cumulus", sshsim.Cumulus},
	{"leaf-sonic", sshsim.SONiC},
}

func openReal(t testing.TB, sim *sshsim.Sim, kh string, e *renderers.Entry, scope devcfg.Scope) drivers.Driver {
	t.Helper()
	opt := drivers.Options{
		Device:   "dut",
		Address:  sim.Addr(),
		Platform: e.Attrs.Platform,
		Scope:    scope,
		Creds:    drivers.Credentials{Username: "rocefab", Password: "s3cret-pw"},
		SSH:      drivers.SSHOptions{KnownHostsFile: kh},
		Timeout:  5 * time.Second,
		Retries:  2,
		Backoff:  20 * time.Millisecond,
	}.WithDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := ssh.New(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func startReal(t testing.TB, p sshsim.Personality, host string) (*sshsim.Sim, string) {
	t.Helper()
	return startRealWith(t, sshsim.Options{Personality: p, Hostname: host})
}

func startRealWith(t testing.TB, opt sshsim.Options) (*sshsim.Sim, string) {
	t.Helper()
	opt.Username, opt.Password = "rocefab", "s3cret-pw"
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

var (
	changeID = regexp.MustCompile(`rocefab-\d{8}-\d{6}-[0-9a-f]{6}`)
	// holderAt is where a lock holder names its host and process.
	holderAt = regexp.MustCompile(` on \S+ pid \d+`)
)

// sent is what the driver typed, without the prompts it fetched with empty
// lines and with the per-change name made stable. A patch file written in
// base64 chunks is shown decoded, so the golden file can be reviewed.
func sent(sim *sshsim.Sim) []byte {
	var b strings.Builder
	var chunks strings.Builder
	for _, l := range sim.Received() {
		if l == "" {
			continue
		}
		l = changeID.ReplaceAllString(l, "rocefab-ID")
		l = holderAt.ReplaceAllString(l, " on HOST pid PID")
		if rest, ok := strings.CutPrefix(l, "echo "); ok && strings.Contains(rest, ".b64") {
			chunk, _, _ := strings.Cut(rest, " ")
			chunks.WriteString(chunk)
			continue
		}
		if strings.HasPrefix(l, "base64 -d ") {
			raw, err := base64.StdEncoding.DecodeString(chunks.String())
			var pretty bytes.Buffer
			if err != nil || json.Indent(&pretty, raw, "# ", "  ") != nil {
				pretty.WriteString("# undecodable patch file")
			}
			b.WriteString("# echo ... > file.b64, decoded:\n# " + pretty.String() + "\n")
			chunks.Reset()
		}
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// TestRoundTrip renders examples/basic per platform, pushes the difference
// to a fresh simulated device and reads it back: the owned running config
// equals the desired one and a second diff is empty. It golden-checks what
// the driver typed.
func TestRoundTrip(t *testing.T) {
	for _, rt := range roundTrips {
		t.Run(rt.switchName, func(t *testing.T) {
			desired, e := basic(t, rt.switchName)
			syn := e.Attrs.Platform.Syntax
			sim, kh := startReal(t, rt.personality, rt.switchName)
			d := openReal(t, sim, kh, e, desired.Owned)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()

			before, err := d.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			changes := devcfg.Diff(desired, before.Owned, syn, nil)
			if len(changes) == 0 {
				t.Fatal("a fresh device already matches: the test proves nothing")
			}
			patch := devcfg.BuildPatch(changes, syn)
			sim.ResetReceived()
			p, err := d.Push(ctx, patch, drivers.PushOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Confirm(ctx); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "sent", rt.switchName+".golden"), sent(sim))

			after, err := d.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := desired.Filter(desired.Owned).Text()
			if got := after.Owned.Text(); got != want {
				t.Fatalf("owned running config differs from desired:\n%s", lineDiff(want, got))
			}
			if again := devcfg.Diff(desired, after.Owned, syn, nil); len(again) != 0 {
				t.Fatalf("second diff not empty: %+v", again)
			}
			if after.Fingerprint == before.Fingerprint {
				t.Fatal("fingerprint did not change with the configuration")
			}
		})
	}
}

func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(equal)"
}

// TestRegisteredTransport opens the driver through drivers/all, by its
// transport name.
func TestRegisteredTransport(t *testing.T) {
	desired, e := basic(t, "leaf-eos")
	sim, kh := startReal(t, sshsim.EOS, "leaf-eos")
	d, err := driversall.Drivers().Open(testContext(t), "ssh", drivers.Options{
		Device: "leaf-eos", Address: sim.Addr(), Platform: e.Attrs.Platform, Scope: desired.Owned,
		Creds: drivers.Credentials{Username: "rocefab", Password: "s3cret-pw"}, SSH: drivers.SSHOptions{KnownHostsFile: kh},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Fetch(testContext(t)); err != nil {
		t.Fatal(err)
	}
}
