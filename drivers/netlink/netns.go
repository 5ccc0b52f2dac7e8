package netlink

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/vishvananda/netns"
)

// namespace is a network namespace to work in; the zero handle is the
// current one.
type namespace struct {
	name   string
	handle netns.NsHandle
}

// openNamespace opens a namespace by name (as `ip netns` creates them) or
// by path (/proc/<pid>/ns/net); "" is the caller's own namespace.
func openNamespace(name string) (*namespace, error) {
	if name == "" {
		return &namespace{handle: netns.None()}, nil
	}
	var h netns.NsHandle
	var err error
	if strings.Contains(name, "/") {
		h, err = netns.GetFromPath(name)
	} else {
		h, err = netns.GetFromName(name)
	}
	if err != nil {
		return nil, fmt.Errorf("network namespace %s: %w", name, err)
	}
	return &namespace{name: name, handle: h}, nil
}

func (n *namespace) local() bool { return !n.handle.IsOpen() }

func (n *namespace) close() {
	if n.handle.IsOpen() {
		_ = n.handle.Close()
		n.handle = netns.None()
	}
}

// do runs fn on an OS thread switched into the namespace. Files and sockets
// opened inside fn belong to the namespace (ethtool ioctls, /proc/sys/net).
func (n *namespace) do(fn func() error) error {
	if n.local() {
		return fn()
	}
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("current network namespace: %w", err)
	}
	defer orig.Close()
	if err := netns.Set(n.handle); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("enter network namespace %s: %w", n.name, err)
	}
	ferr := fn()
	if err := netns.Set(orig); err != nil {
		// Leave the thread locked: Go discards it when the goroutine ends,
		// so no other goroutine runs in the wrong namespace.
		return fmt.Errorf("return from network namespace %s: %w", n.name, err)
	}
	runtime.UnlockOSThread()
	return ferr
}

// InNamespace runs fn on an OS thread switched into the named network
// namespace ("" is the caller's own). Sockets opened in fn stay there after
// it returns, which is how the probe binds inside a lab host.
func InNamespace(name string, fn func() error) error {
	ns, err := openNamespace(name)
	if err != nil {
		return err
	}
	defer ns.close()
	return ns.do(fn)
}
