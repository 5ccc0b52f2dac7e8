package netnstest

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vishvananda/netns"
)

var seq atomic.Uint64

// Require skips (or, under ROCEFAB_REQUIRE_NETNS=1, fails) unless the test can
// create network namespaces.
func Require(t testing.TB) {
	t.Helper()
	if reason := unavailable(); reason != "" {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatalf("netns required but unavailable: %s", reason)
		}
		t.Skipf("netns unavailable: %s (run as root with iproute2)", reason)
	}
}

func unavailable() string {
	if os.Geteuid() != 0 {
		return "not root"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return "ip (iproute2) not installed"
	}
	return ""
}

// RequireTool skips (or, under ROCEFAB_REQUIRE_NETNS=1, fails) the test,
// naming the tool, when a command is not on PATH: the README's test
// command must pass on a machine with only Go installed.
func RequireTool(t testing.TB, tool string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatalf("%s required but not installed (not on PATH)", tool)
		} else {
			t.Skipf("%s not installed (not on PATH); this test needs it", tool)
		}
	}
}

// NS is one network namespace owned by a test.
type NS struct {
	Name string
	t    testing.TB
}

// uniqueName returns a short name that no other test or process uses.
func uniqueName(role string) string {
	return fmt.Sprintf("rft%d-%d-%s", os.Getpid()%100000, seq.Add(1), role)
}

// New creates a namespace with loopback up and removes it when the test ends,
// killing anything still running inside.
func New(t testing.TB, role string) *NS {
	t.Helper()
	Require(t)
	ns := &NS{Name: uniqueName(role), t: t}
	run(t, "ip", "netns", "add", ns.Name)
	t.Cleanup(func() { ns.remove() })
	ns.Run("ip", "link", "set", "lo", "up")
	return ns
}

func (ns *NS) remove() {
	if out, err := exec.Command("ip", "netns", "pids", ns.Name).Output(); err == nil {
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	if out, err := exec.Command("ip", "netns", "del", ns.Name).CombinedOutput(); err != nil {
		ns.t.Errorf("removing netns %s: %v: %s", ns.Name, err, out)
	}
}

// Run executes a command inside the namespace and fails the test on error.
// A command that is not installed skips the test like RequireTool.
func (ns *NS) Run(args ...string) string {
	ns.t.Helper()
	RequireTool(ns.t, args[0])
	return run(ns.t, append([]string{"ip", "netns", "exec", ns.Name}, args...)...)
}

// Try executes a command inside the namespace and returns its error.
func (ns *NS) Try(args ...string) (string, error) {
	out, err := exec.Command("ip", append([]string{"netns", "exec", ns.Name}, args...)...).CombinedOutput()
	return string(out), err
}

// Sysctl sets a network sysctl of the namespace ("net.ipv4.ip_forward")
// by writing /proc/sys from a thread inside it; no sysctl binary needed.
func (ns *NS) Sysctl(t testing.TB, key, value string) {
	t.Helper()
	path := "/proc/sys/" + strings.ReplaceAll(key, ".", "/")
	if err := ns.Do(func() error { return os.WriteFile(path, []byte(value), 0o644) }); err != nil {
		t.Fatalf("netns %s: sysctl %s=%s: %v", ns.Name, key, value, err)
	}
}

// WaitReachable pings each address from inside the namespace until it
// answers or timeout passes (neighbour discovery, IPv6 addresses settling).
func (ns *NS) WaitReachable(timeout time.Duration, dsts ...netip.Addr) error {
	deadline := time.Now().Add(timeout)
	for _, dst := range dsts {
		for {
			err := ns.Ping(dst, PingOptions{Timeout: 500 * time.Millisecond})
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s unreachable from netns %s: %w", dst, ns.Name, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// Command returns an unstarted command that runs inside the namespace.
// Call it from the test's goroutine: a command that is not installed
// skips the test like RequireTool.
func (ns *NS) Command(name string, args ...string) *exec.Cmd {
	ns.t.Helper()
	RequireTool(ns.t, name)
	return exec.Command("ip", append([]string{"netns", "exec", ns.Name, name}, args...)...)
}

// Handle opens the namespace for netlink calls (netlink.NewHandleAt). The
// caller closes it.
func (ns *NS) Handle() (netns.NsHandle, error) {
	return netns.GetFromName(ns.Name)
}

// Do runs fn on a locked OS thread switched into the namespace. Sockets opened
// inside fn stay in the namespace after Do returns.
func (ns *NS) Do(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return err
	}
	defer orig.Close()
	target, err := netns.GetFromName(ns.Name)
	if err != nil {
		return err
	}
	defer target.Close()
	if err := netns.Set(target); err != nil {
		return err
	}
	defer func() {
		if err := netns.Set(orig); err != nil {
			panic("netnstest: cannot return to the original namespace: " + err.Error())
		}
	}()
	return fn()
}

// Veth connects two namespaces with a veth pair named aIf (in a) and bIf (in
// b). The pair is created inside a, with its peer placed straight into b,
// so no temporary name ever exists in the shared root namespace, where
// tests in other processes could collide with it.
func Veth(t testing.TB, a *NS, aIf string, b *NS, bIf string, mtu int) {
	t.Helper()
	a.Run("ip", "link", "add", aIf, "type", "veth", "peer", "name", bIf, "netns", b.Name)
	for _, side := range []struct {
		ns *NS
		nm string
	}{{a, aIf}, {b, bIf}} {
		if mtu > 0 {
			side.ns.Run("ip", "link", "set", side.nm, "mtu", fmt.Sprint(mtu))
		}
		side.ns.Run("ip", "link", "set", side.nm, "up")
	}
}

func run(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
