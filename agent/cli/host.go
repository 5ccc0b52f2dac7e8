package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/intent"
)

func newHostCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "host",
		Short: "Plan or apply this host's NIC settings (runs on the host)",
		Long: `host plan and host apply run on a server for its own part of the intent:
MTU (and the RoCE VLAN netdev), IEEE PFC, the DSCP APP table and trust, DCQCN
ECN enables and CNP marking, rdma_cm RoCE mode and ToS, 802.3x pause and the
DCBX mode. The central rocefab runs them over SSH with --output json.

NIC settings are runtime-only: a reboot or a driver reload loses them.
'host apply --watch 1m' keeps re-asserting them (the DaemonSet and the
systemd unit run it).`,
	}
	cmd.AddCommand(newHostVerbCommand(a, "plan"), newHostVerbCommand(a, "apply"))
	return cmd
}

// hostFlags are what host plan and host apply share.
type hostFlags struct {
	intent        []string
	host          string
	sysfsRoot     string
	configfsRoot  string
	timeout       time.Duration
	strict        bool
	detailed      bool
	watch         time.Duration
	output        func() (string, error)
	format        string
	kind          hostcontract.Kind
	apply         bool
	stdinConsumed bool
	stdinIntent   []byte
}

// run is the host run the flags ask for.
func (f *hostFlags) run() fleet.HostRun {
	return fleet.HostRun{Apply: f.apply, Kind: f.kind, SysfsRoot: f.sysfsRoot, ConfigfsRoot: f.configfsRoot, Timeout: f.timeout}
}

func newHostVerbCommand(a *app, verb string) *cobra.Command {
	f := &hostFlags{apply: verb == "apply", kind: hostcontract.KindHostPlan}
	cmd := &cobra.Command{Use: verb + " [INTENT]"}
	if f.apply {
		f.kind = hostcontract.KindHostApply
		cmd.Short = "Apply this host's NIC settings, all or nothing"
		cmd.Long = `host apply reads every managed NIC setting, changes what differs in order,
reads each back, and restores the earlier values if any setting fails.
Settings the NIC, driver or kernel cannot do are reported as "unsupported on
this device", never as ok.

Exit status: 0 applied or nothing to change, 1 a setting failed (or, with
--strict, is unsupported), 64 usage error.`
	} else {
		cmd.Short = "Show which NIC settings apply would change on this host"
		cmd.Long = `host plan reads every NIC setting the intent manages on this host and shows
its current value and status. It never changes the host.

Exit status: 0 nothing to change (or changes without --detailed-exitcode),
1 a setting could not be read (or, with --strict, is unsupported), 2 changes
pending with --detailed-exitcode, 64 usage error.`
	}
	f.output = outputFlag(cmd, "text", "json")
	fl := cmd.Flags()
	fl.StringSliceVar(&f.intent, "intent", nil, "intent file or directory (\"-\" reads standard input); or give it as the argument")
	fl.StringVar(&f.host, "host", "", "the intent host this machine is (default: the host whose name or address matches this machine)")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "bound for each netlink request")
	fl.BoolVar(&f.strict, "strict", false, "treat settings unsupported on this device as failures")
	fl.StringVar(&f.sysfsRoot, "sysfs-root", "", "sysfs root (tests)")
	fl.StringVar(&f.configfsRoot, "configfs-root", "", "configfs root (tests)")
	_ = fl.MarkHidden("sysfs-root")
	_ = fl.MarkHidden("configfs-root")
	if f.apply {
		fl.DurationVar(&f.watch, "watch", 0, "keep re-asserting the settings at this interval until stopped (SIGTERM)")
	} else {
		fl.BoolVar(&f.detailed, "detailed-exitcode", false, "exit 2 when changes are pending")
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := f.output()
		if err != nil {
			return err
		}
		f.format = format
		f.intent = append(f.intent, args...)
		if len(f.intent) == 0 {
			return usageErr("missing intent: host %s --intent PATH (or - for standard input)", verb)
		}
		if f.watch < 0 || (f.watch > 0 && f.watch < time.Second) {
			return usageErr("--watch %s: use at least 1s", f.watch)
		}
		if f.watch > 0 {
			return a.hostWatch(cmd.Context(), f)
		}
		code, err := a.hostOnce(cmd.Context(), f)
		if err != nil {
			return err
		}
		return exitWith(code)
	}
	return cmd
}

// loadHostIntent loads the intent; "-" reads standard input once.
func (a *app) loadHostIntent(f *hostFlags) (*intent.Resolved, error) {
	if len(f.intent) == 1 && f.intent[0] == "-" {
		if !f.stdinConsumed {
			b, err := a.readStdinIntent()
			if err != nil {
				return nil, err
			}
			f.stdinIntent, f.stdinConsumed = b, true
		}
		res, diags := a.validateBytes("<stdin>", f.stdinIntent)
		if diags.HasErrors() {
			printDiagnostics(a, diags)
			return nil, fmt.Errorf("the intent is invalid (%d error(s))", countErrors(diags))
		}
		return res, nil
	}
	res, diags := a.validate(f.intent...)
	if diags.HasErrors() {
		printDiagnostics(a, diags)
		return nil, fmt.Errorf("the intent is invalid (%d error(s))", countErrors(diags))
	}
	return res, nil
}

func countErrors(d intent.Diagnostics) int {
	n, _ := d.Count()
	return n
}

// pickHost is --host, or the intent host that is this machine.
func pickHost(res *intent.Resolved, name string) (*intent.Host, error) {
	if name != "" {
		h := res.Host(name)
		if h == nil {
			return nil, checkNames("--host", kindHost, []string{name}, hostNames(res))
		}
		return h, nil
	}
	return localHost(res)
}

// hostOnce runs one plan or apply and writes its report; it returns the
// exit code, or an error for usage problems.
func (a *app) hostOnce(ctx context.Context, f *hostFlags) (int, error) {
	res, err := a.loadHostIntent(f)
	if err != nil {
		return a.hostFailure(f, f.host, err)
	}
	h, err := pickHost(res, f.host)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.code == ExitUsage {
			return 0, err
		}
		return a.hostFailure(f, f.host, err)
	}
	report, runErr := a.fleet().RunHost(ctx, f.run(), res, h)
	if report == nil {
		return a.hostFailure(f, h.Name, runErr)
	}
	if err := writeHostReport(a.stdout, f.format, report); err != nil {
		return ExitFailure, err
	}
	if runErr != nil {
		fmt.Fprintf(a.stderr, "Error: %v\n", runErr)
	}
	return hostExitCode(f, report, runErr), nil
}

func hostExitCode(f *hostFlags, r *hostcontract.HostReport, runErr error) int {
	switch {
	case runErr != nil || r.Failed():
		return ExitFailure
	case f.strict && r.Summary.Unsupported > 0:
		return ExitFailure
	case f.detailed && r.Summary.Pending > 0:
		return ExitChanges
	}
	return ExitOK
}

// hostFailure reports a failure before any setting was read: JSON callers
// (the central rocefab over SSH) still get an answer with the error.
func (a *app) hostFailure(f *hostFlags, hostName string, err error) (int, error) {
	if f.format == "json" {
		env := hostcontract.NewEnvelope(f.kind, hostName)
		env.Error = err.Error()
		r := &hostcontract.HostReport{Envelope: env, Settings: []hostcontract.Setting{}}
		if werr := writeHostReport(a.stdout, "json", r); werr != nil {
			return ExitFailure, werr
		}
	}
	fmt.Fprintf(a.stderr, "Error: %v\n", err)
	return ExitFailure, nil
}

// hostWatch re-asserts the settings every interval until the context ends
// (SIGTERM, SIGINT). It prints the first report, then only reports that
// changed or failed something, so the log shows what drifted.
func (a *app) hostWatch(ctx context.Context, f *hostFlags) error {
	first := true
	for {
		res, err := a.loadHostIntent(f)
		if err == nil {
			var h *intent.Host
			if h, err = pickHost(res, f.host); err == nil {
				var r *hostcontract.HostReport
				r, err = a.fleet().RunHost(ctx, f.run(), res, h)
				if r != nil && (first || r.Summary.Changed > 0 || r.Failed()) {
					if werr := writeHostReport(a.stdout, f.format, r); werr != nil {
						return werr
					}
					first = false
				}
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			a.log.Error("host apply failed; retrying at the next interval", zap.Error(err))
			fmt.Fprintf(a.stderr, "%s host apply: %v\n", time.Now().UTC().Format(time.RFC3339), err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(f.watch):
		}
	}
}

func writeHostReport(w io.Writer, format string, r *hostcontract.HostReport) error {
	if format == "json" {
		b, err := hostcontract.Encode(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return writeHostText(w, r)
}

func writeHostText(w io.Writer, r *hostcontract.HostReport) error {
	verb := "plan"
	if r.Kind == hostcontract.KindHostApply {
		verb = "apply"
	}
	fmt.Fprintf(w, "host %s: %s\n", r.Host, verb)
	if r.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", r.Error)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	nic := ""
	for _, s := range r.Settings {
		if s.NIC != nic {
			nic = s.NIC
			fmt.Fprintf(tw, "  %s\n", nic)
		}
		value := s.Want
		switch s.Status {
		case hostcontract.StatusChanged, hostcontract.StatusPending:
			value = s.Current + " -> " + s.Want
		case hostcontract.StatusRolledBack:
			value = s.Want + " (restored " + s.Current + ")"
		case hostcontract.StatusUnsupported, hostcontract.StatusFailed, hostcontract.StatusSkipped:
			value = "want " + s.Want
		}
		msg := ""
		if s.Message != "" && s.Status != hostcontract.StatusRolledBack {
			msg = s.Message
		}
		fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%s\n", s.Status, s.Name, value, s.Mechanism, msg)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sm := r.Summary
	fmt.Fprintf(w, "%d ok, %d changed, %d pending, %d unsupported on this device, %d failed", sm.OK, sm.Changed, sm.Pending, sm.Unsupported, sm.Failed)
	if sm.RolledBack > 0 || sm.Skipped > 0 {
		fmt.Fprintf(w, ", %d rolled back, %d skipped", sm.RolledBack, sm.Skipped)
	}
	fmt.Fprintln(w)
	if len(r.Applications) > 0 {
		fmt.Fprintln(w, "Applications (NCCL/UCX):")
		aw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, h := range r.Applications {
			v := h.Value
			if v == "" {
				v = "?"
			}
			name := h.Name + "=" + v
			if h.NIC != "" {
				name += " (" + h.NIC + ")"
			}
			fmt.Fprintf(aw, "  %s\t# %s\n", name, h.Why)
		}
		if err := aw.Flush(); err != nil {
			return err
		}
	}
	for i, n := range r.Notes {
		if i == 0 {
			fmt.Fprintln(w, "Notes:")
		}
		fmt.Fprintf(w, "  - %s\n", n)
	}
	return nil
}
