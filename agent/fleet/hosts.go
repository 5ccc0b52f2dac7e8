package fleet

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/drivers/netlink"
	"github.com/rocefab/rocefab/drivers/ssh"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/validators/consistency"
)

// Hosts puts hosts into the central plan and apply. Hosts in a network
// namespace on this machine (the lab, the demo) and this machine itself
// run in-process; every other host runs `rocefab host plan|apply` over
// SSH through the host JSON contract.
type Hosts struct {
	f     *Fleet
	paths []string
	// SSH runs commands on the hosts that are not in-process.
	SSH *ssh.Exec

	mu  sync.Mutex // guards res, loaded once for saved plans
	res *intent.Resolved
}

var _ engine.HostRunner = (*Hosts)(nil)

// Hosts runs the hosts of res, or of the intent at paths (loaded when
// first needed) for a saved plan.
func (f *Fleet) Hosts(res *intent.Resolved, paths []string) *Hosts {
	h := &Hosts{f: f, res: res, paths: paths}
	h.SSH = f.HostExec(h.Intent)
	return h
}

// Intent is the intent the hosts run: the one given, or the one at the
// paths, loaded once.
func (hs *Hosts) Intent() (*intent.Resolved, error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.res != nil {
		return hs.res, nil
	}
	res, err := hs.f.LoadIntent(hs.paths)
	if err != nil {
		return nil, fmt.Errorf("hosts need the plan's intent (%s): %w", strings.Join(hs.paths, ", "), err)
	}
	hs.res = res
	return res, nil
}

// InProcess reports whether the host is reachable without SSH.
func InProcess(res *intent.Resolved, h *intent.Host) bool {
	if h.Netns != "" {
		return true
	}
	local := LocalHost(res)
	return local != nil && local.Name == h.Name
}

// LocalHost finds the intent host that is this machine: by hostname (full
// or short), else by an address of this machine (host address or NIC IP);
// nil when none matches.
func LocalHost(res *intent.Resolved) *intent.Host {
	hn, _ := os.Hostname()
	short, _, _ := strings.Cut(hn, ".")
	for _, h := range res.Hosts {
		if h.Name == hn || h.Name == short {
			return h
		}
	}
	local := map[netip.Addr]bool{}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				local[p.Addr().Unmap()] = true
			}
		}
	}
	for _, h := range res.Hosts {
		cands := []string{h.Address.Host}
		for _, n := range h.NICs {
			cands = append(cands, n.Address)
		}
		for _, c := range cands {
			if ip, err := netip.ParseAddr(c); err == nil && local[ip.Unmap()] {
				return h
			}
		}
	}
	return nil
}

// Run plans (or applies) one host where it is and says how it was
// reached: local, netns or ssh.
func (hs *Hosts) Run(ctx context.Context, res *intent.Resolved, h *intent.Host, apply bool) (*hostcontract.HostReport, string, error) {
	if InProcess(res, h) {
		kind := hostcontract.KindHostPlan
		if apply {
			kind = hostcontract.KindHostApply
		}
		transport := "local"
		if h.Netns != "" {
			transport = "netns"
		}
		r, err := hs.f.RunHost(ctx, HostRun{Apply: apply, Kind: kind, Timeout: 10 * time.Second}, res, h)
		return r, transport, err
	}
	data, err := hs.f.bundle(res)
	if err != nil {
		return nil, "ssh", err
	}
	client := &hostcontract.Client{Runner: hs.SSH, Intent: data}
	var r *hostcontract.HostReport
	if apply {
		r, err = client.Apply(ctx, h.Name)
	} else {
		r, err = client.Plan(ctx, h.Name)
	}
	return r, "ssh", err
}

// PlanHost runs host plan and turns its report into a device plan.
func (hs *Hosts) PlanHost(ctx context.Context, res *intent.Resolved, h *intent.Host) (compliance.DevicePlan, error) {
	dp := compliance.DevicePlan{Device: h.Name, Kind: "host", Platform: "host", Address: h.Address.String(),
		Connection: compliance.Connection{Netns: h.Netns}}
	r, transport, err := hs.Run(ctx, res, h, false)
	dp.Transport = transport
	if err != nil {
		return dp, err
	}
	if r.Failed() {
		return dp, fmt.Errorf("host plan: %s", hostFailure(r))
	}
	dp.Changes = r.Changes()
	dp.Warnings = unsupportedNote(r)
	dp.Notes = r.Notes
	// What the NIC runs must agree with the switch port it is cabled to;
	// settings it could not read are checked as rendered.
	findings, err := consistency.CheckHost(res, hs.f.Renderers, h, r.Observed)
	if err != nil {
		return dp, err
	}
	for _, c := range findings {
		dp.Warnings = append(dp.Warnings, "host/switch mismatch: "+c.Message)
	}
	return dp, nil
}

// ApplyHost runs host apply, which is all-or-nothing on the host.
func (hs *Hosts) ApplyHost(ctx context.Context, res *intent.Resolved, dp compliance.DevicePlan) error {
	if res == nil {
		var err error
		if res, err = hs.Intent(); err != nil {
			return err
		}
	}
	h := res.Host(dp.Device)
	if h == nil {
		return fmt.Errorf("host %s is no longer in the intent", dp.Device)
	}
	r, _, err := hs.Run(ctx, res, h, true)
	if err != nil {
		return err
	}
	if r.Failed() {
		return fmt.Errorf("host apply: %s", hostFailure(r))
	}
	return nil
}

func hostFailure(r *hostcontract.HostReport) string {
	if r.Error != "" {
		return r.Error
	}
	var parts []string
	for _, s := range r.Settings {
		if s.Status == hostcontract.StatusFailed || s.Status == hostcontract.StatusRolledBack {
			parts = append(parts, fmt.Sprintf("%s %s %s: %s", s.NIC, s.Name, s.Status, s.Message))
		}
	}
	if r.RolledBack {
		parts = append(parts, "earlier values restored")
	}
	return strings.Join(parts, "; ")
}

// unsupportedNote names the settings the host cannot do, so a plan never
// hides them.
func unsupportedNote(r *hostcontract.HostReport) []string {
	var names []string
	for _, s := range r.Settings {
		if s.Status == hostcontract.StatusUnsupported {
			names = append(names, s.NIC+" "+s.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return []string{fmt.Sprintf("%d setting(s) unsupported on this device: %s", len(names), strings.Join(names, ", "))}
}

// HostRun is one host plan or apply on this machine.
type HostRun struct {
	Apply bool
	Kind  hostcontract.Kind
	// SysfsRoot and ConfigfsRoot replace /sys and the configfs mount
	// (tests); empty: the real ones.
	SysfsRoot, ConfigfsRoot string
	Timeout                 time.Duration
}

// RunHost renders the host, plans or applies it on this machine (or in
// its namespace), and builds the report. The report is nil only when
// nothing could be read.
func (f *Fleet) RunHost(ctx context.Context, run HostRun, res *intent.Resolved, h *intent.Host) (*hostcontract.HostReport, error) {
	rendered, err := host.Render(h, res)
	if err != nil {
		return nil, err
	}
	nh, err := netlink.OpenHost(netlink.HostOptions{
		Netns: h.Netns, SysfsRoot: run.SysfsRoot, ConfigfsRoot: run.ConfigfsRoot,
		Timeout: run.Timeout, Logger: f.log().With(zap.String("host", h.Name)),
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.Name, err)
	}
	defer nh.Close()
	var result *netlink.HostResult
	var runErr error
	if run.Apply {
		result, runErr = nh.Apply(ctx, rendered.Settings)
	} else {
		result, runErr = nh.Plan(ctx, rendered.Settings)
	}
	if result == nil {
		return nil, runErr
	}
	r := &hostcontract.HostReport{
		Envelope: hostcontract.NewEnvelope(run.Kind, h.Name),
		Desired:  rendered.Settings, Observed: result.Observed,
		Settings: result.Settings, Summary: hostcontract.Summarise(result.Settings),
		RolledBack: result.RolledBack, Notes: rendered.Config.Notes,
	}
	r.Applications = appHints(nh, h, rendered)
	return r, runErr
}

// appHints turns the renderer's application settings into report hints,
// reading the GID index on this host.
func appHints(nh *netlink.Host, h *intent.Host, rendered *host.Rendered) []hostcontract.AppHint {
	var out []hostcontract.AppHint
	for _, s := range rendered.Applications {
		hint := hostcontract.AppHint{Name: s.Name, Value: s.Value, NIC: s.NIC, Why: s.Why}
		if s.Name == "NCCL_IB_GID_INDEX" {
			for _, n := range rendered.Settings.NICs {
				if n.Netdev != s.NIC {
					continue
				}
				ndev := n.Netdev
				if n.VLANNetdev != "" {
					ndev = n.VLANNetdev
				}
				addr := ""
				for _, in := range h.NICs {
					if in.Netdev == n.Netdev {
						addr = in.Address
					}
				}
				idx, err := nh.RoCEGIDIndex(n.RDMADevice, n.RDMAPort, ndev, addr)
				if err != nil {
					hint.Why += "; not found here: " + err.Error()
				} else {
					hint.Value = strconv.Itoa(idx)
				}
			}
		}
		out = append(out, hint)
	}
	return out
}
