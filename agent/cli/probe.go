package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/perftest"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

func newProbeCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "probe PATH...",
		Short: "Prove the lossless class with real RoCEv2 traffic between hosts",
		Long: `probe sends real RoCEv2 packets (BTH over UDP 4791) in the intended class
between host pairs from the intent's cabling (all hosts under one leaf, plus
a sample across leaves) or its listed pairs, and judges what arrives: RTT
percentiles, loss, reordering, DSCP/ECN rewriting, CE marks and CNPs, ICRC
errors and the path MTU. Every host runs 'rocefab probe serve'.

With --cabling it first reads LLDP as 'rocefab cabling' does and probes
only over the links it verified (with --mesh too), noting each link it
skipped: a miscabled link's traffic does not take the intent's path.

Exit status: 0 every pair passes, 1 any verdict fails, 64 usage error.`,
		Args: requireArgs(1, "intent PATH (or a subcommand: serve, run)"),
	}
	output := outputFlag(cmd, "text", "json", "markdown", "junit")
	engineName := cmd.Flags().String("engine", "builtin", "builtin (the embedded probe) or perftest (ib_write_bw/ib_send_lat over SSH, falling back to builtin)")
	parallel := cmd.Flags().Int("parallel", 4, "sending hosts probed at once")
	noCounters := cmd.Flags().Bool("no-counters", false, "do not read switch PFC/ECN counters around the probe")
	mf := addMeshFlags(cmd)
	df := addDeviceFlags(cmd)
	cf := addCablingFlags(cmd, "read LLDP first, as rocefab cabling does, and use only the links it verified, naming those skipped")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := df.validate(a); err != nil {
			return err
		}
		format, err := output()
		if err != nil {
			return err
		}
		if *engineName != "builtin" && *engineName != "perftest" {
			return usageErr("--engine %q: use builtin or perftest", *engineName)
		}
		if err := cf.validate(cmd); err != nil {
			return err
		}
		res, err := a.loadIntent(args)
		if err != nil {
			return err
		}
		// With --cabling, only the links LLDP verified are probed: a
		// miscabled link's traffic takes another path than the intent's.
		var skipped []string
		if cf.on {
			if res, skipped, err = cf.verifiedOnly(cmd.Context(), res, a.switchLLDP(df, res)); err != nil {
				return err
			}
		}
		if mf.on {
			return a.probeMesh(cmd.Context(), res, mf, format, skipped...)
		}
		out := a.probeFabric(cmd.Context(), res, df, probeOptions{perftest: *engineName == "perftest", parallel: *parallel, counters: !*noCounters})
		if len(skipped) > 0 {
			out.Notes = append(skipped, out.Notes...)
		}
		if err := writeProbe(a.stdout, format, out); err != nil {
			return err
		}
		if !out.Pass() {
			return exitWith(ExitFailure)
		}
		return nil
	}
	cmd.AddCommand(newProbeServeCommand(a), newProbeRunCommand(a), newProbeFlowsCommand(a))
	return cmd
}

func newProbeServeCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Answer probes on UDP 4791 like a RoCE NIC (run on every host)",
		Long: `serve opens this host's probe endpoint on UDP 4791: it verifies the ICRC,
ACKs SENDs and WRITEs, answers READs, and returns a CNP for every CE-marked
request, rate-limited so it cannot be used as a reflector. It answers only
the probe's own P_Key and QP range. 'probe run' on the same host goes
through it.`,
		Args: noArgs,
	}
	pf := addProbeHostFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if pf.port == 0 {
			return usageErr("--port 0: give the RoCEv2 UDP port (4791)")
		}
		pol, name, err := a.probeHostPolicy(pf)
		if err != nil {
			return err
		}
		cfg := probe.DefaultEndpointConfig()
		cfg.Policy, cfg.Name, cfg.Port, cfg.RunDir, cfg.Logger = pol, name, pf.port, pf.runDir(), a.log
		for _, l := range pf.listen {
			addr, err := netip.ParseAddr(l)
			if err != nil {
				return usageErr("--listen %q: %v", l, err)
			}
			cfg.Listen = append(cfg.Listen, addr)
		}
		fmt.Fprintf(a.stderr, "probe responder %s listening on UDP %d (P_Key 0x%04x, QPs 0x%x-0x%x); control socket in %s\n",
			name, cfg.Port, pol.PKey, pol.QPMin, pol.QPMax, cfg.RunDir)
		err = probe.Serve(cmd.Context(), cfg)
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	return cmd
}

func newProbeRunCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run --to HOST",
		Short: "Probe from this host to one or more responders",
		Long: `run probes from this host to each --to target: an address, NAME=ADDR, or
an intent host name with --intent. It judges against the intent given with
--intent, or against the built-in defaults. If 'probe serve' runs on this
host, the run goes through it.`,
		Args: noArgs,
	}
	pf := addProbeHostFlags(cmd)
	output := outputFlag(cmd, "text", "json", "markdown", "junit")
	to := cmd.Flags().StringSlice("to", nil, "target: ADDR, NAME=ADDR or an intent host name (repeatable)")
	pcap := cmd.Flags().String("pcap", "", "write both directions as seen here to FILE (pcap, opens in Wireshark/tshark)")
	count := cmd.Flags().Int("count", 0, "data packets per pair (default: the intent's, else 1000)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		if len(*to) == 0 {
			return usageErr("probe run needs --to HOST")
		}
		if pf.port == 0 {
			return usageErr("--port 0: give the RoCEv2 UDP port (4791)")
		}
		if *count < 0 {
			return usageErr("--count %d: use a positive number of packets", *count)
		}
		pol, name, err := a.probeHostPolicy(pf)
		if err != nil {
			return err
		}
		if *count > 0 {
			pol.Count = *count
		}
		var targets []probe.Target
		for _, t := range *to {
			target, err := a.probeTarget(pf, t)
			var ee *exitError
			if errors.As(err, &ee) {
				return err
			}
			if err != nil {
				return usageErr("--to %s: %v", t, err)
			}
			targets = append(targets, target)
		}
		cfg := probe.RunConfig{Targets: targets, Policy: pol, From: name, Logger: a.log}
		cfg.Endpoint = probe.DefaultEndpointConfig()
		cfg.Endpoint.Policy, cfg.Endpoint.Name, cfg.Endpoint.Port, cfg.Endpoint.RunDir, cfg.Endpoint.Logger = pol, name, pf.port, pf.runDir(), a.log
		var closeCounters func()
		cfg.HostCounters, closeCounters = fleet.LocalHostCounters(name, targets)
		defer closeCounters()
		if *pcap != "" {
			f, err := os.Create(*pcap)
			if err != nil {
				return err
			}
			defer f.Close()
			cfg.Pcap = f
		}
		rep, err := probe.Run(cmd.Context(), cfg)
		if err != nil {
			return err
		}
		if err := writeProbe(a.stdout, format, &probeOutput{Report: rep}); err != nil {
			return err
		}
		if !rep.Pass() {
			return exitWith(ExitFailure)
		}
		return nil
	}
	return cmd
}

// probeHostFlags are what serve and run share.
type probeHostFlags struct {
	intent []string
	host   string
	port   uint16
	listen []string
	dir    string
	res    *intent.Resolved
}

func addProbeHostFlags(cmd *cobra.Command) *probeHostFlags {
	f := &probeHostFlags{}
	fs := cmd.Flags()
	fs.StringSliceVar(&f.intent, "intent", nil, "intent to judge against (\"-\" reads standard input); default: built-in defaults")
	fs.StringVar(&f.host, "from", "", "the intent host this machine is (default: matched by name or address)")
	fs.Uint16Var(&f.port, "port", probe.DefaultPort, "RoCEv2 UDP port")
	fs.StringSliceVar(&f.listen, "listen", nil, "local addresses to bind (default: all)")
	fs.StringVar(&f.dir, "run-dir", "", "where the control socket lives (default: /run/rocefab, per network namespace)")
	return f
}

func (f *probeHostFlags) runDir() string {
	if f.dir != "" {
		return f.dir
	}
	return fleet.ProbeRunDir(fleet.CurrentNetnsName())
}

// probeHostPolicy is the policy of the intent host this machine is, or the
// defaults without an intent.
func (a *app) probeHostPolicy(f *probeHostFlags) (probe.Policy, string, error) {
	name, _ := os.Hostname()
	if len(f.intent) == 0 {
		if f.host != "" {
			name = f.host
		}
		return probe.DefaultPolicy(), name, nil
	}
	hf := &hostFlags{intent: f.intent}
	res, err := a.loadHostIntent(hf)
	if err != nil {
		return probe.Policy{}, "", err
	}
	f.res = res
	h, err := pickHost(res, f.host)
	if err != nil {
		return probe.Policy{}, "", err
	}
	return mesh.PolicyFor(res, h), h.Name, nil
}

// probeTarget resolves --to: an intent host name, NAME=ADDR or an address.
func (a *app) probeTarget(f *probeHostFlags, s string) (probe.Target, error) {
	if f.res != nil {
		if h := f.res.Host(s); h != nil {
			return mesh.Target(h)
		}
	}
	t, err := probe.ParseTarget(s)
	if err != nil && f.res != nil && !strings.ContainsAny(s, "=:.") {
		// A bare word is meant as a host name: say which hosts there are.
		return t, checkNames("--to", kindHost, []string{s}, hostNames(f.res))
	}
	return t, err
}

type probeOptions struct {
	perftest bool
	parallel int
	counters bool
}

// probeOutput is the probe report plus what rocefab read around it.
type probeOutput struct {
	*probe.Report
	// Counters are PFC/ECN counter changes during the probe.
	Counters []string `json:"counters,omitempty"`
	// Perftest holds perftest results when --engine perftest ran.
	Perftest []perftest.Result `json:"perftest,omitempty"`
	// Notes say what was skipped or fell back, and why.
	Notes []string `json:"notes,omitempty"`
}

// Pass is the probe verdict and no perftest failure.
func (o *probeOutput) Pass() bool {
	for _, r := range o.Perftest {
		if r.Error != "" {
			return false
		}
	}
	return o.Report.Pass()
}

func writeProbe(w io.Writer, format string, o *probeOutput) error {
	switch format {
	case "junit":
		return writeProbeJUnit(w, o)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(o)
	case "markdown":
		if err := o.Report.WriteMarkdown(w); err != nil {
			return err
		}
	default:
		if err := o.Report.WriteText(w); err != nil {
			return err
		}
	}
	var b strings.Builder
	if len(o.Counters) > 0 {
		b.WriteString("\nCounters during the probe:\n")
		for _, c := range o.Counters {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	for _, r := range o.Perftest {
		if b.Len() == 0 {
			b.WriteString("\nperftest:\n")
		}
		switch {
		case r.Error != "":
			fmt.Fprintf(&b, "  %s %s -> %s: FAILED %s\n", r.Test, r.Client, r.Server, r.Error)
		case r.Latency != nil:
			fmt.Fprintf(&b, "  %s %s -> %s %dB: typical %.2fus p99 %.2fus (GID %d, ToS %d)\n", r.Test, r.Client, r.Server, r.Size, r.Latency.TypicalUs, r.Latency.P99Us, r.GIDIndex, r.ToS)
		case r.Bandwidth != nil:
			fmt.Fprintf(&b, "  %s %s -> %s %dB: %.1f Gb/s (GID %d, ToS %d)\n", r.Test, r.Client, r.Server, r.Size, r.Bandwidth.AvgGbps, r.GIDIndex, r.ToS)
		}
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// probeFabric probes every pair of the intent, reading switch counters
// around the run.
func (a *app) probeFabric(ctx context.Context, res *intent.Resolved, df *deviceFlags, opt probeOptions) *probeOutput {
	pairs := mesh.Pairs(res)
	out := &probeOutput{}
	var sampler *counters.Sampler
	var closeAll func()
	if opt.counters {
		sampler, closeAll, out.Notes = a.switchCounters(ctx, res, df)
		defer closeAll()
	}
	var before *counters.Snapshot
	if sampler != nil {
		before, _ = sampler.Snapshot(ctx)
	}
	out.Report = mesh.Run(ctx, res, pairs, fleet.Prober{F: a.fleet()}, opt.parallel)
	if sampler != nil && before != nil {
		if after, err := sampler.Snapshot(ctx); err == nil {
			out.Counters = counters.Diff(before, after).Messages("during the probe")
		}
	}
	if opt.perftest {
		out.Perftest, out.Notes = a.fleet().RunPerftest(ctx, res, pairs, out.Notes)
	}
	if len(pairs) == 0 {
		out.Notes = append(out.Notes, "no host pairs to probe: cable at least two hosts (links) or list pairs under spec.probe")
	}
	return out
}

// switchCounters opens the switches that expose PFC/ECN counters, over
// gNMI or SSH.
func (a *app) switchCounters(ctx context.Context, res *intent.Resolved, df *deviceFlags) (*counters.Sampler, func(), []string) {
	return fleet.SwitchCounters(ctx, a.renderers, a.engine(df, nil), res)
}

// verifyWithProbe is apply --verify: the probe mesh must pass.
func verifyWithProbe(ctx context.Context, a *app, res *intent.Resolved, _ []string) (engine.VerifyResult, error) {
	if res == nil {
		return engine.VerifyResult{}, errors.New("no intent to probe against")
	}
	// Give links a moment to settle after MTU or PFC changes.
	select {
	case <-ctx.Done():
		return engine.VerifyResult{}, ctx.Err()
	case <-time.After(500 * time.Millisecond):
	}
	out := a.probeFabric(ctx, res, &deviceFlags{}, probeOptions{parallel: 4})
	if out.Pass() {
		return engine.VerifyResult{Passed: true, Summary: fmt.Sprintf("probe passed on %d pair(s)", len(out.Pairs))}, nil
	}
	var msgs []string
	for _, f := range out.Findings {
		if f.Severity == probe.SeverityError {
			msgs = append(msgs, fmt.Sprintf("%s %s: %s", f.Code, f.Pair, f.Message))
		}
		if len(msgs) == 3 {
			break
		}
	}
	a.log.Warn("probe verification failed", zap.Strings("findings", msgs))
	return engine.VerifyResult{Passed: false, Summary: fmt.Sprintf("%d of %d pair(s) failed: %s", out.FailedPairs(), len(out.Pairs), strings.Join(msgs, "; "))}, nil
}
