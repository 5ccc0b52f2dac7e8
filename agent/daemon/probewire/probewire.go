package probewire

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sort"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/probe"
)

// Options configure the runner.
type Options struct {
	// From is this host's name in the intent; default the hostname. It
	// labels the pairs and is left out of the targets.
	From string
	// RunDir is where a running `rocefab probe serve` has its control
	// socket (default /run/rocefab); without a server the run opens its
	// own endpoint on the RoCEv2 port.
	RunDir string
	// Parallel pairs at once (default the probe's).
	Parallel int
	Logger   *zap.Logger

	// run is probe.Run; tests replace it.
	run func(context.Context, probe.RunConfig) (*probe.Report, error)
}

// Runner is the agent's ProbeRunner over validators/probe. The probe
// sends from the host the agent runs on: the agent on a host (DaemonSet,
// systemd on a GPU node) probes its peers. With pairs: listed, only the
// listed pairs that start or end here are probed; otherwise every owned
// host with a NIC address.
func Runner(opt Options) daemon.ProbeRunner {
	if opt.From == "" {
		opt.From, _ = os.Hostname()
	}
	if opt.RunDir == "" {
		opt.RunDir = probe.DefaultRunDir
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	if opt.run == nil {
		opt.run = probe.Run
	}
	return func(ctx context.Context, r *intent.Resolved, owns func(string) bool) (daemon.ProbeSummary, error) {
		targets, err := Targets(r, owns, opt.From)
		if err != nil {
			return daemon.ProbeSummary{}, err
		}
		pol := PolicyFor(r)
		ecfg := probe.DefaultEndpointConfig()
		ecfg.RunDir, ecfg.Policy, ecfg.Name, ecfg.Logger = opt.RunDir, pol, opt.From, opt.Logger
		rep, err := opt.run(ctx, probe.RunConfig{Targets: targets, Policy: pol, From: opt.From, Parallel: opt.Parallel,
			Endpoint: ecfg, Logger: opt.Logger})
		if rep == nil {
			if err == nil {
				err = errors.New("the probe returned no report")
			}
			return daemon.ProbeSummary{}, err
		}
		if err != nil && ctx.Err() == nil {
			return daemon.ProbeSummary{}, err
		}
		return Summarise(rep), ctx.Err()
	}
}

// PolicyFor is the probe policy of the fabric-wide intent: DSCPs, host MTU,
// profile, and the probe section's count, rate, P_Key, QPs and loss limit.
// Payload sizes stay the probe's: the intent's sizes are payloads, the
// probe's Sizes are the MTU sweep's packet sizes.
func PolicyFor(r *intent.Resolved) probe.Policy {
	p := probe.DefaultPolicy()
	pol := r.Policy
	if len(pol.RoCEDSCP) > 0 {
		p.RoCEDSCP = uint8(pol.RoCEDSCP[0])
	}
	p.CNPDSCP = uint8(pol.CNPDSCP)
	if pol.HostMTU > 0 {
		p.HostMTU = pol.HostMTU
	}
	if pol.Profile != "" {
		p.Profile = probe.Profile(pol.Profile)
	}
	pr := r.Probe
	if pr.Count > 0 {
		p.Count = pr.Count
	}
	// The intent's duration bounds a run that does not reach its count; the
	// probe's Duration instead sends for that long, so it is not mapped.
	if pr.RatePPS > 0 {
		p.RatePPS = pr.RatePPS
	}
	if pr.PKey > 0 {
		p.PKey = uint16(pr.PKey)
	}
	if pr.QPMin > 0 && pr.QPMax > 0 {
		p.QPMin, p.QPMax = uint32(pr.QPMin), uint32(pr.QPMax)
	}
	p.MaxLossPercent = pr.MaxLossPercent
	return p
}

// Targets are the NIC addresses to probe from host from.
func Targets(r *intent.Resolved, owns func(string) bool, from string) ([]probe.Target, error) {
	wanted := map[string]bool{}
	listed := r.Probe.Pairs == "listed"
	if listed {
		for _, p := range r.Probe.List {
			switch from {
			case p.From:
				wanted[p.To] = true
			case p.To:
				wanted[p.From] = true
			}
		}
	}
	var out []probe.Target
	for _, h := range r.Hosts {
		if h.Name == from || (owns != nil && !owns(h.Name)) || (listed && !wanted[h.Name]) {
			continue
		}
		for _, n := range h.NICs {
			if n.Address == "" {
				continue
			}
			addr, err := netip.ParseAddr(n.Address)
			if err != nil {
				return nil, fmt.Errorf("host %s NIC %s: address %q: %w", h.Name, n.Netdev, n.Address, err)
			}
			name := h.Name
			if len(h.NICs) > 1 {
				name += "/" + n.Netdev
			}
			out = append(out, probe.Target{Name: name, Addr: addr.Unmap()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no host NIC with an address to probe from %s", probe.ErrNoTargets, from)
	}
	return out, nil
}

// Summarise keeps what the agent records and exports of a report.
func Summarise(rep *probe.Report) daemon.ProbeSummary {
	s := daemon.ProbeSummary{Verdict: daemon.VerdictFail}
	if rep.Pass() {
		s.Verdict = daemon.VerdictPass
	}
	for _, p := range rep.Pairs {
		m := p.Measurements
		loss := m.Direction.LossPercent
		if m.RoundTripLossPercent > loss {
			loss = m.RoundTripLossPercent
		}
		if !m.Reachable {
			loss = 100
		}
		s.Pairs = append(s.Pairs, history.ProbePair{From: p.From, To: p.To, Verdict: string(p.Verdict), Reachable: m.Reachable,
			LossPercent: loss, RTTMeanMicros: m.RTT.Mean, RTTP99Micros: m.RTT.P99})
	}
	for _, f := range rep.Findings {
		msg := f.Message
		if f.Measurement != "" || f.Expected != "" {
			msg = fmt.Sprintf("%s (measured %s, expected %s)", f.Message, f.Measurement, f.Expected)
		}
		s.Findings = append(s.Findings, history.Finding{Code: string(f.Code), Severity: string(f.Severity), Where: f.Pair, Message: msg})
	}
	return s
}
