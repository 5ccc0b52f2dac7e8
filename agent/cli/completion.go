package cli

import (
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/intent"
)

// Shell completion is cobra's (`rocefab completion bash|zsh|fish|powershell`)
// with rocefab's own words: device and host names from the intent the
// command line names, link ends, and run IDs from the state directory.
// Completion never contacts a device and never fails loudly: with no
// readable intent it offers nothing.

type completeFunc func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective)

// completionIntent loads the intent for completion: paths, or the
// command's arguments when paths is nil. Lint is not run: names are all
// completion needs.
func completionIntent(paths *[]string, args []string) *intent.Resolved {
	p := args
	if paths != nil {
		p = *paths
	}
	if len(p) == 0 {
		return nil
	}
	fab, _ := intent.Load(p...)
	if fab == nil {
		return nil
	}
	res, _ := intent.Resolve(fab)
	return res
}

func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// completeDevices completes the names of one positional DEVICE from the
// intent at paths.
func (a *app) completeDevices(paths *[]string, kind nameKind) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		res := completionIntent(paths, nil)
		if res == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withPrefix(intentNames(res, kind), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeDeviceFlag completes --device (comma-separated, repeatable) from
// the intent the command's PATH arguments name, or paths when given.
func (a *app) completeDeviceFlag(paths *[]string, kind nameKind) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		res := completionIntent(paths, args)
		if res == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		// "leaf1,le" completes the last name of the list.
		done, last := "", toComplete
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			done, last = toComplete[:i+1], toComplete[i+1:]
		}
		var out []string
		for _, n := range withPrefix(intentNames(res, kind), last) {
			out = append(out, done+n)
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// completeLinkEnds completes DEVICE:PORT for --link from the intent's cables.
func (a *app) completeLinkEnds(paths *[]string) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		res := completionIntent(paths, nil)
		if res == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var ends []string
		for _, l := range res.Links {
			ends = append(ends, l.A.String(), l.B.String())
		}
		return withPrefix(ends, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeRunIDs completes RUN_ID from the run store in --state-dir (or
// ROCEFAB_STATE_DIR, or the default), newest first, each with what it was.
func (a *app) completeRunIDs() completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		dir, _ := cmd.Flags().GetString("state-dir")
		if !cmd.Flags().Changed("state-dir") {
			if env := os.Getenv("ROCEFAB_STATE_DIR"); env != "" {
				dir = env
			}
		}
		store := engine.RunStore{Dir: dir}
		ids, err := store.List()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, id := range ids {
			if !strings.HasPrefix(id, toComplete) {
				continue
			}
			desc := ""
			if rep, err := store.LoadReport(id); err == nil {
				desc = rep.Kind + " " + rep.Result + " " + rep.StartedAt.Local().Format(time.DateTime)
				if rep.User != "" {
					desc += " by " + rep.User
				}
			}
			if desc != "" {
				id += "\t" + desc
			}
			out = append(out, id)
			if len(out) == 50 {
				break
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeIntentPaths offers intent files and directories for PATH
// arguments: YAML files and folders.
func completeIntentPaths(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}
