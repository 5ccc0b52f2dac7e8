package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/engine"
)

func newRunsCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs [RUN_ID]",
		Short: "List past runs (apply, rollback, drift, probe), or show one",
		Long: `runs lists the runs recorded in the state directory, newest first, by the
CLI and the agent alike: apply, rollback, drift and probe. A run is running
while its process lives and interrupted when its process died before it
finished (killed, crashed, the machine lost power): the next apply or drift
on its devices says so and settles it, and rollback RUN_ID restores every
device it had started to push. With RUN_ID, runs shows that run's report.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr("at most one RUN_ID")
			}
			return nil
		},
	}
	output := outputFlag(cmd, "text", "json")
	kinds := cmd.Flags().StringSlice("kind", nil, "list only these kinds: apply, rollback, drift, probe, mesh")
	cmd.Flags().String("state-dir", defaultStateDir(), "where run reports and snapshots are kept")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		for _, k := range *kinds {
			switch k {
			case engine.KindApply, engine.KindRollback, engine.KindDrift, engine.KindProbe, engine.KindMesh:
			default:
				return usageErr("--kind %q: use apply, rollback, drift, probe or mesh", k)
			}
		}
		store := engine.RunStore{Dir: a.v.GetString("state-dir")}
		if len(args) == 1 {
			rep, err := store.LoadReport(args[0])
			if err != nil {
				return err
			}
			return writeRun(a, format, rep, store.Dir)
		}
		runs, err := store.Runs(*kinds...)
		if err != nil {
			return err
		}
		if format == "json" {
			if runs == nil {
				runs = []engine.RunSummary{}
			}
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(runs)
		}
		writeRuns(a, runs, store.Dir)
		return nil
	}
	return cmd
}

// recordProbeRuns records every fabric probe (rocefab probe PATH) as a run
// in the state directory, written ahead, so `rocefab runs` lists probes
// with applies and drifts and a probe killed in flight shows interrupted.
func recordProbeRuns(a *app, root *cobra.Command) {
	for _, cmd := range root.Commands() {
		if cmd.Name() != "probe" || cmd.RunE == nil || cmd.Flags().Lookup("state-dir") == nil {
			continue
		}
		inner := cmd.RunE
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			store := engine.RunStore{Dir: a.v.GetString("state-dir")}
			if store.Dir == "" {
				store.Dir = defaultStateDir()
			}
			user, host := engine.Actor()
			run, err := store.Begin(&engine.RunReport{ID: engine.NewRunID(time.Now()), Kind: engine.KindProbe,
				StartedAt: time.Now().UTC(), Intent: engine.IntentRefFor("", args), User: user, Hostname: host})
			if err != nil {
				a.log.Warn("recording the probe run", zap.Error(err))
				return inner(cmd, args)
			}
			runErr := inner(cmd, args)
			_ = run.Update(func(r *engine.RunReport) {
				r.FinishedAt, r.Status, r.Result = time.Now().UTC(), engine.StatusDone, "success"
				switch code := exitCode(runErr); {
				case code == ExitUsage:
					r.Result, r.Summary = "failure", "usage error: "+runErr.Error()
				case code != ExitOK:
					r.Result, r.Summary = "failure", "a verdict failed or the probe could not run"
				default:
					r.Summary = "every pair passed"
				}
			})
			if err := run.End(); err != nil {
				a.log.Warn("recording the probe run", zap.Error(err))
			}
			return runErr
		}
	}
}

func writeRuns(a *app, runs []engine.RunSummary, dir string) {
	if len(runs) == 0 {
		fmt.Fprintf(a.stdout, "No runs recorded in %s.\n", dir)
		return
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tKIND\tSTATUS\tRESULT\tSTARTED\tBY\tDEVICES")
	interrupted := 0
	for _, r := range runs {
		if r.Unreadable != "" {
			fmt.Fprintf(tw, "%s\t?\tunreadable\t\t\t\t%s\n", r.ID, r.Unreadable)
			continue
		}
		if r.Status == engine.StatusInterrupted {
			interrupted++
		}
		result := r.Result
		if result == "" {
			result = "-"
		}
		by := r.User
		if r.Hostname != "" {
			by += "@" + r.Hostname
		}
		kind := r.Kind
		if r.RollbackOf != "" {
			kind += " of " + r.RollbackOf
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, kind, r.Status, result,
			r.StartedAt.UTC().Format(time.RFC3339), by, outcomeCounts(r))
	}
	_ = tw.Flush()
	if interrupted > 0 {
		fmt.Fprintf(a.stdout, "\n%d interrupted run(s): the next apply or drift on their devices settles them; rocefab rollback RUN_ID restores their devices.\n", interrupted)
	}
}

func outcomeCounts(r engine.RunSummary) string {
	if r.Devices == 0 {
		if r.Summary != "" {
			return r.Summary
		}
		return "0"
	}
	keys := make([]string, 0, len(r.Outcomes))
	for k := range r.Outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, r.Outcomes[k]))
	}
	return fmt.Sprintf("%d (%s)", r.Devices, strings.Join(parts, ", "))
}
