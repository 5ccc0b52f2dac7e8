package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/intent"
)

// validateReport is the JSON shape of `validate --output json`.
type validateReport struct {
	SchemaVersion string             `json:"schemaVersion"`
	Valid         bool               `json:"valid"`
	Errors        int                `json:"errors"`
	Warnings      int                `json:"warnings"`
	Diagnostics   intent.Diagnostics `json:"diagnostics"`
}

func newValidateCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check intent files without contacting any device",
		Long: `validate loads intent files or directories, applies defaults and runs every
lint rule. Each PATH is its own fabric (a file, or a directory whose files
are merged), so several fabrics can be checked at once; use --merge to treat
all PATHs as one fabric, as plan and apply do. Problems print as
file:line:col: CODE severity field: message. Warnings fail only with --strict.

validate knows what plan knows: once the intent has no other errors it
renders every switch and host in memory, as plan does, and compares both
ends of every cable, so a pull request's validate step fails on what plan
would refuse. It never contacts a device.`,
		Args: requireArgs(1, "intent PATH"),
	}
	output := outputFlag(cmd, "text", "json", "junit")
	strict := cmd.Flags().Bool("strict", false, "treat warnings as failures")
	merge := cmd.Flags().Bool("merge", false, "validate all PATHs as one fabric")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		format, err := output()
		if err != nil {
			return err
		}
		var diags intent.Diagnostics
		if *merge {
			_, diags = a.validate(args...)
		} else {
			for _, path := range args {
				_, d := a.validate(path)
				diags = append(diags, d...)
			}
		}
		errs, warns := diags.Count()
		failed := errs > 0 || (*strict && warns > 0)
		switch format {
		case "junit":
			if err := writeValidateJUnit(a.stdout, args, diags, *strict); err != nil {
				return err
			}
		case "json":
			if diags == nil {
				diags = intent.Diagnostics{}
			}
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(validateReport{SchemaVersion: "rocefab.io/validate/v1", Valid: !failed, Errors: errs, Warnings: warns, Diagnostics: diags}); err != nil {
				return err
			}
		default:
			for _, d := range diags {
				fmt.Fprintln(a.stdout, d.String())
			}
			fmt.Fprintf(a.stdout, "%d error(s), %d warning(s)\n", errs, warns)
		}
		if failed {
			return exitWith(ExitFailure)
		}
		return nil
	}
	return cmd
}
