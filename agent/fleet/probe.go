package fleet

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/drivers/netlink"
	"github.com/rocefab/rocefab/drivers/ssh"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/perftest"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// Prober runs each sending host's probes where that host is: in this
// process (this machine, or a lab network namespace), or over SSH with
// `rocefab probe run`.
type Prober struct{ F *Fleet }

var _ mesh.Prober = Prober{}

func (p Prober) Probe(ctx context.Context, res *intent.Resolved, from *intent.Host, targets []probe.Target, pol probe.Policy) (*probe.Report, error) {
	if InProcess(res, from) {
		cfg := probe.RunConfig{Targets: targets, Policy: pol, From: from.Name, Logger: p.F.Log}
		cfg.Endpoint = probe.DefaultEndpointConfig()
		cfg.Endpoint.Policy, cfg.Endpoint.Name, cfg.Endpoint.RunDir, cfg.Endpoint.Logger = pol, from.Name, ProbeRunDir(from.Netns), p.F.Log
		var rep *probe.Report
		err := netlink.InNamespace(from.Netns, func() error {
			var closeCounters func()
			cfg.HostCounters, closeCounters = LocalHostCounters(from.Name, targets)
			defer closeCounters()
			var err error
			rep, err = probe.Run(ctx, cfg)
			return err
		})
		return rep, err
	}
	hosts := p.F.Hosts(res, res.Files)
	data, err := p.F.bundle(res)
	if err != nil {
		return nil, err
	}
	cmd := "rocefab probe run --intent - --output json --from " + hostcontract.ShellQuote(from.Name)
	for _, t := range targets {
		cmd += " --to " + hostcontract.ShellQuote(t.Name+"="+t.Addr.String())
	}
	r, err := hosts.SSH.Run(ctx, from.Name, cmd, data)
	if err != nil {
		return nil, err
	}
	rep, derr := probe.ReadReport(bytes.NewReader(r.Stdout))
	if derr != nil {
		if bytes.Contains(r.Stderr, []byte("not found")) {
			return nil, fmt.Errorf("rocefab not found on %s: install it there (the host DaemonSet or systemd unit runs 'rocefab probe serve')", from.Name)
		}
		return nil, fmt.Errorf("probe run on %s (exit %d): %v: %s", from.Name, r.ExitCode, derr, strings.TrimSpace(string(r.Stderr)))
	}
	return rep, nil
}

// MeshRunner runs a host's mesh flows where the host is: in this process
// (this machine, a lab namespace), or with `rocefab probe flows` over SSH.
type MeshRunner struct{ F *Fleet }

var _ mesh.FlowRunner = MeshRunner{}

func (m MeshRunner) RunFlows(ctx context.Context, res *intent.Resolved, from *intent.Host, run probe.FlowRun) ([]probe.FlowResult, error) {
	if InProcess(res, from) {
		run.Endpoint = probe.DefaultEndpointConfig()
		run.Endpoint.Policy, run.Endpoint.Name, run.Endpoint.RunDir, run.Endpoint.Logger = run.Policy, from.Name, ProbeRunDir(from.Netns), m.F.Log
		var out []probe.FlowResult
		err := netlink.InNamespace(from.Netns, func() error {
			var err error
			out, err = probe.RunFlows(ctx, run)
			return err
		})
		return out, err
	}
	hosts := m.F.Hosts(res, res.Files)
	data, err := m.F.bundle(res)
	if err != nil {
		return nil, err
	}
	spec, err := json.Marshal(run)
	if err != nil {
		return nil, err
	}
	cmd := "rocefab probe flows --intent - --from " + hostcontract.ShellQuote(from.Name) +
		" --run " + hostcontract.ShellQuote(base64.StdEncoding.EncodeToString(spec))
	r, err := hosts.SSH.Run(ctx, from.Name, cmd, data)
	if err != nil {
		return nil, err
	}
	var env FlowsOutput
	if err := json.NewDecoder(bytes.NewReader(r.Stdout)).Decode(&env); err != nil || env.Schema != FlowsSchema {
		msg := strings.TrimSpace(string(r.Stderr))
		if msg == "" {
			msg = "no flows report"
		}
		return nil, fmt.Errorf("probe flows on %s (exit %d): %s", from.Name, r.ExitCode, msg)
	}
	return env.Flows, nil
}

// FlowsSchema names what `probe flows` prints.
const FlowsSchema = "rocefab.io/probe-flows/v1"

// FlowsOutput is what `probe flows` prints, and MeshRunner reads back.
type FlowsOutput struct {
	Schema string             `json:"schemaVersion"`
	Flows  []probe.FlowResult `json:"flows"`
}

// ProbeRunDir keeps one control socket per network namespace, so lab
// hosts on one machine never answer each other's runs.
func ProbeRunDir(netns string) string {
	if netns == "" {
		return probe.DefaultRunDir
	}
	return filepath.Join(probe.DefaultRunDir, "netns", netns)
}

// CurrentNetnsName is the `ip netns` name of this process's namespace, or
// "" for the initial one (or an unnamed one).
func CurrentNetnsName() string {
	var self syscall.Stat_t
	if syscall.Stat("/proc/thread-self/ns/net", &self) != nil {
		return ""
	}
	entries, err := os.ReadDir("/run/netns")
	if err != nil {
		return ""
	}
	for _, e := range entries {
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/run/netns", e.Name()), &st) == nil && st.Ino == self.Ino && st.Dev == self.Dev {
			return e.Name()
		}
	}
	return ""
}

// LocalHostCounters reads the NICs this host uses towards the targets
// around a probe run: their ethtool statistics and RDMA hw_counters. Call
// it in the namespace the run uses; the function it returns closes the
// ethtool socket.
func LocalHostCounters(host string, targets []probe.Target) (*counters.HostProbe, func()) {
	var dsts []netip.Addr
	for _, t := range targets {
		dsts = append(dsts, t.Addr)
	}
	nics, nicErr := counters.NICsFor(dsts)
	var stats counters.StatsReader
	eth, ethErr := counters.OpenEthtool()
	closeFn := func() {}
	if ethErr == nil {
		stats, closeFn = eth, eth.Close
	}
	hp := counters.NewHostProbe(host, rdmasys.New(""), stats, nics)
	if nicErr != nil {
		hp.Unavailable = strings.TrimPrefix(hp.Unavailable+"; NIC not found: "+nicErr.Error(), "; ")
	}
	return hp, closeFn
}

// RunPerftest runs ib_write_bw and ib_send_lat for each pair over SSH.
// Where perftest is not installed it says so in a note; the built-in
// probe already ran.
func (f *Fleet) RunPerftest(ctx context.Context, res *intent.Resolved, pairs []mesh.Pair, notes []string) ([]perftest.Result, []string) {
	hosts := f.Hosts(res, nil)
	runner := &perftest.Runner{Exec: perftestExec{hosts.SSH}, Log: f.Log}
	var out []perftest.Result
	for _, p := range pairs {
		rs, err := perftest.RunIntentPair(ctx, runner, res, p.From.Name, p.To.Name)
		if errors.Is(err, perftest.ErrNotInstalled) {
			notes = append(notes, fmt.Sprintf("perftest not installed for %s -> %s (%v): the built-in probe result stands", p.From.Name, p.To.Name, err))
			continue
		}
		if err != nil {
			out = append(out, perftest.Result{Client: p.From.Name, Server: p.To.Name, Error: err.Error()})
			continue
		}
		out = append(out, rs...)
	}
	return out, notes
}

// perftestExec adapts the SSH host runner to perftest's Exec.
type perftestExec struct{ ssh *ssh.Exec }

func (e perftestExec) Run(ctx context.Context, host string, argv []string) ([]byte, []byte, int, error) {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = hostcontract.ShellQuote(a)
	}
	r, err := e.ssh.Run(ctx, host, strings.Join(words, " "), nil)
	return r.Stdout, r.Stderr, r.ExitCode, err
}
