package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/cabling"
	"github.com/rocefab/rocefab/validators/doctor"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

func newDoctorCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check a host's RoCE readiness: RDMA devices, GIDs, MTU, pause, PCIe, modules",
		Long: `doctor runs the RoCE host checklist: RDMA devices and port state, a RoCE v2
GID for the NIC's IP, the MTU against the intent and the RoCE MTU it allows,
802.3x pause off where PFC is on, NUMA node and PCIe link width and speed,
kernel modules and rdma-core/perftest tools. Every result is pass, warn or
fail with the fix.

Without --intent it checks every RDMA port on this machine against rocefab's
defaults. With --intent it checks this machine's host (--host NAME, or the
host whose name or address matches this machine), or with --all every host
in the intent over SSH. --intent - reads the intent from standard input.
--cabling also reads this machine's LLDP neighbours (lldpcli -f json show
neighbors, from lldpd) and checks each NIC reaches the switch port the
intent cables it to.

Exit status: 0 when nothing failed (warnings allowed), 1 when a check failed
or doctor could not run, 64 on usage errors.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("doctor takes no arguments (got %q); use --intent PATH", args)
			}
			return nil
		},
	}
	output := outputFlag(cmd, "text", "json")
	intentPaths := cmd.Flags().StringSlice("intent", nil, "intent file or directory (\"-\" reads standard input)")
	hostName := cmd.Flags().String("host", "", "the intent host to check on this machine (default: the one matching this machine)")
	all := cmd.Flags().Bool("all", false, "check every host in the intent over SSH")
	expectNUMA := cmd.Flags().Int("expect-numa", -1, "NUMA node RDMA workloads run on; warn when a NIC sits on another")
	countersFor := cmd.Flags().Duration("counters-for", 0, "also read RDMA and NIC counters twice, this far apart, and report what moved")
	withCabling := cmd.Flags().Bool("cabling", false, "also check each NIC's LLDP neighbour (lldpcli) against the switch port the intent cables it to")
	lldpSocket := cmd.Flags().String("lldp-socket", "", "lldpd control socket for --cabling (lldpcli -u; {name} the host)")
	sysfsRoot := cmd.Flags().String("sysfs-root", "/sys", "sysfs root (tests)")
	_ = cmd.Flags().MarkHidden("sysfs-root")

	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		if *all && *hostName != "" {
			return usageErr("--all and --host exclude each other")
		}
		if *all && len(*intentPaths) == 0 {
			return usageErr("--all needs --intent")
		}
		if *withCabling && (len(*intentPaths) == 0 || *all) {
			return usageErr("--cabling needs --intent, and checks this machine's host (not --all)")
		}
		var res *intent.Resolved
		var intentBytes []byte
		if len(*intentPaths) > 0 {
			res, intentBytes, err = a.doctorIntent(*intentPaths)
			if err != nil {
				return err
			}
		}
		if *all {
			return a.doctorAll(cmd, res, intentBytes, format)
		}
		target, err := doctorTarget(res, *hostName)
		if err != nil {
			return err
		}
		if *expectNUMA >= 0 {
			n := *expectNUMA
			target.Expect.NUMANode = &n
		}
		d := &doctor.Doctor{Sys: rdmasys.New(*sysfsRoot), Log: a.log}
		eth, ethErr := counters.OpenEthtool()
		if ethErr != nil {
			a.log.Warn("ethtool unavailable; pause and NIC statistics not read", zap.Error(ethErr))
		} else {
			defer eth.Close()
			d.Pause = eth
		}
		report := d.Run(cmd.Context(), target)
		if *withCabling {
			doctorCabling(cmd.Context(), report, res, target.Host, *lldpSocket)
		}
		if *countersFor > 0 && len(report.Devices) > 0 {
			src := counters.HostSource{Host: target.Host, Sys: d.Sys, Ports: fleet.HostPorts(report.Devices)}
			if eth != nil {
				src.Stats = eth
			}
			if err := readCounters(cmd, report, src, *countersFor); err != nil {
				return err
			}
		}
		if err := writeDoctor(a.stdout, format, report); err != nil {
			return err
		}
		if report.Failed() {
			return exitWith(ExitFailure)
		}
		return nil
	}
	return cmd
}

// doctorIntent loads the intent and keeps its bytes, which --all sends to
// the hosts on standard input.
func (a *app) doctorIntent(paths []string) (*intent.Resolved, []byte, error) {
	if len(paths) == 1 && paths[0] == "-" {
		b, err := a.readStdinIntent()
		if err != nil {
			return nil, nil, err
		}
		res, diags := a.validateBytes("<stdin>", b)
		if diags.HasErrors() {
			printDiagnostics(a, diags)
			return nil, nil, exitWith(ExitFailure)
		}
		return res, b, nil
	}
	res, err := a.loadIntent(paths)
	if err != nil {
		return nil, nil, err
	}
	lim, _ := a.intentLimits()
	data, _, err := intent.Bundle(lim, paths...)
	return res, data, err
}

// doctorTarget picks what to check: the named or matching intent host, or
// without an intent every RDMA port against the defaults.
func doctorTarget(res *intent.Resolved, hostName string) (doctor.Target, error) {
	if res == nil {
		name := hostName
		if name == "" {
			name, _ = os.Hostname()
		}
		return doctor.DefaultTarget(name), nil
	}
	if hostName != "" {
		h := res.Host(hostName)
		if h == nil {
			return doctor.Target{}, checkNames("--host", kindHost, []string{hostName}, hostNames(res))
		}
		return doctor.TargetForHost(h), nil
	}
	h, err := localHost(res)
	if err != nil {
		return doctor.Target{}, err
	}
	return doctor.TargetForHost(h), nil
}

func hostNames(res *intent.Resolved) []string {
	var out []string
	for _, h := range res.Hosts {
		out = append(out, h.Name)
	}
	return out
}

// localHost finds the intent host that is this machine: by hostname (full
// or short), else by an address of this machine (host address or NIC IP).
func localHost(res *intent.Resolved) (*intent.Host, error) {
	if h := fleet.LocalHost(res); h != nil {
		return h, nil
	}
	hn, _ := os.Hostname()
	return nil, usageErr("this machine (%s) matches no host in the intent by name or address; pass --host NAME (hosts: %s)", hn, strings.Join(hostNames(res), ", "))
}

func readCounters(cmd *cobra.Command, report *doctor.Report, src counters.Source, wait time.Duration) error {
	s := counters.Sampler{Sources: []counters.Source{src}}
	before, err := s.Snapshot(cmd.Context())
	if err != nil {
		report.Add(doctor.Result{Check: doctor.CheckCounters, Status: doctor.Warn, Message: err.Error()})
		return nil
	}
	select {
	case <-time.After(wait):
	case <-cmd.Context().Done():
		return cmd.Context().Err()
	}
	after, err := s.Snapshot(cmd.Context())
	if err != nil {
		report.Add(doctor.Result{Check: doctor.CheckCounters, Status: doctor.Warn, Message: err.Error()})
		return nil
	}
	d := counters.Diff(before, after)
	report.Counters = &d
	for _, c := range d.Notable() {
		if c.Kind == counters.KindError {
			report.Add(doctor.Result{Check: doctor.CheckCounters, Subject: c.Port, Status: doctor.Warn,
				Message: c.Message(fmt.Sprintf("in %s", wait)),
				Fix:     "a lossless fabric should not move this counter: check PFC on the switch port and the host, and the ECN thresholds"})
		}
	}
	return nil
}

func writeDoctor(w io.Writer, format string, r *doctor.Report) error {
	if format == "json" {
		data, err := hostcontract.Encode(r)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	return r.WriteText(w)
}

// doctorAll runs doctor on every intent host over SSH.
func (a *app) doctorAll(cmd *cobra.Command, res *intent.Resolved, intentData []byte, format string) error {
	runner := a.fleet().HostExec(func() (*intent.Resolved, error) { return res, nil })
	remote := &doctor.Remote{Runner: runner, Intent: intentData}
	reports := remote.CheckAll(cmd.Context(), hostNames(res))
	failed := false
	if format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return err
		}
	}
	for _, r := range reports {
		failed = failed || r.Failed()
		if format != "json" {
			if err := r.WriteText(a.stdout); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout)
		}
	}
	if failed {
		return exitWith(ExitFailure)
	}
	return nil
}

// doctorCabling reads this host's LLDP neighbours with lldpcli and adds a
// cabling result per NIC link of the intent.
func doctorCabling(ctx context.Context, report *doctor.Report, res *intent.Resolved, host, socket string) {
	links := res.HostLinksOf(host)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := []string{"-f", "json", "show", "neighbors"}
	if socket != "" {
		args = append([]string{"-u", strings.ReplaceAll(socket, "{name}", host)}, args...)
	}
	out, err := exec.CommandContext(ctx, "lldpcli", args...).Output()
	var nbs []cabling.Neighbor
	if err == nil {
		nbs, err = cabling.ParseLLDPCLI(host, out)
	}
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		report.Add(doctor.Result{Check: doctor.CheckCabling, Status: doctor.Warn,
			Message: "cabling not checked: lldpcli -f json show neighbors: " + msg,
			Fix:     "install lldpd (apt-get install lldpd) and start it"})
		return
	}
	rep := cabling.Classify(links, cabling.Known(res), cabling.Observed{Read: []string{host}, Neighbors: nbs})
	for _, r := range doctor.CablingResults(links, rep) {
		report.Add(r)
	}
}
