package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// meshFlags are `probe --mesh` and its knobs.
type meshFlags struct {
	on         bool
	k          int
	interval   time.Duration
	hostPPS    int
	hopTimeout time.Duration
}

func addMeshFlags(cmd *cobra.Command) *meshFlags {
	f := &meshFlags{}
	fs := cmd.Flags()
	fs.BoolVar(&f.on, "mesh", false, "probe every fabric link: flows placed by their traced ECMP paths, faults localized to a link or device")
	fs.IntVar(&f.k, "flows-per-link", mesh.DefaultFlowsPerLink, "with --mesh: probe flows each fabric link carries in each direction")
	fs.DurationVar(&f.interval, "interval", mesh.DefaultInterval, "with --mesh: the time the flows are spread over")
	fs.IntVar(&f.hostPPS, "host-pps", mesh.DefaultHostPPS, "with --mesh: probe packets per second a host sends and receives at most")
	fs.DurationVar(&f.hopTimeout, "hop-timeout", 300*time.Millisecond, "with --mesh: how long a router hop may take to answer a trace")
	cmd.Long += `

With --mesh, probe plans flows (UDP source ports) so that every fabric link
listed in the intent carries --flows-per-link flows in each direction, learns
each flow's path with TTL-limited RoCEv2 packets on its own 5-tuple (the
routers answer ICMP time exceeded; raw ICMP needs root), runs the flows
spread over --interval under the --host-pps cap, and names the link
(with its direction) or device behind what the flows saw, or says
"inconclusive" with the candidates. Fabric links need their port addresses
(aAddress, bAddress) in the intent.`
	return f
}

func (f *meshFlags) validate() error {
	switch {
	case f.k < 1:
		return usageErr("--flows-per-link %d: use 1 or more", f.k)
	case f.interval <= 0:
		return usageErr("--interval %s: use a positive duration", f.interval)
	case f.hostPPS < 1:
		return usageErr("--host-pps %d: use 1 or more", f.hostPPS)
	case f.hopTimeout <= 0:
		return usageErr("--hop-timeout %s: use a positive duration", f.hopTimeout)
	}
	return nil
}

// probeMesh runs the mesh and writes its report.
func (a *app) probeMesh(ctx context.Context, res *intent.Resolved, f *meshFlags, format string, notes ...string) error {
	if err := f.validate(); err != nil {
		return err
	}
	rep, err := mesh.RunMesh(ctx, res, fleet.MeshRunner{F: a.fleet()}, mesh.Options{
		Plan:       mesh.PlanConfig{FlowsPerLink: f.k, Interval: f.interval, HostPPS: f.hostPPS},
		HopTimeout: f.hopTimeout,
	})
	if err != nil {
		return err
	}
	if len(notes) > 0 {
		rep.Notes = append(notes, rep.Notes...)
	}
	switch format {
	case "junit":
		err = writeMeshJUnit(a.stdout, rep)
	case "json":
		err = rep.WriteJSON(a.stdout)
	case "markdown":
		err = rep.WriteMarkdown(a.stdout)
	default:
		err = rep.WriteText(a.stdout)
	}
	if err != nil {
		return err
	}
	if !rep.Pass() {
		return exitWith(ExitFailure)
	}
	return nil
}

// newProbeFlowsCommand is the host side of the mesh over SSH: it runs the
// flows of one host (JSON, base64) through the host's probe server and
// prints their results as JSON.
func newProbeFlowsCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "flows --run SPEC",
		Short:  "Run mesh flows from this host (probe --mesh runs it over SSH)",
		Args:   noArgs,
		Hidden: true,
	}
	pf := addProbeHostFlags(cmd)
	spec := cmd.Flags().String("run", "", "the flows to run: a probe FlowRun as base64-encoded JSON")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if *spec == "" {
			return usageErr("probe flows needs --run")
		}
		raw, err := base64.StdEncoding.DecodeString(*spec)
		if err != nil {
			return usageErr("--run: %v", err)
		}
		var run probe.FlowRun
		if err := json.Unmarshal(raw, &run); err != nil {
			return usageErr("--run: %v", err)
		}
		pol, name, err := a.probeHostPolicy(pf)
		if err != nil {
			return err
		}
		// The run's data phase and DSCP come from the mesh; the P_Key and
		// QPs must be this host's.
		run.Policy.PKey, run.Policy.QPMin, run.Policy.QPMax = pol.PKey, pol.QPMin, pol.QPMax
		if run.From == "" {
			run.From = name
		}
		run.Endpoint = probe.DefaultEndpointConfig()
		run.Endpoint.Policy, run.Endpoint.Name, run.Endpoint.Port, run.Endpoint.RunDir, run.Endpoint.Logger = run.Policy, name, pf.port, pf.runDir(), a.log
		res, err := probe.RunFlows(cmd.Context(), run)
		if res == nil && err != nil {
			return err
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(fleet.FlowsOutput{Schema: fleet.FlowsSchema, Flows: res})
	}
	return cmd
}
