package netlink_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/netlink"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/linux"
)

func linuxEntry(t *testing.T) *renderers.Entry {
	t.Helper()
	reg := renderers.NewRegistry()
	if err := linux.Register(reg); err != nil {
		t.Fatal(err)
	}
	e, err := reg.Lookup("linux")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// router is a namespace with two routed legs at MTU 1500 and forwarding off.
func router(t *testing.T) *netnstest.NS {
	t.Helper()
	r := netnstest.New(t, "sw")
	a := netnstest.New(t, "a")
	b := netnstest.New(t, "b")
	netnstest.Veth(t, r, "swp1", a, "eth0", 1500)
	netnstest.Veth(t, r, "swp2", b, "eth0", 1500)
	r.Run("sysctl", "-qw", "net.ipv4.ip_forward=0")
	return r
}

func open(t *testing.T, ns *netnstest.NS, scope devcfg.Scope) drivers.Driver {
	t.Helper()
	reg := drivers.NewRegistry()
	if err := netlink.Register(reg); err != nil {
		t.Fatal(err)
	}
	d, err := reg.Open(context.Background(), "netlink", drivers.Options{
		Device: "leaf-linux", Netns: ns.Name, Platform: linuxEntry(t).Attrs.Platform, Scope: scope, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func mtuOf(t *testing.T, ns *netnstest.NS, dev string) string {
	t.Helper()
	return strings.TrimSpace(ns.Run("cat", "/sys/class/net/"+dev+"/mtu"))
}

func sysctlOf(t *testing.T, ns *netnstest.NS, key string) string {
	t.Helper()
	return strings.TrimSpace(ns.Run("sysctl", "-n", key))
}

var everything = devcfg.Scope{PathPrefixes: []string{"/"}}

func TestSwitchFetch(t *testing.T) {
	ns := router(t)
	ns.Run("ip", "link", "set", "swp2", "mtu", "4000")
	d := open(t, ns, everything)
	run, err := d.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := devcfg.Paths{
		"/interfaces/swp1/mtu": "1500", "/interfaces/swp2/mtu": "4000",
		"/sysctl/net.ipv4.ip_forward": `"0"`, "/sysctl/net.ipv6.conf.all.forwarding": `"0"`,
	}
	for p, v := range want {
		if got := run.Config.Paths[p]; got != v {
			t.Errorf("%s = %s, want %s (read inside the namespace)", p, got, v)
		}
	}
	if _, ok := run.Config.Paths["/interfaces/lo/mtu"]; ok {
		t.Error("loopback listed")
	}
	if run.Fingerprint == "" || run.Owned == nil {
		t.Error("no fingerprint or owned part")
	}
}

func TestSwitchRoundTripWithRenderer(t *testing.T) {
	ns := router(t)
	e := linuxEntry(t)
	sw := &intent.Switch{Name: "leaf-linux", Platform: "linux", Netns: ns.Name,
		Ports:  []intent.Port{{Name: "swp1", Mode: "routed"}, {Name: "swp2", Mode: "routed"}},
		Policy: intent.Policy{SwitchMTU: intent.SwitchMTU{Value: 9000}}}
	desired, err := e.New().Render(sw)
	if err != nil {
		t.Fatal(err)
	}
	d := open(t, ns, desired.Owned)
	ctx := context.Background()
	rootForward, err := os.ReadFile("/proc/sys/net/ipv4/ip_forward")
	if err != nil {
		t.Fatal(err)
	}
	before, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes := devcfg.Diff(desired, before.Owned, e.Attrs.Platform.Syntax, e.Attrs.Classify)
	if len(changes) != 4 {
		t.Fatalf("want 4 changes (two MTUs, IPv4 and IPv6 forwarding), got %+v", changes)
	}
	patch := devcfg.BuildPatch(changes, e.Attrs.Platform.Syntax)
	p, err := d.Push(ctx, patch, drivers.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Confirm(ctx); err != nil {
		t.Errorf("confirming a zero-window push: %v", err)
	}
	if mtuOf(t, ns, "swp1") != "9000" || mtuOf(t, ns, "swp2") != "9000" || sysctlOf(t, ns, "net.ipv4.ip_forward") != "1" ||
		sysctlOf(t, ns, "net.ipv6.conf.all.forwarding") != "1" {
		t.Fatal("push did not change the namespace")
	}
	if now, _ := os.ReadFile("/proc/sys/net/ipv4/ip_forward"); string(now) != string(rootForward) {
		t.Errorf("the push changed ip_forward of rocefab's own namespace: %q → %q", rootForward, now)
	}
	after, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := after.Owned.Text(), desired.Filter(desired.Owned).Text(); got != want {
		t.Errorf("read back differs from desired:\n got %s\nwant %s", got, want)
	}
	if left := devcfg.Diff(desired, after.Owned, e.Attrs.Platform.Syntax, nil); len(left) != 0 {
		t.Errorf("compliance diff after push: %+v", left)
	}
}

func TestSwitchConfirmWindow(t *testing.T) {
	ns := router(t)
	ctx := context.Background()
	patch := devcfg.Patch{Updates: []devcfg.PathUpdate{
		{Path: "/interfaces/swp1/mtu", Value: devcfg.Int(9000)},
		{Path: "/sysctl/net.ipv4.ip_forward", Value: devcfg.String("1")},
	}}
	t.Run("not confirmed rolls back", func(t *testing.T) {
		d := open(t, ns, everything)
		// About a second: a loaded machine still sees the change pending.
		p, err := d.Push(ctx, patch, drivers.PushOptions{ConfirmWindow: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if mtuOf(t, ns, "swp1") != "9000" || sysctlOf(t, ns, "net.ipv4.ip_forward") != "1" {
			t.Fatal("pending change not applied")
		}
		if _, err := d.Push(ctx, patch, drivers.PushOptions{}); !errors.Is(err, drivers.ErrRejected) {
			t.Errorf("second push while pending: %v, want ErrRejected", err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for mtuOf(t, ns, "swp1") != "1500" {
			if time.Now().After(deadline) {
				t.Fatal("unconfirmed change was not rolled back")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := sysctlOf(t, ns, "net.ipv4.ip_forward"); got != "0" {
			t.Errorf("ip_forward = %s after rollback, want 0", got)
		}
		if err := p.Confirm(ctx); err == nil || !strings.Contains(err.Error(), "confirm window expired") {
			t.Errorf("confirm after expiry: %v", err)
		}
	})
	t.Run("confirmed stays", func(t *testing.T) {
		d := open(t, ns, everything)
		const window = time.Second // time to confirm in, even on a loaded machine
		p, err := d.Push(ctx, patch, drivers.PushOptions{ConfirmWindow: window})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Confirm(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(window + 300*time.Millisecond)
		if mtuOf(t, ns, "swp1") != "9000" {
			t.Error("confirmed change was rolled back")
		}
		if err := p.Rollback(ctx); err == nil {
			t.Error("rollback after confirm should be refused")
		}
		ns.Run("ip", "link", "set", "swp1", "mtu", "1500")
		ns.Run("sysctl", "-qw", "net.ipv4.ip_forward=0")
	})
	t.Run("explicit rollback", func(t *testing.T) {
		d := open(t, ns, everything)
		p, err := d.Push(ctx, patch, drivers.PushOptions{ConfirmWindow: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if mtuOf(t, ns, "swp1") != "1500" || sysctlOf(t, ns, "net.ipv4.ip_forward") != "0" {
			t.Error("rollback did not restore")
		}
	})
	t.Run("close rolls back a pending change", func(t *testing.T) {
		d := open(t, ns, everything)
		if _, err := d.Push(ctx, patch, drivers.PushOptions{ConfirmWindow: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if mtuOf(t, ns, "swp1") != "1500" {
			t.Error("close left an unconfirmed change")
		}
	})
}

func TestSwitchPushIsAtomic(t *testing.T) {
	ns := router(t)
	ctx := context.Background()
	d := open(t, ns, everything)
	tests := []struct {
		name  string
		patch devcfg.Patch
		line  string
		text  string
	}{
		{"kernel refuses a later MTU", devcfg.Patch{Updates: []devcfg.PathUpdate{
			{Path: "/sysctl/net.ipv4.ip_forward", Value: devcfg.String("1")},
			{Path: "/interfaces/swp1/mtu", Value: devcfg.Int(9000)},
			{Path: "/interfaces/swp2/mtu", Value: devcfg.Int(70000)},
		}}, "/interfaces/swp2/mtu", "set MTU 70000 on swp2"},
		{"unknown interface", devcfg.Patch{Updates: []devcfg.PathUpdate{
			{Path: "/interfaces/swp1/mtu", Value: devcfg.Int(9000)},
			{Path: "/interfaces/swp9/mtu", Value: devcfg.Int(9000)},
		}}, "/interfaces/swp9/mtu", "no interface swp9 in network namespace"},
		{"delete", devcfg.Patch{Deletes: []string{"/interfaces/swp1/mtu"}}, "/interfaces/swp1/mtu", "cannot be deleted"},
		{"unknown path", devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "/qos/pfc", Value: devcfg.Int(1)}}}, "/qos/pfc", "unknown path"},
		{"bad sysctl key", devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "/sysctl/../../etc/passwd", Value: devcfg.String("x")}}}, "/sysctl/../../etc/passwd", "not a plain key"},
		{"missing sysctl", devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "/sysctl/net.ipv4.no_such", Value: devcfg.String("1")}}}, "/sysctl/net.ipv4.no_such", "read sysctl"},
		{"cli lines", devcfg.Patch{Lines: []string{"mtu 9000"}}, "mtu 9000", "path updates"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Push(ctx, tt.patch, drivers.PushOptions{})
			var de *drivers.DeviceError
			if !errors.As(err, &de) || !errors.Is(err, drivers.ErrRejected) {
				t.Fatalf("err = %v, want a DeviceError wrapping ErrRejected", err)
			}
			if de.Device != "leaf-linux" || de.Step != "push" || de.Line != tt.line || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("err = %v (line %q)", err, de.Line)
			}
			if mtuOf(t, ns, "swp1") != "1500" || mtuOf(t, ns, "swp2") != "1500" || sysctlOf(t, ns, "net.ipv4.ip_forward") != "0" {
				t.Error("a failed push left a change behind")
			}
		})
	}
}

func TestSwitchLocalHostAndBadNetns(t *testing.T) {
	netnstest.Require(t)
	_, err := netlink.New(context.Background(), drivers.Options{Device: "x", Netns: "rocefab-no-such-netns"})
	if !errors.Is(err, drivers.ErrUnreachable) || !strings.Contains(err.Error(), "rocefab-no-such-netns") {
		t.Errorf("err = %v", err)
	}
}
