package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/intent"
)

func newPlanCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan PATH...|PLANFILE",
		Short: "Show what apply would change on every switch and host",
		Long: `plan renders the intent, reads what each device runs and shows the
differences (+ add, - remove, ~ change), classed as hitless or
traffic-affecting, and by what it does to the lossless class (breaks it,
degrades it, neutral). It never changes a device. --out saves the plan for
an exact apply later; apply refuses a saved plan when a device changed
since. Given a saved plan (PLANFILE) instead of intent, plan shows it again
without contacting any device, in any --output.

The report starts with a summary; identical changes across ports are shown
once with the port range (Ethernet1/[1-32]), devices with identical changes
share one section, and each platform's changes read in its own form. The
Markdown (a pull-request comment) stays under --markdown-limit characters
for any fleet: past it, sections are left out and the comment links
--full-plan-url, where the workflow keeps the full plan.

--cabling also reads every device's LLDP neighbours as 'rocefab cabling'
does (--lldp DEVICE=FILE, --lldp-socket) and adds the cabling to the
report, before the devices: each intent link verified, miscabled (both
ends named), missing, unexpected or unread. A miscabled link means the
settings planned for a port are for the wrong peer: plan exits 1.`,
		Args: requireArgs(1, "intent PATH or a saved PLANFILE"),
	}
	output := outputFlag(cmd, "text", "json", "markdown", "junit")
	out := cmd.Flags().String("out", "", "save the plan to FILE, to run exactly with: rocefab apply FILE")
	detailed := cmd.Flags().Bool("detailed-exitcode", false, "exit 0 with no changes, 2 with changes, 1 on error")
	devices := cmd.Flags().StringSlice("device", nil, "plan only these devices")
	vf := addViewFlags(cmd)
	df := addDeviceFlags(cmd)
	cf := addCablingFlags(cmd, "also read every device's LLDP neighbours, as rocefab cabling does, and report each intent link verified, miscabled, missing or unexpected")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := df.validate(a); err != nil {
			return err
		}
		format, err := output()
		if err != nil {
			return err
		}
		if len(args) == 1 && compliance.IsPlanFile(args[0]) {
			// A saved plan, shown again as it was planned.
			if *out != "" || len(*devices) > 0 || cf.used(cmd) {
				return usageErr("a saved plan is shown as it is: --out, --device and --cabling need intent")
			}
			p, err := compliance.LoadPlan(args[0])
			if err != nil {
				return err
			}
			if err := writePlan(a, format, p, a.planView(vf)); err != nil {
				return err
			}
			return planExit(p, *detailed)
		}
		p, err := a.checkFabric(cmd, args, df, cf, *devices, (*engine.Engine).Plan)
		if err != nil {
			return err
		}
		if *out != "" {
			if err := p.Save(*out); err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "plan saved to %s; apply it with: rocefab apply %s\n", *out, *out)
		}
		if err := writePlan(a, format, p, a.planView(vf)); err != nil {
			return err
		}
		return planExit(p, *detailed)
	}
	return cmd
}

func newDriftCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drift PATH...",
		Short: "Report each device as compliant, drifted, unreachable or error",
		Long: `drift compares what every device runs with the intent. A drifted device
shows the exact diff (running -> intent); an unreachable device is never
counted as compliant. Each difference is classed by what it does to the
lossless class: drift that breaks it (the RoCE DSCP remapped to a lossy
queue, PFC off, a lower MTU) is shown first. --cabling adds the LLDP
cabling as plan --cabling does, and a miscabled link exits 1.`,
		Args: requireArgs(1, "intent PATH"),
	}
	output := outputFlag(cmd, "text", "json", "markdown", "junit")
	detailed := cmd.Flags().Bool("detailed-exitcode", false, "exit 0 when compliant, 2 with drift, 1 on error")
	devices := cmd.Flags().StringSlice("device", nil, "check only these devices")
	vf := addViewFlags(cmd)
	df := addDeviceFlags(cmd)
	cf := addCablingFlags(cmd, "also read every device's LLDP neighbours, as rocefab cabling does, and report each intent link verified, miscabled, missing or unexpected")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := df.validate(a); err != nil {
			return err
		}
		format, err := output()
		if err != nil {
			return err
		}
		// Recorded as a run (rocefab runs), written ahead: a drift killed
		// in flight is listed as interrupted.
		drift := func(e *engine.Engine, ctx context.Context, r *intent.Resolved, ref compliance.IntentRef, sel engine.Selection) (*compliance.Plan, error) {
			p, _, err := e.DriftRun(ctx, r, ref, sel, "")
			return p, err
		}
		p, err := a.checkFabric(cmd, args, df, cf, *devices, drift)
		if err != nil {
			return err
		}
		if err := writePlan(a, format, p, a.planView(vf)); err != nil {
			return err
		}
		return planExit(p, *detailed)
	}
	return cmd
}

// checkFunc is Engine.Plan or Engine.Drift.
type checkFunc func(*engine.Engine, context.Context, *intent.Resolved, compliance.IntentRef, engine.Selection) (*compliance.Plan, error)

// checkFabric loads the intent and plans or drift-checks the selected
// devices, as plan and drift do alike.
func (a *app) checkFabric(cmd *cobra.Command, args []string, df *deviceFlags, cf *cablingFlags, devices []string, check checkFunc) (*compliance.Plan, error) {
	if err := cf.validate(cmd); err != nil {
		return nil, err
	}
	res, err := a.loadIntent(args)
	if err != nil {
		return nil, err
	}
	if err := checkNames("--device", kindDevice, devices, intentNames(res, kindDevice)); err != nil {
		return nil, err
	}
	eng := a.engine(df, a.fleet().Hosts(res, args), args...)
	p, err := check(eng, cmd.Context(), res, engine.IntentRefFor(res.Name, args), engine.Selection{Devices: devices})
	if err != nil {
		return nil, err
	}
	a.classify(p, res)
	if cf.on {
		// The whole fabric's cabling, whatever --device selects: a
		// device's links have two ends.
		if p.Cabling, err = cf.report(cmd.Context(), res, a.switchLLDP(df, res)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func writePlan(a *app, format string, p *compliance.Plan, v compliance.View) error {
	switch format {
	case "json":
		return compliance.WriteJSON(a.stdout, p)
	case "junit":
		return writePlanJUnit(a.stdout, p, v)
	case "markdown":
		return compliance.WriteMarkdownView(a.stdout, p, v)
	}
	return compliance.WriteTextView(a.stdout, p, v)
}

// planExit: 1 when any device failed or, with --cabling, a link is
// miscabled; with --detailed-exitcode, 2 when there are changes or drift;
// otherwise 0.
func planExit(p *compliance.Plan, detailed bool) error {
	switch {
	case p.HasFailures(), p.Miscabled():
		return exitWith(ExitFailure)
	case detailed && p.HasChanges():
		return exitWith(ExitChanges)
	}
	return nil
}
