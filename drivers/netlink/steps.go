package netlink

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/safchain/ethtool"
	vnl "github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/drivers/netlink/dcbnl"
)

// Mechanisms named in reports.
const (
	mechNetlink  = "netlink"
	mechDCB      = "dcbnl"
	mechSysfs    = "sysfs"
	mechConfigfs = "configfs"
	mechEthtool  = "ethtool"
)

// absent is the value of an APP entry or VLAN netdev that does not exist.
const absent = "absent"

// steps lists the settings of every NIC in apply order: DCBX first (so
// lldpad or firmware stop owning DCB), the APP table before trust (mlx5
// switches to DSCP trust on the first DSCP entry), PFC, pause, MTU (parent
// before VLAN), DCQCN, and the rdma_cm defaults last. mkdir allows creating
// the rdma_cm configfs group (apply only).
func (h *Host) steps(desired *devcfg.HostSettings, mkdir bool) []*step {
	var out []*step
	for _, n := range desired.NICs {
		out = append(out, h.nicSteps(n, mkdir)...)
	}
	return out
}

func (h *Host) nicSteps(n devcfg.NICSettings, mkdir bool) []*step {
	var out []*step
	nic := n.Netdev
	pre := "nic/" + nic + "/"
	add := func(s *step, path, name, mech, want string) {
		s.setting = hostcontract.Setting{NIC: nic, Path: path, Name: name, Mechanism: mech, Want: want}
		out = append(out, s)
	}
	if n.DCBXMode != "" {
		add(h.dcbxStep(nic), pre+"dcbx", "DCBX mode", mechDCB, n.DCBXMode)
	}
	apps := append([]devcfg.AppEntry(nil), n.App...)
	sort.Slice(apps, func(i, j int) bool {
		if apps[i].Selector != apps[j].Selector {
			return apps[i].Selector < apps[j].Selector
		}
		return apps[i].Protocol < apps[j].Protocol
	})
	for _, a := range apps {
		add(h.appStep(nic, a.Selector, a.Protocol), fmt.Sprintf("%sapp/sel%d/%d", pre, a.Selector, a.Protocol),
			fmt.Sprintf("APP %s %d → priority", dcbnl.SelectorName(a.Selector), a.Protocol), mechDCB, strconv.Itoa(int(a.Priority)))
	}
	if n.Trust != "" {
		s := h.trustStep(nic)
		add(s, pre+"trust", "trust", mechDCB, n.Trust)
	}
	if n.PFCEnable != nil {
		add(h.pfcStep(nic), pre+"pfc/enable", "PFC enable", mechDCB, fmt.Sprintf("0x%02x", *n.PFCEnable))
	}
	if n.LinkPause != nil {
		want := "off"
		if *n.LinkPause {
			want = "on"
		}
		add(h.pauseStep(nic), pre+"pause", "802.3x pause", mechEthtool, want)
	}
	if n.MTU != 0 {
		add(h.mtuStep(nic), pre+"mtu", "MTU", mechNetlink, strconv.Itoa(n.MTU))
		if n.VLANNetdev != "" {
			s := h.vlanStep(nic, n.VLANNetdev, n.VLAN)
			add(s, "nic/"+n.VLANNetdev+"/mtu", fmt.Sprintf("MTU of VLAN %d netdev %s", n.VLAN, n.VLANNetdev), mechNetlink, strconv.Itoa(n.MTU))
		}
	}
	for _, prio := range n.ECNNotificationPoint {
		rel := fmt.Sprintf("ecn/roce_np/enable/%d", prio)
		add(h.sysfsStep(nic, rel, observeECN(false, prio)), pre+rel, fmt.Sprintf("ECN notification point, priority %d", prio), mechSysfs, "1")
	}
	for _, prio := range n.ECNReactionPoint {
		rel := fmt.Sprintf("ecn/roce_rp/enable/%d", prio)
		add(h.sysfsStep(nic, rel, observeECN(true, prio)), pre+rel, fmt.Sprintf("ECN reaction point, priority %d", prio), mechSysfs, "1")
	}
	if n.CNPDSCP != nil {
		add(h.sysfsStep(nic, "ecn/roce_np/cnp_dscp", func(ns *devcfg.NICSettings, v string) { ns.CNPDSCP = atoiPtr(v) }),
			pre+"ecn/roce_np/cnp_dscp", "CNP DSCP", mechSysfs, strconv.Itoa(*n.CNPDSCP))
	}
	if n.CNPPriority != nil {
		add(h.sysfsStep(nic, "ecn/roce_np/cnp_802p_prio", func(ns *devcfg.NICSettings, v string) { ns.CNPPriority = atoiPtr(v) }),
			pre+"ecn/roce_np/cnp_802p_prio", "CNP 802.1p priority", mechSysfs, strconv.Itoa(*n.CNPPriority))
	}
	if n.RDMADevice != "" {
		port := max(n.RDMAPort, 1)
		rp := fmt.Sprintf("rdma/%s/%d/", n.RDMADevice, port)
		if n.RoCEMode != "" {
			add(h.rdmaCMStep(n.RDMADevice, port, "default_roce_mode", mkdir, func(ns *devcfg.NICSettings, v string) { ns.RoCEMode = v }),
				rp+"default_roce_mode", "rdma_cm default RoCE mode", mechConfigfs, n.RoCEMode)
		}
		if n.RoCEToS != nil {
			add(h.rdmaCMStep(n.RDMADevice, port, "default_roce_tos", mkdir, func(ns *devcfg.NICSettings, v string) { ns.RoCEToS = atoiPtr(v) }),
				rp+"default_roce_tos", "rdma_cm default ToS", mechConfigfs, strconv.Itoa(*n.RoCEToS))
		}
	}
	return out
}

func atoiPtr(v string) *int {
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil
	}
	return &n
}

func observeECN(reaction bool, prio int) func(*devcfg.NICSettings, string) {
	return func(n *devcfg.NICSettings, v string) {
		if v != "1" {
			return
		}
		if reaction {
			n.ECNReactionPoint = append(n.ECNReactionPoint, prio)
		} else {
			n.ECNNotificationPoint = append(n.ECNNotificationPoint, prio)
		}
	}
}

// dcbxStep sets DCBX to host-managed IEEE, so lldpad or NIC firmware do not
// overwrite what rocefab sets.
func (h *Host) dcbxStep(nic string) *step {
	return &step{
		read: func(context.Context) (string, error) {
			m, err := h.dcb.getDCBX(nic)
			if err != nil {
				return "", err
			}
			return dcbnl.DCBXModeString(m), nil
		},
		write: func(_ context.Context, v string) error {
			m, err := dcbnl.ParseDCBXMode(v)
			if err != nil {
				return err
			}
			err = h.dcb.setDCBX(nic, m)
			if err != nil && m&dcbnl.DCBXLLDManaged != 0 {
				// mlx5 reports firmware mode as LLD-managed but refuses to
				// be set to it; a mode without the host bit hands DCB back
				// to the firmware (restoring what was read).
				err = h.dcb.setDCBX(nic, m&^(dcbnl.DCBXLLDManaged|dcbnl.DCBXHost))
			}
			return err
		},
		matches: func(cur, want string) bool {
			c, err1 := dcbnl.ParseDCBXMode(cur)
			w, err2 := dcbnl.ParseDCBXMode(want)
			const mask = dcbnl.DCBXHost | dcbnl.DCBXLLDManaged | dcbnl.DCBXVerIEEE | dcbnl.DCBXVerCEE
			return err1 == nil && err2 == nil && c&mask == w&mask
		},
		observe: func(n *devcfg.NICSettings, v string) { n.DCBXMode = v },
	}
}

// appPriorities lists the priorities the APP table gives a protocol.
func appPriorities(ieee *dcbnl.IEEE, sel uint8, proto uint16) []dcbnl.App {
	var out []dcbnl.App
	for _, a := range ieee.Apps {
		if a.Selector == sel && a.Protocol == proto {
			out = append(out, a)
		}
	}
	return out
}

// appStep manages one APP entry: selector/protocol → priority. IEEE allows
// several priorities per protocol; rocefab leaves exactly one.
func (h *Host) appStep(nic string, sel uint8, proto uint16) *step {
	read := func(context.Context) (string, error) {
		ieee, err := h.dcb.getIEEE(nic)
		if err != nil {
			return "", err
		}
		entries := appPriorities(ieee, sel, proto)
		if len(entries) == 0 {
			return absent, nil
		}
		var prios []string
		for _, e := range entries {
			prios = append(prios, strconv.Itoa(int(e.Priority)))
		}
		sort.Strings(prios)
		return strings.Join(prios, ","), nil
	}
	return &step{
		read: read,
		write: func(_ context.Context, v string) error {
			var keep []int
			if v != absent {
				for _, p := range strings.Split(v, ",") {
					n, err := strconv.Atoi(p)
					if err != nil || n < 0 || n > 7 {
						return fmt.Errorf("APP priority %q is not 0..7", p)
					}
					keep = append(keep, n)
					// Set first: mlx5 replaces its DSCP entry itself, and a
					// delete-first would briefly drop DSCP trust.
					if err := h.dcb.setIEEE(nic, dcbnl.IEEE{Apps: []dcbnl.App{{Selector: sel, Priority: uint8(n), Protocol: proto}}}); err != nil {
						return err
					}
				}
			}
			ieee, err := h.dcb.getIEEE(nic)
			if err != nil {
				return err
			}
			var stale []dcbnl.App
			for _, e := range appPriorities(ieee, sel, proto) {
				if !containsInt(keep, int(e.Priority)) {
					stale = append(stale, e)
				}
			}
			if len(stale) > 0 {
				return h.dcb.delApps(nic, stale)
			}
			return nil
		},
		observe: func(n *devcfg.NICSettings, v string) {
			if p, err := strconv.Atoi(v); err == nil {
				n.App = append(n.App, devcfg.AppEntry{Selector: sel, Priority: uint8(p), Protocol: proto})
			}
		},
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// trustStep sets DSCP or PCP trust: through MLNX_OFED's qos/trust in sysfs
// when present, else the DCB APP trust table, else (inbox mlx5) it is
// implied by the DSCP entries of the APP table.
func (h *Host) trustStep(nic string) *step {
	s := &step{observe: func(n *devcfg.NICSettings, v string) { n.Trust = v }}
	sysfsName := path.Join("class/net", nic, "qos/trust")
	viaSysfs := func() bool {
		if !h.netClassVisible {
			return false
		}
		_, err := h.sysfs.Stat(sysfsName)
		return err == nil
	}
	s.read = func(context.Context) (string, error) {
		if viaSysfs() {
			s.setting.Mechanism = mechSysfs
			b, err := h.sysfs.ReadFile(sysfsName)
			if err != nil {
				return "", err
			}
			return parseTrustFile(string(b)), nil
		}
		s.setting.Mechanism = mechDCB
		ieee, err := h.dcb.getIEEE(nic)
		if err != nil {
			return "", err
		}
		if ieee.TrustPresent {
			return dcbnl.TrustString(ieee.Trust), nil
		}
		for _, a := range ieee.Apps {
			if a.Selector == dcbnl.SelDSCP {
				return "dscp", nil
			}
		}
		return "pcp", nil
	}
	s.write = func(_ context.Context, v string) error {
		if viaSysfs() {
			return sysfsWrite(h.sysfs, sysfsName, v)
		}
		ieee, err := h.dcb.getIEEE(nic)
		if err != nil {
			return err
		}
		if ieee.TrustPresent {
			sels, err := dcbnl.ParseTrust(v)
			if err != nil {
				return err
			}
			return h.dcb.setIEEE(nic, dcbnl.IEEE{Trust: sels})
		}
		// Implied trust (inbox mlx5): the DSCP APP entries, written before
		// this step and restored after it, switch trust. Nothing to write;
		// the read-back after all writes checks the outcome.
		return nil
	}
	s.explain = func(got string) string {
		if got == "dscp" {
			return fmt.Sprintf("%s trusts DSCP because its APP table has DSCP entries and its driver has no other trust setting (remove them with `dcb app flush dev %s dscp-prio`)", nic, nic)
		}
		return fmt.Sprintf("%s takes DSCP trust only from DSCP APP entries, and it has none", nic)
	}
	s.matches = func(cur, want string) bool {
		first, _, _ := strings.Cut(cur, " ")
		return first == want
	}
	return s
}

// parseTrustFile reads MLNX_OFED's qos/trust, which prints either the bare
// mode or a sentence ending in it.
func parseTrustFile(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 {
		return ""
	}
	return strings.TrimSuffix(f[len(f)-1], ".")
}

// pfcStep sets the IEEE PFC enable bitmap, keeping the device's other PFC
// fields (capability, MACsec bypass, delay).
func (h *Host) pfcStep(nic string) *step {
	get := func() (*dcbnl.PFC, error) {
		ieee, err := h.dcb.getIEEE(nic)
		if err != nil {
			return nil, err
		}
		if ieee.PFC == nil {
			return nil, fmt.Errorf("%w: %s reports no IEEE PFC object", drivers.ErrUnsupported, nic)
		}
		return ieee.PFC, nil
	}
	return &step{
		read: func(context.Context) (string, error) {
			p, err := get()
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("0x%02x", p.Enable), nil
		},
		write: func(_ context.Context, v string) error {
			en, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 8)
			if err != nil {
				return fmt.Errorf("PFC bitmap %q: %v", v, err)
			}
			p, err := get()
			if err != nil {
				return err
			}
			p.Enable = uint8(en)
			return h.dcb.setIEEE(nic, dcbnl.IEEE{PFC: p})
		},
		observe: func(n *devcfg.NICSettings, v string) {
			if en, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 8); err == nil {
				b := uint8(en)
				n.PFCEnable = &b
			}
		},
	}
}

func onOff(v uint32) string {
	if v != 0 {
		return "on"
	}
	return "off"
}

// pauseStep sets 802.3x link pause (rx and tx) through the ethtool ioctls.
// Values read back as "autoneg=off rx=on tx=on" so a restore is exact; the
// wanted value is "off" or "on" for both directions.
func (h *Host) pauseStep(nic string) *step {
	return &step{
		read: func(context.Context) (string, error) {
			p, err := h.pause(nic)
			if err != nil {
				return "", err
			}
			return formatPause(p), nil
		},
		write: func(_ context.Context, v string) error {
			p, err := h.pause(nic)
			if err != nil {
				return err
			}
			switch v {
			case "off":
				p.RxPause, p.TxPause = 0, 0
			case "on":
				p.RxPause, p.TxPause = 1, 1
			default:
				if p, err = parsePause(v); err != nil {
					return err
				}
			}
			return h.setPause(nic, p)
		},
		matches: func(cur, want string) bool {
			p, err := parsePause(cur)
			if err != nil {
				return false
			}
			on := uint32(0)
			if want == "on" {
				on = 1
			}
			return (p.RxPause != 0) == (on != 0) && (p.TxPause != 0) == (on != 0)
		},
		observe: func(n *devcfg.NICSettings, v string) {
			if p, err := parsePause(v); err == nil {
				on := p.RxPause != 0 || p.TxPause != 0
				n.LinkPause = &on
			}
		},
	}
}

// formatPause is the read-back form parsePause reads.
func formatPause(p ethtool.Pause) string {
	return fmt.Sprintf("autoneg=%s rx=%s tx=%s", onOff(p.Autoneg), onOff(p.RxPause), onOff(p.TxPause))
}

func parsePause(s string) (ethtool.Pause, error) {
	var p ethtool.Pause
	fields := strings.Fields(s)
	if len(fields) == 0 {
		// An empty restore value must not quietly turn pause off.
		return p, fmt.Errorf("empty pause value: want autoneg=on|off rx=on|off tx=on|off")
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || (v != "on" && v != "off") {
			return p, fmt.Errorf("pause value %q: want autoneg=on|off rx=on|off tx=on|off", s)
		}
		bit := uint32(0)
		if v == "on" {
			bit = 1
		}
		switch k {
		case "autoneg":
			p.Autoneg = bit
		case "rx":
			p.RxPause = bit
		case "tx":
			p.TxPause = bit
		default:
			return p, fmt.Errorf("pause value %q: unknown field %q", s, k)
		}
	}
	return p, nil
}

// linkByName finds a netdev, turning "not found" into a plain error.
func (h *Host) linkByName(name string) (vnl.Link, error) {
	l, err := h.link.LinkByName(name)
	if err != nil {
		var nf vnl.LinkNotFoundError
		if errors.As(err, &nf) {
			return nil, fmt.Errorf("no netdev %s%s", name, h.where())
		}
		return nil, err
	}
	return l, nil
}

func (h *Host) where() string {
	if h.ns.local() {
		return ""
	}
	return " in network namespace " + h.ns.name
}

func (h *Host) mtuStep(nic string) *step {
	return &step{
		read: func(context.Context) (string, error) {
			l, err := h.linkByName(nic)
			if err != nil {
				return "", err
			}
			return strconv.Itoa(l.Attrs().MTU), nil
		},
		write: func(_ context.Context, v string) error {
			mtu, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("MTU %q is not a number", v)
			}
			l, err := h.linkByName(nic)
			if err != nil {
				return err
			}
			if err := h.link.LinkSetMTU(l, mtu); err != nil {
				return fmt.Errorf("set MTU %d on %s: %w", mtu, nic, kernelErr(err))
			}
			return nil
		},
		observe: func(n *devcfg.NICSettings, v string) {
			n.MTU, _ = strconv.Atoi(v)
		},
	}
}

// vlanStep sets the MTU of the VLAN netdev carrying RoCE, creating it on
// the parent when it does not exist; its restore value "absent" deletes it.
func (h *Host) vlanStep(parent, name string, vlan int) *step {
	return &step{
		read: func(context.Context) (string, error) {
			l, err := h.link.LinkByName(name)
			if err != nil {
				var nf vnl.LinkNotFoundError
				if !errors.As(err, &nf) {
					return "", err
				}
				if ok, why := kernelHasVLAN(); !ok {
					return "", fmt.Errorf("%w: %s does not exist and the kernel has no 802.1Q VLAN support (%s)", drivers.ErrUnsupported, name, why)
				}
				return absent, nil
			}
			return strconv.Itoa(l.Attrs().MTU), nil
		},
		write: func(_ context.Context, v string) error {
			l, err := h.link.LinkByName(name)
			exists := err == nil
			if v == absent {
				if !exists {
					return nil
				}
				return h.link.LinkDel(l)
			}
			mtu, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("MTU %q is not a number", v)
			}
			if exists {
				if err := h.link.LinkSetMTU(l, mtu); err != nil {
					return fmt.Errorf("set MTU %d on %s: %w", mtu, name, kernelErr(err))
				}
				return nil
			}
			p, err := h.linkByName(parent)
			if err != nil {
				return err
			}
			vl := &vnl.Vlan{LinkAttrs: vnl.LinkAttrs{Name: name, ParentIndex: p.Attrs().Index, MTU: mtu}, VlanId: vlan}
			if err := h.link.LinkAdd(vl); err != nil {
				if isUnsupported(err) {
					return fmt.Errorf("%w: create VLAN %d netdev %s: the kernel has no 802.1Q VLAN support (%v); load 8021q", drivers.ErrUnsupported, vlan, name, err)
				}
				return fmt.Errorf("create VLAN %d netdev %s: %w", vlan, name, err)
			}
			if err := h.link.LinkSetUp(vl); err != nil {
				return fmt.Errorf("set %s up: %w", name, err)
			}
			return nil
		},
	}
}

// sysfsStep manages /sys/class/net/<nic>/<rel>, the MLNX_OFED ECN nodes.
func (h *Host) sysfsStep(nic, rel string, observe func(*devcfg.NICSettings, string)) *step {
	name := path.Join("class/net", nic, rel)
	visible := func() error {
		if !h.netClassVisible {
			return fmt.Errorf("%w: /sys/class/net of network namespace %s is not visible from here (pass --sysfs-root)", drivers.ErrUnsupported, h.ns.name)
		}
		return nil
	}
	return &step{
		read: func(context.Context) (string, error) {
			if err := visible(); err != nil {
				return "", err
			}
			return h.sysfsRead(name, nic)
		},
		write: func(_ context.Context, v string) error {
			if err := visible(); err != nil {
				return err
			}
			return sysfsWrite(h.sysfs, name, v)
		},
		observe: observe,
	}
}

// sysfsRead reads an attribute; a missing node is "unsupported" (inbox
// drivers have no MLNX_OFED ecn/ directory), a missing netdev is not.
func (h *Host) sysfsRead(name, nic string) (string, error) {
	b, err := h.sysfs.ReadFile(name)
	if err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, derr := h.sysfs.Stat(path.Join("class/net", nic)); derr != nil {
			return "", fmt.Errorf("no netdev %s in sysfs: %w", nic, err)
		}
		return "", fmt.Errorf("%w: %s has no %s (MLNX_OFED ECN sysfs)", drivers.ErrUnsupported, nic, strings.TrimPrefix(name, "class/net/"+nic+"/"))
	}
	return "", err
}

// sysfsWrite writes an existing attribute; EOPNOTSUPP or a vanished node
// is unsupported, anything else (EACCES, EINVAL) a failure.
func sysfsWrite(f FS, name, v string) error {
	err := f.WriteFile(name, []byte(v+"\n"))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %v", drivers.ErrUnsupported, err)
	default:
		return kernelErr(err)
	}
}

// rdmaCMStep manages configfs rdma_cm/<dev>/ports/<port>/<attr>. The
// <dev> group exists only after mkdir, which apply does and plan does not.
func (h *Host) rdmaCMStep(dev string, port int, attr string, mkdir bool, observe func(*devcfg.NICSettings, string)) *step {
	group := path.Join("rdma_cm", dev)
	name := path.Join(group, "ports", strconv.Itoa(port), attr)
	ensure := func() (bool, error) {
		if _, err := h.configfs.Stat("rdma_cm"); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return false, fmt.Errorf("%w: configfs rdma_cm is not available (mount configfs on /sys/kernel/config and load rdma_cm)", drivers.ErrUnsupported)
			}
			return false, err
		}
		if _, err := h.configfs.Stat(group); err == nil {
			return true, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		if !mkdir {
			return false, nil
		}
		if err := h.configfs.Mkdir(group); err != nil && !errors.Is(err, fs.ErrExist) {
			if isUnsupported(err) {
				return false, kernelErr(err)
			}
			return false, fmt.Errorf("create configfs rdma_cm/%s (is %s an RDMA device?): %w", dev, dev, err)
		}
		return true, nil
	}
	return &step{
		read: func(context.Context) (string, error) {
			ok, err := ensure()
			if err != nil {
				return "", err
			}
			if !ok {
				return "not set (rdma_cm/" + dev + " not created yet)", nil
			}
			b, err := h.configfs.ReadFile(name)
			if errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("configfs rdma_cm/%s has no port %d", dev, port)
			}
			if err != nil {
				return "", err
			}
			return strings.TrimSpace(string(b)), nil
		},
		write: func(_ context.Context, v string) error {
			if _, err := ensure(); err != nil {
				return err
			}
			return sysfsWrite(h.configfs, name, v)
		},
		observe: func(n *devcfg.NICSettings, v string) {
			if !strings.HasPrefix(v, "not set") {
				observe(n, v)
			}
		},
	}
}

// kernelHasVLAN tells whether 802.1Q devices can be created: the 8021q
// code is loaded or built in (/proc/net/vlan, /sys/module/8021q), or its
// module is installed for the running kernel. Plan uses it so a kernel
// without VLAN support shows "unsupported", not a change apply cannot make.
func kernelHasVLAN() (bool, string) {
	for _, p := range []string{"/proc/net/vlan", "/sys/module/8021q"} {
		if _, err := os.Stat(p); err == nil {
			return true, ""
		}
	}
	var uts unix.Utsname
	if err := unix.Uname(&uts); err == nil {
		release := unix.ByteSliceToString(uts.Release[:])
		if m, _ := filepath.Glob(filepath.Join("/lib/modules", release, "kernel/net/8021q/8021q.ko*")); len(m) > 0 {
			return true, ""
		}
	}
	return false, "no /proc/net/vlan, no 8021q module: CONFIG_VLAN_8021Q is off"
}
