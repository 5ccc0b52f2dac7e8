package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/intent"
)

func newApplyCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "apply PATH...|PLANFILE",
		Short: "Apply the intent (or a saved plan) to switches and hosts",
		Long: `apply pushes each device's changes atomically, checks the read-back and
rolls the device back if it differs. A saved plan (from plan --out) is
executed exactly, and refused for any device that changed since.
Traffic-affecting changes need --allow-disruptive. With --verify the probe
runs after the push, and with --confirm-timeout the commits stay pending and
are confirmed only if the probe passes.`,
		Args: requireArgs(1, "intent PATH or saved PLANFILE"),
	}
	output := outputFlag(cmd, "text", "json")
	autoApprove := cmd.Flags().Bool("auto-approve", false, "do not ask for confirmation")
	allowDisruptive := cmd.Flags().Bool("allow-disruptive", false, "allow traffic-affecting changes (PFC, buffers, MTU)")
	canary := cmd.Flags().Int("canary", 0, "apply to N devices, verify them, then do the rest")
	onFailure := cmd.Flags().String("on-failure", "stop", "after a device fails: stop (leave the rest untouched) or continue")
	verify := cmd.Flags().Bool("verify", false, "run the probe after the push; roll back if it fails")
	confirmTimeout := cmd.Flags().Duration("confirm-timeout", 0, "keep commits pending this long, confirming only if the probe passes")
	devices := cmd.Flags().StringSlice("device", nil, "apply only these devices")
	df := addDeviceFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := df.validate(a); err != nil {
			return err
		}
		format, err := output()
		if err != nil {
			return err
		}
		if *canary < 0 {
			return usageErr("--canary %d: use 0 (no canary) or more", *canary)
		}
		if *onFailure != "stop" && *onFailure != "continue" {
			return usageErr("--on-failure %q: use stop or continue", *onFailure)
		}
		if *confirmTimeout > 0 && !*verify {
			return usageErr("--confirm-timeout needs --verify: commits are confirmed by the probe's verdict")
		}
		var (
			p     *compliance.Plan
			res   *intent.Resolved
			hosts *fleet.Hosts
			eng   *engine.Engine
		)
		store := engine.RunStore{Dir: a.stateDir(df)}
		runID := engine.NewRunID(time.Now())
		locks := store.NewDeviceLocks(runID)
		defer locks.Release()
		lockWait := a.v.GetDuration("lock-wait")
		if len(args) == 1 && compliance.IsPlanFile(args[0]) {
			if p, err = compliance.LoadPlan(args[0]); err != nil {
				return err
			}
			if len(*devices) > 0 {
				return usageErr("--device does not apply to a saved plan: it runs exactly as planned (plan again with --device)")
			}
			a.pinPlanTrust(p)
			// Hosts and the probe load the plan's intent only if needed.
			hosts = a.fleet().Hosts(nil, p.Intent.Paths)
			eng = a.engine(df, hosts, p.Intent.Paths...)
			if *verify {
				if res, err = hosts.Intent(); err != nil {
					return err
				}
			}
		} else {
			if res, err = a.loadIntent(args); err != nil {
				return err
			}
			if err := checkNames("--device", kindDevice, *devices, intentNames(res, kindDevice)); err != nil {
				return err
			}
			hosts = a.fleet().Hosts(res, args)
			eng = a.engine(df, hosts, args...)
			sel := engine.Selection{Devices: *devices}
			// One writer per device: the devices are held from before the
			// plan, so a second apply waits, then plans against what the
			// first one left.
			if err := locks.Lock(cmd.Context(), engine.KindApply, lockWait, selectedDevices(res, sel)...); err != nil {
				fmt.Fprintln(a.stderr, err)
				return exitWith(ExitFailure)
			}
			for dev, note := range eng.Recover(cmd.Context(), res, sel, runID) {
				fmt.Fprintf(a.stderr, "%s: %s\n", dev, note)
			}
			p, err = eng.Plan(cmd.Context(), res, engine.IntentRefFor(res.Name, args), sel)
			if err != nil {
				return err
			}
			a.classify(p, res)
		}
		if format == "text" {
			if err := compliance.WriteTextView(a.stdout, p, a.planView(nil)); err != nil {
				return err
			}
		}
		if !p.HasChanges() {
			if p.HasFailures() {
				// Conflicts, errors and unreachable devices: nothing that can
				// be applied, and the fabric does not match the intent.
				fmt.Fprintln(a.stderr, "Nothing to apply: the devices with problems above need attention first.")
				return exitWith(ExitFailure)
			}
			fmt.Fprintln(a.stderr, "No changes. The fabric matches the intent.")
			return nil
		}
		// Say what will be refused before asking, and do not ask when
		// nothing can be applied.
		ready, held := applicable(p, *allowDisruptive)
		if held > 0 {
			fmt.Fprintf(a.stderr, "%d device(s) with traffic-affecting changes will be refused without --allow-disruptive.\n", held)
		}
		if ready > 0 && !*autoApprove && !askYes(a, fmt.Sprintf("\nApply these changes to %d device(s)?", ready)) {
			fmt.Fprintln(a.stderr, "Apply cancelled.")
			return exitWith(ExitFailure)
		}
		opt := engine.ApplyOptions{
			AllowDisruptive: *allowDisruptive, Canary: *canary, StopOnFailure: *onFailure == "stop",
			ConfirmWindow: *confirmTimeout, Store: store, Intent: res,
			RunID: runID, Locks: locks, LockWait: lockWait,
			Options: map[string]string{"onFailure": *onFailure, "canary": fmt.Sprint(*canary),
				"allowDisruptive": fmt.Sprint(*allowDisruptive), "verify": fmt.Sprint(*verify)},
		}
		if *verify {
			opt.Verify = func(ctx context.Context, devices []string) (engine.VerifyResult, error) {
				return verifyWithProbe(ctx, a, res, devices)
			}
		}
		rep, err := eng.Apply(cmd.Context(), p, opt)
		return finishRun(a, format, rep, err, a.stateDir(df))
	}
	return cmd
}

// applicable counts the devices apply will push, and those it will refuse
// for traffic-affecting changes without --allow-disruptive.
func applicable(p *compliance.Plan, allowDisruptive bool) (ready, held int) {
	for _, d := range p.Devices {
		if d.Status != compliance.StatusChanges && d.Status != compliance.StatusDrifted {
			continue
		}
		if d.Disruptive() && !allowDisruptive {
			held++
			continue
		}
		ready++
	}
	return ready, held
}

// askYes puts the question on stderr and reads the answer from stdin:
// only "yes" goes ahead.
func askYes(a *app, question string) bool {
	fmt.Fprint(a.stderr, question+" Only 'yes' will be accepted: ")
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	return strings.TrimSpace(line) == "yes"
}

func newRollbackCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollback RUN_ID",
		Short: "Put the devices of an earlier apply back to their snapshots",
		Long: `rollback restores every device an earlier run applied to the owned
configuration it had before that run, with the same safe push and read-back
as apply. Use it when an apply succeeded but turned out to be wrong, or on a
run that was interrupted (rocefab runs lists it): every device it had started
to push is restored, and what it left on the device is removed first.

Before it asks, it shows each device's diff (running -> the snapshot), the
changes made on a device since the run (by hand or by a later run) that it
would overwrite, and which devices it will refuse without
--allow-disruptive: restoring an MTU or PFC setting flaps links just like
changing it.`,
		Args: exactArgs(1, "one RUN_ID"),
	}
	output := outputFlag(cmd, "text", "json")
	autoApprove := cmd.Flags().Bool("auto-approve", false, "do not ask for confirmation")
	allowDisruptive := cmd.Flags().Bool("allow-disruptive", false, "allow restoring traffic-affecting settings (PFC, buffers, MTU)")
	df := addDeviceFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := df.validate(a); err != nil {
			return err
		}
		format, err := output()
		if err != nil {
			return err
		}
		store := engine.RunStore{Dir: a.stateDir(df)}
		orig, err := store.LoadReport(args[0])
		if err != nil {
			return err
		}
		// Show what the rollback does, and what it would refuse, before
		// asking.
		settleOnly := false
		if format == "text" || !*autoApprove {
			out := a.stdout
			if format != "text" {
				out = a.stderr // stdout keeps the JSON report alone
			}
			devs := a.rollbackPreview(cmd.Context(), store, orig)
			ready, held := writeRollbackPreview(out, orig, devs, a.planView(nil), *allowDisruptive)
			if held > 0 {
				fmt.Fprintf(a.stderr, "%d device(s) with traffic-affecting restores will be refused without --allow-disruptive.\n", held)
			}
			if ready == 0 {
				if held > 0 {
					fmt.Fprintln(a.stderr, "Nothing can be rolled back without --allow-disruptive.")
					return exitWith(ExitFailure)
				}
				changes := false
				for _, d := range devs {
					changes = changes || len(d.plan.Changes) > 0 || d.err != ""
				}
				if !changes {
					unsettled := unsettledDevices(store, orig)
					if len(unsettled) == 0 {
						fmt.Fprintln(a.stderr, "Nothing to roll back: every device is at its snapshot.")
						return nil
					}
					// The devices need no restore, but the interrupted run's
					// record still says it was pushing them: the rollback
					// below reads them back and settles that record, so
					// neither drift nor the next apply keeps reporting it.
					fmt.Fprintf(a.stderr, "Every device is at its snapshot; settling what run %s was pushing when it was interrupted: %s.\n",
						orig.ID, strings.Join(unsettled, ", "))
					settleOnly = true
				}
			}
			if !*autoApprove && !settleOnly && !askYes(a, fmt.Sprintf("\nRoll back the devices of run %s (%s by %s)?", orig.ID, orig.StartedAt.Format(time.RFC3339), orig.User)) {
				fmt.Fprintln(a.stderr, "Rollback cancelled.")
				return exitWith(ExitFailure)
			}
		}
		rep, err := a.engine(df, nil).Rollback(cmd.Context(), store, args[0], engine.RollbackOptions{AllowDisruptive: *allowDisruptive, LockWait: a.v.GetDuration("lock-wait")})
		return finishRun(a, format, rep, err, a.stateDir(df))
	}
	return cmd
}

// finishRun writes what a run did, even when it ended in error, and exits
// 1 when it failed.
func finishRun(a *app, format string, rep *engine.RunReport, err error, stateDir string) error {
	if rep != nil {
		if werr := writeRun(a, format, rep, stateDir); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	if rep.Failed() {
		return exitWith(ExitFailure)
	}
	return nil
}

// writeRun prints a run report: one line per device, or the JSON report.
func writeRun(a *app, format string, rep *engine.RunReport, stateDir string) error {
	if format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	state := rep.Result
	if rep.Status != "" && rep.Status != engine.StatusDone {
		state = rep.Status
	}
	fmt.Fprintf(a.stdout, "\n%s run %s: %s\n", strings.ToUpper(rep.Kind[:1])+rep.Kind[1:], rep.ID, state)
	for _, d := range rep.Devices {
		what := string(d.Outcome)
		if d.Status != "" {
			what = d.Status
		}
		if rep.Status == engine.StatusInterrupted && d.Phase != "" && d.Phase != engine.PhaseDone {
			what = "interrupted while " + d.Phase
		}
		line := fmt.Sprintf("  %-20s %-12s", d.Device, what)
		if d.Reason != "" {
			line += " " + d.Reason
		}
		fmt.Fprintln(a.stdout, line)
	}
	if rep.Summary != "" {
		fmt.Fprintf(a.stdout, "  %s\n", rep.Summary)
	}
	if rep.Verify != nil {
		fmt.Fprintf(a.stdout, "  verify: passed=%v %s\n", rep.Verify.Passed, rep.Verify.Summary)
	}
	fmt.Fprintf(a.stdout, "Report: %s/runs/%s/report.json\n", stateDir, rep.ID)
	return nil
}

// selectedDevices names the switches and hosts a selection keeps.
func selectedDevices(res *intent.Resolved, sel engine.Selection) []string {
	var out []string
	for _, sw := range res.Switches {
		if sel.Keeps(sw.Name) {
			out = append(out, sw.Name)
		}
	}
	for _, h := range res.Hosts {
		if sel.Keeps(h.Name) {
			out = append(out, h.Name)
		}
	}
	return out
}
