package netlink

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/safchain/ethtool"
	vnl "github.com/vishvananda/netlink"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
)

// HostOptions configure NIC management on the machine rocefab runs on (or
// in a network namespace of it, for lab hosts).
type HostOptions struct {
	// Netns is the namespace the NICs live in: a name under /run/netns or
	// a path; "" is rocefab's own namespace.
	Netns string
	// SysfsRoot and ConfigfsRoot relocate /sys and /sys/kernel/config
	// (tests use fake trees). Sysfs and Configfs, when set, replace them.
	SysfsRoot    string
	ConfigfsRoot string
	Sysfs        FS
	Configfs     FS
	// Timeout bounds each netlink request; default 10s.
	Timeout time.Duration
	Logger  *zap.Logger
}

// Host reads and applies NIC settings.
type Host struct {
	opt      HostOptions
	ns       *namespace
	link     *vnl.Handle
	dcb      dcbClient
	sysfs    FS
	configfs FS
	// netClassVisible: /sys/class/net shows this namespace's netdevs. A
	// netns's own sysfs is not visible through the default /sys.
	netClassVisible bool
	log             *zap.Logger
}

// HostResult is the outcome of a plan or an apply.
type HostResult struct {
	Settings []hostcontract.Setting
	// Observed is what the host has: read before (plan) or after (apply).
	Observed *devcfg.HostSettings
	// RolledBack: apply failed and restored the earlier values.
	RolledBack bool
}

// OpenHost opens the netlink sockets for a host.
func OpenHost(opt HostOptions) (*Host, error) {
	if opt.Timeout == 0 {
		opt.Timeout = 10 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	h := &Host{opt: opt, log: opt.Logger, sysfs: opt.Sysfs, configfs: opt.Configfs}
	if h.sysfs == nil {
		root := opt.SysfsRoot
		if root == "" {
			root = DefaultSysfsRoot
		}
		h.sysfs = DirFS(root)
		h.netClassVisible = opt.Netns == "" || root != DefaultSysfsRoot
	} else {
		h.netClassVisible = true
	}
	if h.configfs == nil {
		root := opt.ConfigfsRoot
		if root == "" {
			root = DefaultConfigfsRoot
		}
		h.configfs = DirFS(root)
	}
	ns, err := openNamespace(opt.Netns)
	if err != nil {
		return nil, err
	}
	h.ns = ns
	if ns.local() {
		h.link, err = vnl.NewHandle()
	} else {
		h.link, err = vnl.NewHandleAt(ns.handle)
	}
	if err != nil {
		ns.close()
		return nil, fmt.Errorf("open rtnetlink: %w", err)
	}
	if err := h.link.SetSocketTimeout(opt.Timeout); err != nil {
		h.Close()
		return nil, err
	}
	conn, err := openDCB(ns, opt.Timeout)
	if err != nil {
		h.Close()
		return nil, err
	}
	h.dcb = conn
	return h, nil
}

// Close releases the sockets.
func (h *Host) Close() error {
	if h.dcb != nil {
		h.dcb.close()
	}
	if h.link != nil {
		h.link.Close()
	}
	if h.ns != nil {
		h.ns.close()
	}
	return nil
}

// Plan reads every managed setting and reports which would change. It never
// writes, and never creates the rdma_cm configfs group.
func (h *Host) Plan(ctx context.Context, desired *devcfg.HostSettings) (*HostResult, error) {
	steps := h.steps(desired, false)
	settings, _ := readAll(ctx, steps)
	return &HostResult{Settings: settings, Observed: observed(desired.Host, desired, steps, settings)}, ctx.Err()
}

// Apply changes every setting that differs, all or nothing: it reads every
// current value first, applies in order, reads each back, and restores the
// earlier values if a later setting fails. Unsupported settings are
// reported, not failed.
func (h *Host) Apply(ctx context.Context, desired *devcfg.HostSettings) (*HostResult, error) {
	steps := h.steps(desired, true)
	settings, rolledBack, err := applyAll(ctx, h.log, steps)
	res := &HostResult{Settings: settings, Observed: observed(desired.Host, desired, steps, settings), RolledBack: rolledBack}
	if err != nil {
		return res, &drivers.DeviceError{Device: desired.Host, Step: "apply", Err: err}
	}
	return res, nil
}

// RoCEGIDIndex finds the GID table index of the RoCE v2 IPv4 GID that
// belongs to ndev on an RDMA port, for NCCL_IB_GID_INDEX. With addr set,
// the GID must carry that IPv4 address.
func (h *Host) RoCEGIDIndex(rdmaDev string, port int, ndev, addr string) (int, error) {
	base := path.Join("class/infiniband", rdmaDev, "ports", strconv.Itoa(max(port, 1)))
	entries, err := readDirNames(h.sysfs, path.Join(base, "gid_attrs/types"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("%w: no GID table for %s port %d in sysfs", drivers.ErrUnsupported, rdmaDev, port)
		}
		return 0, err
	}
	for _, e := range entries {
		idx, err := strconv.Atoi(e)
		if err != nil {
			continue
		}
		typ, err1 := h.sysfs.ReadFile(path.Join(base, "gid_attrs/types", e))
		dev, err2 := h.sysfs.ReadFile(path.Join(base, "gid_attrs/ndevs", e))
		gid, err3 := h.sysfs.ReadFile(path.Join(base, "gids", e))
		if err1 != nil || err2 != nil || err3 != nil {
			continue // unused entries read as errors
		}
		if strings.TrimSpace(string(typ)) != "RoCE v2" || strings.TrimSpace(string(dev)) != ndev {
			continue
		}
		g := strings.TrimSpace(string(gid))
		if !strings.HasPrefix(g, "0000:0000:0000:0000:0000:ffff:") {
			continue
		}
		if addr == "" || g == mappedGID(addr) {
			return idx, nil
		}
	}
	return 0, fmt.Errorf("no RoCE v2 IPv4 GID for %s on %s port %d (is an IPv4 address configured on %s?)", ndev, rdmaDev, port, ndev)
}

// mappedGID writes an IPv4 address as the kernel shows an IPv4-mapped GID.
func mappedGID(addr string) string {
	parts := strings.Split(addr, ".")
	if len(parts) != 4 {
		return ""
	}
	var b [4]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 {
			return ""
		}
		b[i] = n
	}
	return fmt.Sprintf("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", b[0], b[1], b[2], b[3])
}

// readDirNames lists a directory through FS, using Stat and a ReadDir
// extension when the FS has one.
func readDirNames(f FS, name string) ([]string, error) {
	type readDirFS interface {
		ReadDir(name string) ([]fs.DirEntry, error)
	}
	if _, err := f.Stat(name); err != nil {
		return nil, err
	}
	rd, ok := f.(readDirFS)
	if !ok {
		return nil, fmt.Errorf("%w: cannot list %s", drivers.ErrUnsupported, name)
	}
	ents, err := rd.ReadDir(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i])
		b, _ := strconv.Atoi(out[j])
		return a < b
	})
	return out, nil
}

// pause reads 802.3x pause parameters through the ETHTOOL_GPAUSEPARAM ioctl.
func (h *Host) pause(netdev string) (ethtool.Pause, error) {
	var p ethtool.Pause
	err := h.ns.do(func() error {
		e, err := ethtool.NewEthtool()
		if err != nil {
			return err
		}
		defer e.Close()
		p, err = e.GetPause(netdev)
		return err
	})
	return p, kernelErr(err)
}

func (h *Host) setPause(netdev string, p ethtool.Pause) error {
	return kernelErr(h.ns.do(func() error {
		e, err := ethtool.NewEthtool()
		if err != nil {
			return err
		}
		defer e.Close()
		_, err = e.SetPause(netdev, p)
		return err
	}))
}
