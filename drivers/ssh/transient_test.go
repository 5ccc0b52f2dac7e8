package ssh

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/renderers/eos"
)

// flakyProxy resets the first `fail` connections before any SSH byte is
// exchanged, then forwards to target: a device whose SSH daemon is
// restarting.
type flakyProxy struct {
	ln       net.Listener
	accepted atomic.Int32
	wg       sync.WaitGroup
}

func newFlakyProxy(t *testing.T, target string, fail int32) *flakyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &flakyProxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.accepted.Add(1) <= fail {
				if tc, ok := c.(*net.TCPConn); ok {
					_ = tc.SetLinger(0) // RST, not FIN
				}
				_ = c.Close()
				continue
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
			go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); p.wg.Wait() })
	return p
}

func TestTransientConnectFailuresAreRetried(t *testing.T) {
	sim, _ := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	cases := []struct {
		name    string
		fail    int32
		retries int
		ok      bool
	}{
		{"recovers within the retries", 2, 2, true},
		{"gives up after the retries", 3, 2, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy := newFlakyProxy(t, sim.Addr(), tc.fail)
			kh := t.TempDir() + "/known_hosts"
			opt := testOptions(sim, kh, nxosTest, nil)
			opt.Address = proxy.ln.Addr().String()
			opt.SSH.AcceptNew = true // the proxy's address is new
			opt.Retries = tc.retries
			err := openErr(t, opt)
			if tc.ok != (err == nil) {
				t.Fatalf("ok=%v, got %v", tc.ok, err)
			}
			if !tc.ok && !(errors.Is(err, drivers.ErrUnreachable) && errors.Is(err, drivers.ErrTransient)) {
				t.Fatalf("want a transient unreachable error, got %v", err)
			}
			if got, want := proxy.accepted.Load(), int32(tc.retries+1); got != want && !tc.ok {
				t.Fatalf("%d attempts, want %d", got, want)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	opt := drivers.Options{Device: "gone", Address: addr, Platform: nxosTest, SSH: drivers.SSHOptions{KnownHostsFile: t.TempDir() + "/kh", AcceptNew: true},
		Timeout: time.Second, Retries: 1, Backoff: 10 * time.Millisecond}.WithDefaults()
	err = openErr(t, opt)
	if !errors.Is(err, drivers.ErrUnreachable) || !errors.Is(err, drivers.ErrTransient) {
		t.Fatalf("want transient ErrUnreachable, got %v", err)
	}
}

// slowAnswer is how late a slow simulated device answers. A call that
// returns sooner honoured its timeout; the only bound is this one, far
// beyond any scheduling delay on a loaded machine.
const slowAnswer = time.Minute

// TestSlowDevice: the device answers later than the per-call timeout. The
// call fails as transient, and a fetch (safe to repeat) succeeds once the
// device is fast again.
func TestSlowDevice(t *testing.T) {
	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	opt := testOptions(sim, kh, nxosTest, nil)
	opt.Timeout = 300 * time.Millisecond
	// A retry keeps one stall on a loaded machine from failing the connect
	// or the final fetch; the slow fetch fails after it all the same.
	opt.Retries = 1
	d := open(t, opt)
	sim.SetFaults(sshsim.Faults{Delay: slowAnswer})
	start := time.Now()
	_, err := d.Fetch(testCtx(t))
	if !errors.Is(err, drivers.ErrTransient) {
		t.Fatalf("want a transient timeout, got %v", err)
	}
	if took := time.Since(start); took >= slowAnswer {
		t.Fatalf("the call waited for the slow answer (%v): the timeout was not honoured", took)
	}
	sim.SetFaults(sshsim.Faults{})
	if _, err := d.Fetch(testCtx(t)); err != nil {
		t.Fatalf("fetch once the device is fast again: %v", err)
	}
}

func TestContextCancellation(t *testing.T) {
	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	d := open(t, testOptions(sim, kh, nxosTest, nil))
	sim.SetFaults(sshsim.Faults{Delay: slowAnswer})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.Fetch(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the context's error, got %v", err)
	}
	if took := time.Since(start); took >= slowAnswer {
		t.Fatalf("the call waited for the slow answer (%v): cancellation was not honoured", took)
	}
}

// TestCloseRollsBackUnconfirmed: a driver closed while its own timer still
// guards an unconfirmed change (NX-OS beyond its 3600 s commit timer) rolls
// the change back rather than leaving it behind with nobody to time it out.
func TestCloseRollsBackUnconfirmed(t *testing.T) {
	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	before := sim.Config()
	d := open(t, testOptions(sim, kh, nxosTest, nil))
	if _, err := d.Push(testCtx(t), devcfg.Patch{Lines: []string{"interface Ethernet1/2", "mtu 9216", "exit"}}, drivers.PushOptions{ConfirmWindow: 2 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	if sim.Config() == before {
		t.Fatal("change not applied")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if sim.Config() != before || len(sim.Checkpoints()) != 0 {
		t.Fatal("close left an unconfirmed change or its checkpoint behind")
	}
}

// TestNoAuthSimulator: the simulator's test-only mode without
// authentication.
func TestNoAuthSimulator(t *testing.T) {
	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.EOS, NoAuth: true, Username: "-"})
	opt := testOptions(sim, kh, treePlatform("eos", "arista_eos", eos.Dialect), nil)
	opt.Creds = drivers.Credentials{Username: "anyone"}
	d := open(t, opt)
	if _, err := d.Fetch(testCtx(t)); err != nil {
		t.Fatal(err)
	}
}

// TestShowCounters: Show runs read-only commands; PFC counters move between
// two reads, and a command the device refuses is rejected.
func TestShowCounters(t *testing.T) {
	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	if err := sim.HandChange("interface Ethernet1/1", "priority-flow-control mode on"); err != nil {
		t.Fatal(err)
	}
	d := open(t, testOptions(sim, kh, nxosTest, nil))
	line := func() string {
		out, err := d.Show(testCtx(t), "show interface priority-flow-control")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Ethernet1/1 ") {
				return l
			}
		}
		t.Fatalf("no Ethernet1/1 row:\n%s", out)
		return ""
	}
	if a, b := line(), line(); a == b {
		t.Fatalf("PFC counters did not move: %q", a)
	}
	if _, err := d.Show(testCtx(t), "show nonsense"); !errors.Is(err, drivers.ErrRejected) {
		t.Fatalf("want ErrRejected, got %v", err)
	}
}

// TestReconnectsAfterIdleDrop: the device closed the session between calls
// (reboot, idle timeout); the next push opens a fresh one.
func TestReconnectsAfterIdleDrop(t *testing.T) {
	sim, kh := startSim(t, sshsim.Options{Personality: sshsim.NXOS})
	d := open(t, testOptions(sim, kh, nxosTest, nil))
	sessions := sim.Sessions()
	sim.DropConnections()
	deadline := time.Now().Add(30 * time.Second)
	for d.conn.tr.IsAlive() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := d.Push(testCtx(t), devcfg.Patch{Lines: []string{"interface Ethernet1/3", "mtu 9216", "exit"}}, drivers.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if sim.Sessions() != sessions+1 {
		t.Fatalf("sessions %d, want a fresh one after %d", sim.Sessions(), sessions)
	}
	if !strings.Contains(sim.Config(), "interface Ethernet1/3\n  mtu 9216") {
		t.Fatal("push did not apply")
	}
}
