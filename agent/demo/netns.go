package demo

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	vnl "github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"

	"github.com/rocefab/rocefab/drivers/netlink"
)

// nsDir is where named network namespaces live (as `ip netns` keeps them).
const nsDir = "/run/netns"

// nsPrefix starts every namespace the demo creates: rfdemo-<pid>-<run>-<role>.
const nsPrefix = "rfdemo-"

// Addressing of the namespace fabric (documentation prefixes, never routed
// beyond the namespaces): gpu01 — swp1 and swp2 — gpu02, one /30 each.
var (
	host1Prefix = netip.MustParsePrefix("192.0.2.2/30")
	router1     = netip.MustParsePrefix("192.0.2.1/30")
	host2Prefix = netip.MustParsePrefix("192.0.2.6/30")
	router2     = netip.MustParsePrefix("192.0.2.5/30")
)

// MTUs of the namespace fabric: the router starts below the intent's 9216
// so the first plan has work; the drift lowers one port to 1500.
const (
	hostMTU      = 9000
	routerMTU    = 9000
	driftPortMTU = 1500
)

// nsFabric is h1 — sw — h2 in three network namespaces: two hosts with
// eth0 and a Linux router with swp1 and swp2.
type nsFabric struct {
	Router, Host1, Host2 string
	created              []string
}

// buildNetns creates the namespaces, the veth cables, addresses and routes
// through netlink. The router starts with forwarding off and its ports at
// MTU 9000; rocefab turns it into what the intent says. On error the
// namespaces made so far are removed again.
func buildNetns() (f *nsFabric, err error) {
	var raw [3]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	base := fmt.Sprintf("%s%d-%s-", nsPrefix, os.Getpid(), hex.EncodeToString(raw[:]))
	f = &nsFabric{Router: base + "sw", Host1: base + "h1", Host2: base + "h2"}
	defer func() {
		if err != nil {
			err = errors.Join(err, f.remove())
		}
	}()
	for _, name := range []string{f.Router, f.Host1, f.Host2} {
		if err := newNamedNetns(name); err != nil {
			return f, fmt.Errorf("creating network namespace %s: %w", name, err)
		}
		f.created = append(f.created, name)
	}
	for _, name := range []string{f.Router, f.Host1, f.Host2} {
		if err := withHandle(name, func(h *vnl.Handle) error { return linkUp(h, "lo") }); err != nil {
			return f, err
		}
	}
	if err := f.cable(f.Host1, host1Prefix, f.Router, "swp1", router1); err != nil {
		return f, err
	}
	if err := f.cable(f.Host2, host2Prefix, f.Router, "swp2", router2); err != nil {
		return f, err
	}
	// Written explicitly: with net.core.devconf_inherit_init_net a new
	// namespace copies the machine's own forwarding setting.
	for _, key := range []string{"net/ipv4/ip_forward", "net/ipv6/conf/all/forwarding"} {
		if err := writeSysctl(f.Router, key, "0"); err != nil {
			return f, err
		}
	}
	return f, nil
}

// newNamedNetns creates a named namespace as `ip netns add` does. It runs
// on a thread of its own that is never unlocked: netns.NewNamed moves the
// calling thread into the new namespace, and Go discards a locked thread
// when its goroutine ends, so no other goroutine ever runs there.
func newNamedNetns(name string) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		h, err := netns.NewNamed(name)
		if err == nil {
			_ = h.Close()
		} else if !errors.Is(err, fs.ErrExist) {
			// A failed bind mount leaves the empty file behind.
			_ = os.Remove(filepath.Join(nsDir, name))
		}
		errc <- err
	}()
	return <-errc
}

// withHandle runs fn with an rtnetlink handle inside the namespace.
func withHandle(name string, fn func(*vnl.Handle) error) error {
	ns, err := netns.GetFromName(name)
	if err != nil {
		return fmt.Errorf("network namespace %s: %w", name, err)
	}
	defer ns.Close()
	h, err := vnl.NewHandleAt(ns)
	if err != nil {
		return fmt.Errorf("network namespace %s: rtnetlink: %w", name, err)
	}
	defer h.Close()
	if err := fn(h); err != nil {
		return fmt.Errorf("network namespace %s: %w", name, err)
	}
	return nil
}

func linkUp(h *vnl.Handle, ifname string) error {
	l, err := h.LinkByName(ifname)
	if err != nil {
		return fmt.Errorf("%s: %w", ifname, err)
	}
	if err := h.LinkSetUp(l); err != nil {
		return fmt.Errorf("%s up: %w", ifname, err)
	}
	return nil
}

func addAddr(h *vnl.Handle, ifname string, p netip.Prefix) error {
	l, err := h.LinkByName(ifname)
	if err != nil {
		return fmt.Errorf("%s: %w", ifname, err)
	}
	a := &vnl.Addr{IPNet: &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}}
	if err := h.AddrAdd(l, a); err != nil {
		return fmt.Errorf("address %s on %s: %w", p, ifname, err)
	}
	return nil
}

// cable connects host's eth0 to the router's port with a veth pair made
// directly in both namespaces (no temporary names in this namespace), then
// addresses both ends and points the host's default route at the router.
func (f *nsFabric) cable(host string, hostAddr netip.Prefix, router, port string, routerAddr netip.Prefix) error {
	rns, err := netns.GetFromName(router)
	if err != nil {
		return fmt.Errorf("network namespace %s: %w", router, err)
	}
	defer rns.Close()
	err = withHandle(host, func(h *vnl.Handle) error {
		veth := &vnl.Veth{LinkAttrs: vnl.LinkAttrs{Name: "eth0", MTU: hostMTU},
			PeerName: port, PeerNamespace: vnl.NsFd(int(rns)), PeerMTU: uint32(routerMTU)}
		if err := h.LinkAdd(veth); err != nil {
			return fmt.Errorf("veth eth0 to %s:%s: %w", router, port, err)
		}
		if err := addAddr(h, "eth0", hostAddr); err != nil {
			return err
		}
		if err := linkUp(h, "eth0"); err != nil {
			return err
		}
		gw := routerAddr.Addr().AsSlice()
		if err := h.RouteAdd(&vnl.Route{Gw: gw}); err != nil {
			return fmt.Errorf("default route via %s: %w", routerAddr.Addr(), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return withHandle(router, func(h *vnl.Handle) error {
		if err := addAddr(h, port, routerAddr); err != nil {
			return err
		}
		return linkUp(h, port)
	})
}

// setMTU changes an interface's MTU inside a namespace, as an operator's
// `ip link set dev PORT mtu N` would.
func setMTU(ns, ifname string, mtu int) error {
	return withHandle(ns, func(h *vnl.Handle) error {
		l, err := h.LinkByName(ifname)
		if err != nil {
			return fmt.Errorf("%s: %w", ifname, err)
		}
		return h.LinkSetMTU(l, mtu)
	})
}

// writeSysctl sets a sysctl inside the namespace: /proc/sys/net opened from
// a thread in the namespace shows that namespace's values.
func writeSysctl(ns, key, value string) error {
	return netlink.InNamespace(ns, func() error {
		return os.WriteFile(filepath.Join("/proc/sys", key), []byte(value+"\n"), 0o644)
	})
}

// remove deletes the namespaces this fabric created. It takes no context:
// it must run after a Ctrl-C too. The veths go with their namespaces.
func (f *nsFabric) remove() error {
	var errs []error
	for _, name := range f.created {
		if err := netns.DeleteNamed(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing network namespace %s: %w", name, err))
		}
	}
	f.created = nil
	return errors.Join(errs...)
}

// removeStale deletes rfdemo namespaces left by a demo process that no
// longer runs (killed with SIGKILL, say), so they do not pile up.
func removeStale() []string {
	entries, err := os.ReadDir(nsDir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !deadOwner(e.Name(), nsPrefix) {
			continue
		}
		if netns.DeleteNamed(e.Name()) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}

// deadOwner reports whether name is prefix<pid>-... for a pid other than
// this process's that no longer runs.
func deadOwner(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	pidText, _, _ := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	_, err = os.Stat(filepath.Join("/proc", pidText))
	return errors.Is(err, fs.ErrNotExist)
}
