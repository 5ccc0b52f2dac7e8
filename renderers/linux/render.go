package linux

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// MTUCeiling is the L3 MTU "max" renders.
const MTUCeiling = 9216

// Path prefixes; drivers/netlink uses the same forms.
const (
	InterfacesPrefix = "/interfaces/"
	SysctlPrefix     = "/sysctl/"
)

// ForwardingSysctls are what a router needs on: IPv4 and IPv6 forwarding.
var ForwardingSysctls = []string{"net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding"}

// Renderer renders linux switches.
type Renderer struct{}

// New returns a renderer.
func New() renderers.Renderer { return Renderer{} }

// MTUPath is the path of an interface MTU.
func MTUPath(ifname string) string { return InterfacesPrefix + ifname + "/mtu" }

// SysctlPath is the path of a sysctl.
func SysctlPath(key string) string { return SysctlPrefix + key }

// Render sets the MTU of every RoCE port (and of its bond, when the port is
// in a LAG) and turns forwarding on.
func (Renderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := sw.Policy
	mtu := renderers.SwitchMTU(p, MTUCeiling)
	if mtu < 68 || mtu > MTUCeiling {
		return nil, fmt.Errorf("switch %s: MTU %d is outside 68..%d for the linux platform", sw.Name, mtu, MTUCeiling)
	}
	cfg := &devcfg.Config{Device: sw.Name, Platform: "linux", Shape: devcfg.ShapePaths, Paths: devcfg.Paths{}}
	own := func(path string, v devcfg.Value) {
		if _, dup := cfg.Paths[path]; !dup {
			cfg.Owned.Paths = append(cfg.Owned.Paths, path)
		}
		cfg.Paths[path] = v
	}
	trunk := false
	for _, port := range sw.Ports {
		own(MTUPath(port.Name), devcfg.Int(int64(mtu)))
		if port.LAG != "" {
			own(MTUPath(port.LAG), devcfg.Int(int64(mtu)))
		}
		trunk = trunk || port.Mode != "routed"
	}
	for _, k := range ForwardingSysctls {
		own(SysctlPath(k), devcfg.String("1"))
	}
	sort.Strings(cfg.Owned.Paths)
	cfg.Notes = append(cfg.Notes, "linux: PFC, ECN marking and DSCP classification are not rendered (the kernel forwards in software, without lossless queues); only MTU and forwarding are managed")
	if trunk && p.VLAN != 0 {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("linux: VLAN %d membership of trunk/access ports is not managed; configure the bridge yourself", p.VLAN))
	}
	return cfg, nil
}

// Encode is a readable listing of the settings as ip(8) and sysctl(8)
// commands. It is text for review only: rocefab applies the config through
// netlink and never runs it.
func Encode(cfg *devcfg.Config) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# rocefab linux configuration for %s\n", cfg.Device)
	b.WriteString("# listing for review; rocefab applies it through netlink and never runs it\n")
	var ifs, sysctls []string
	for _, k := range cfg.Paths.Keys() {
		switch {
		case strings.HasPrefix(k, InterfacesPrefix):
			ifs = append(ifs, k)
		case strings.HasPrefix(k, SysctlPrefix):
			sysctls = append(sysctls, k)
		default:
			return nil, fmt.Errorf("%s: path %s is not a linux path", cfg.Device, k)
		}
	}
	sort.Slice(ifs, func(i, j int) bool { return naturalLess(ifs[i], ifs[j]) })
	for _, k := range ifs {
		name, leaf, _ := strings.Cut(strings.TrimPrefix(k, InterfacesPrefix), "/")
		if leaf != "mtu" {
			return nil, fmt.Errorf("%s: unknown interface setting %s", cfg.Device, k)
		}
		fmt.Fprintf(&b, "ip link set dev %s mtu %s\n", name, cfg.Paths[k].Text())
	}
	for _, k := range sysctls {
		fmt.Fprintf(&b, "sysctl -w %s=%s\n", strings.TrimPrefix(k, SysctlPrefix), cfg.Paths[k].Text())
	}
	return []byte(b.String()), nil
}

// naturalLess orders swp2 before swp10.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.Atoi(da)
			nb, _ := strconv.Atoi(db)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitsPrefix(s string) string {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}
