package netlink

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	vnl "github.com/vishvananda/netlink"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
)

// Transport is the name this driver registers under.
const Transport = "netlink"

// Path forms of the linux platform, shared with renderers/linux:
//
//	/interfaces/<ifname>/mtu = 9000          (L3 MTU, a JSON number)
//	/sysctl/<key> = "1"                      (sysctl(8) key, a JSON string)
//
// A sysctl key uses dots (net.ipv4.ip_forward); a key whose parts contain
// dots (an interface named eth0.100) is written with slashes instead
// (net/ipv4/conf/eth0.100/forwarding), as sysctl(8) accepts both.
const (
	InterfacesPrefix = "/interfaces/"
	SysctlPrefix     = "/sysctl/"
)

// ForwardingSysctls are read by every Fetch: a router must forward.
var forwardingSysctls = []string{"net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding"}

// procSys is where sysctls live; opened inside the namespace, it shows that
// namespace's values.
const procSys = "/proc/sys"

// Register adds the netlink transport.
func Register(r *drivers.Registry) error { return r.Register(Transport, New) }

// Switch drives a Linux router or white-box switch in a network namespace
// (Options.Netns) or the local host, through rtnetlink and /proc/sys.
type Switch struct {
	opt  drivers.Options
	ns   *namespace
	link *vnl.Handle

	mu      sync.Mutex
	seq     int
	pending *pendingChange
}

// New opens the driver. Options.Address is unused: the device is local.
func New(_ context.Context, opt drivers.Options) (drivers.Driver, error) {
	opt = opt.WithDefaults()
	ns, err := openNamespace(opt.Netns)
	if err != nil {
		return nil, &drivers.DeviceError{Device: opt.Device, Step: "connect", Err: fmt.Errorf("%w: %v", drivers.ErrUnreachable, err)}
	}
	var h *vnl.Handle
	if ns.local() {
		h, err = vnl.NewHandle()
	} else {
		h, err = vnl.NewHandleAt(ns.handle)
	}
	if err != nil {
		ns.close()
		return nil, &drivers.DeviceError{Device: opt.Device, Step: "connect", Err: fmt.Errorf("%w: rtnetlink: %v", drivers.ErrUnreachable, err)}
	}
	if err := h.SetSocketTimeout(opt.Timeout); err != nil {
		h.Close()
		ns.close()
		return nil, &drivers.DeviceError{Device: opt.Device, Step: "connect", Err: err}
	}
	return &Switch{opt: opt, ns: ns, link: h}, nil
}

// Close rolls back a change still waiting for confirmation (its timer dies
// with the driver), then releases the sockets.
func (s *Switch) Close() error {
	s.mu.Lock()
	p := s.pending
	s.mu.Unlock()
	var err error
	if p != nil {
		err = p.Rollback(context.Background())
	}
	s.link.Close()
	s.ns.close()
	return err
}

// Fetch reads every interface MTU (loopback aside), the forwarding sysctls
// and any other sysctl the scope owns.
func (s *Switch) Fetch(ctx context.Context) (*drivers.Running, error) {
	if err := ctx.Err(); err != nil {
		return nil, s.devErr("fetch", "", err)
	}
	links, err := s.link.LinkList()
	if err != nil {
		return nil, s.devErr("fetch", "", fmt.Errorf("%w: list links: %v", drivers.ErrUnreachable, err))
	}
	paths := devcfg.Paths{}
	for _, l := range links {
		a := l.Attrs()
		if a.Flags&net.FlagLoopback != 0 {
			continue
		}
		paths[InterfacesPrefix+a.Name+"/mtu"] = devcfg.Int(int64(a.MTU))
	}
	keys := append([]string(nil), forwardingSysctls...)
	for _, p := range s.opt.Scope.Paths {
		if k, ok := strings.CutPrefix(p, SysctlPrefix); ok && !contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		v, err := s.readSysctl(k)
		if errors.Is(err, os.ErrNotExist) {
			continue // e.g. IPv6 disabled
		}
		if err != nil {
			return nil, s.devErr("fetch", SysctlPrefix+k, err)
		}
		paths[SysctlPrefix+k] = devcfg.String(v)
	}
	cfg := &devcfg.Config{Device: s.opt.Device, Platform: s.opt.Platform.Name, Shape: devcfg.ShapePaths, Paths: paths}
	return drivers.NewRunning(cfg, s.opt.Platform, s.opt.Scope), nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// change is one path update with the value it replaces.
type change struct {
	path   string
	value  string // text to write
	before string // text read before
	apply  func(v string) error
}

// Push applies the patch atomically: every path is validated and its
// current value read before anything is written; if a write fails, every
// earlier write is restored. With a confirm window the change is pending
// until Confirm, and a timer here restores the earlier values when it is
// not confirmed in time.
func (s *Switch) Push(ctx context.Context, patch devcfg.Patch, opt drivers.PushOptions) (drivers.Pending, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending != nil {
		return nil, s.devErr("push", "", fmt.Errorf("%w: change %s is still waiting for confirmation", drivers.ErrRejected, s.pending.id))
	}
	if len(patch.Lines) > 0 {
		return nil, s.devErr("push", patch.Lines[0], fmt.Errorf("%w: the netlink driver takes path updates, not CLI lines", drivers.ErrRejected))
	}
	if len(patch.Deletes) > 0 {
		return nil, s.devErr("push", patch.Deletes[0], fmt.Errorf("%w: an MTU or a sysctl always has a value and cannot be deleted; set it instead", drivers.ErrRejected))
	}
	var changes []*change
	for _, u := range patch.Updates {
		c, err := s.prepare(u)
		if err != nil {
			return nil, s.devErr("push", u.Path, err)
		}
		changes = append(changes, c)
	}
	for i, c := range changes {
		if err := ctx.Err(); err != nil {
			s.undo(ctx, changes[:i])
			return nil, s.devErr("push", c.path, err)
		}
		if err := c.apply(c.value); err != nil {
			s.undo(ctx, changes[:i+1])
			e := s.devErr("push", c.path, err)
			e.Msg = err.Error()
			return nil, e
		}
		s.opt.Logger.Debug("applied", zap.String("path", c.path), zap.String("value", c.value), zap.String("was", c.before))
	}
	s.seq++
	p := &pendingChange{sw: s, id: fmt.Sprintf("%s-netlink-%d", s.opt.Device, s.seq), changes: changes}
	if opt.ConfirmWindow <= 0 {
		p.done = "confirmed"
		return p, nil
	}
	s.pending = p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = time.AfterFunc(opt.ConfirmWindow, func() {
		if err := p.finish("rolled back: confirm window expired", true); err == nil {
			s.opt.Logger.Warn("change not confirmed in time, rolled back", zap.String("change", p.id), zap.Duration("window", opt.ConfirmWindow))
		}
	})
	return p, nil
}

// prepare validates one update and reads the value it replaces.
func (s *Switch) prepare(u devcfg.PathUpdate) (*change, error) {
	switch {
	case strings.HasPrefix(u.Path, InterfacesPrefix):
		name, leaf, ok := strings.Cut(strings.TrimPrefix(u.Path, InterfacesPrefix), "/")
		if !ok || leaf != "mtu" || name == "" {
			return nil, fmt.Errorf("%w: unknown interface setting %s (only /interfaces/<name>/mtu)", drivers.ErrRejected, u.Path)
		}
		mtu, err := strconv.Atoi(u.Value.Text())
		if err != nil || mtu < 68 {
			return nil, fmt.Errorf("%w: MTU %s is not a number ≥ 68", drivers.ErrRejected, u.Value)
		}
		l, err := s.link.LinkByName(name)
		if err != nil {
			return nil, fmt.Errorf("%w: no interface %s%s: %v", drivers.ErrRejected, name, s.where(), err)
		}
		return &change{path: u.Path, value: strconv.Itoa(mtu), before: strconv.Itoa(l.Attrs().MTU), apply: func(v string) error {
			n, _ := strconv.Atoi(v)
			if err := s.link.LinkSetMTU(l, n); err != nil {
				return fmt.Errorf("%w: set MTU %d on %s: %v", drivers.ErrRejected, n, name, kernelErr(err))
			}
			return nil
		}}, nil
	case strings.HasPrefix(u.Path, SysctlPrefix):
		key := strings.TrimPrefix(u.Path, SysctlPrefix)
		if _, err := sysctlFile(key); err != nil {
			return nil, err
		}
		before, err := s.readSysctl(key)
		if err != nil {
			return nil, fmt.Errorf("%w: read sysctl %s: %v", drivers.ErrRejected, key, err)
		}
		return &change{path: u.Path, value: u.Value.Text(), before: before, apply: func(v string) error {
			if err := s.writeSysctl(key, v); err != nil {
				return fmt.Errorf("%w: sysctl %s=%s: %v", drivers.ErrRejected, key, v, err)
			}
			return nil
		}}, nil
	}
	return nil, fmt.Errorf("%w: unknown path %s (the linux platform has /interfaces/<name>/mtu and /sysctl/<key>)", drivers.ErrRejected, u.Path)
}

// undo restores earlier values, newest first; it runs even after the
// caller's context ended.
func (s *Switch) undo(_ context.Context, changes []*change) error {
	var errs []error
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if err := c.apply(c.before); err != nil {
			errs = append(errs, fmt.Errorf("restore %s to %s: %w", c.path, c.before, err))
			s.opt.Logger.Error("restore failed", zap.String("path", c.path), zap.Error(err))
		}
	}
	return errors.Join(errs...)
}

func (s *Switch) where() string {
	if s.ns.local() {
		return ""
	}
	return " in network namespace " + s.ns.name
}

func (s *Switch) devErr(step, line string, err error) *drivers.DeviceError {
	return &drivers.DeviceError{Device: s.opt.Device, Step: step, Line: line, Err: err}
}

// sysctlFile maps a sysctl key to its file under /proc/sys.
func sysctlFile(key string) (string, error) {
	rel := key
	if !strings.Contains(key, "/") {
		rel = strings.ReplaceAll(key, ".", "/")
	}
	clean := filepath.Clean("/" + rel)
	if key == "" || clean != "/"+rel || strings.Contains(rel, "..") {
		return "", fmt.Errorf("%w: sysctl key %q is not a plain key", drivers.ErrRejected, key)
	}
	return filepath.Join(procSys, rel), nil
}

// readSysctl opens the file inside the namespace, so it reads that
// namespace's value.
func (s *Switch) readSysctl(key string) (string, error) {
	file, err := sysctlFile(key)
	if err != nil {
		return "", err
	}
	var out string
	err = s.ns.do(func() error {
		b, err := os.ReadFile(file)
		out = strings.TrimSpace(string(b))
		return err
	})
	return out, err
}

func (s *Switch) writeSysctl(key, v string) error {
	file, err := sysctlFile(key)
	if err != nil {
		return err
	}
	return s.ns.do(func() error {
		f, err := os.OpenFile(file, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, werr := f.WriteString(v + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return werr
	})
}

// pendingChange is a pushed change waiting for Confirm or Rollback.
type pendingChange struct {
	sw      *Switch
	id      string
	changes []*change
	timer   *time.Timer

	mu   sync.Mutex
	done string // "", "confirmed", or why it was rolled back
}

func (p *pendingChange) ID() string { return p.id }

// Confirm keeps the change.
func (p *pendingChange) Confirm(context.Context) error {
	return p.finish("confirmed", false)
}

// Rollback restores the values read before the push.
func (p *pendingChange) Rollback(context.Context) error {
	return p.finish("rolled back", true)
}

func (p *pendingChange) finish(outcome string, rollback bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done != "" {
		if p.done == outcome || (rollback && strings.HasPrefix(p.done, "rolled back")) {
			return nil
		}
		return p.sw.devErr(stepOf(outcome), "", fmt.Errorf("%w: change %s was already %s", drivers.ErrRejected, p.id, p.done))
	}
	if p.timer != nil {
		p.timer.Stop()
	}
	var err error
	if rollback {
		if uerr := p.sw.undo(context.Background(), p.changes); uerr != nil {
			err = p.sw.devErr("rollback", "", uerr)
		}
	}
	p.done = outcome
	p.sw.mu.Lock()
	if p.sw.pending == p {
		p.sw.pending = nil
	}
	p.sw.mu.Unlock()
	return err
}

func stepOf(outcome string) string {
	if outcome == "confirmed" {
		return "confirm"
	}
	return "rollback"
}

// Interfaces lists the interface names in the namespace, sorted (for
// diagnostics and tests).
func (s *Switch) Interfaces() ([]string, error) {
	links, err := s.link.LinkList()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range links {
		out = append(out, l.Attrs().Name)
	}
	sort.Strings(out)
	return out, nil
}
