package cli

import (
	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/demo"
)

func newDemoCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show the whole story on an embedded fabric: validate, plan, apply, probe, drift, remediate",
		Long: `demo starts simulated switches on this machine (NX-OS and EOS over SSH,
SONiC and OpenConfig over gNMI, with TLS and SSH host keys verified) and, when
run as root, a real Linux router and two hosts in network namespaces. It then
validates the embedded intent (examples/demo), plans, applies, plans again,
probes the fabric with RoCEv2 traffic, changes a switch by hand, detects the
drift (and, with namespaces, the probe's named fault), and remediates.

Without root (or with --no-netns) the probe runs between two endpoints on
loopback, and the demo says so. It needs no network and no prompts, and
removes everything it created when it ends, also on Ctrl-C.

Exit status: 0 when every step played out as expected, 1 otherwise.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("demo takes no arguments: it runs its embedded fabric (got %q)", args[0])
			}
			return nil
		},
	}
	noNetns := cmd.Flags().Bool("no-netns", false, "do not build network namespaces: probe over loopback")
	stateDir := cmd.Flags().String("state-dir", "", "keep the intent, trust files and run reports here (default: a temporary directory, removed at the end)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		mode := demo.ModeAuto
		if *noNetns {
			mode = demo.ModeLoopback
		}
		_, err := demo.Run(cmd.Context(), demo.Options{
			Out: a.stdout, Mode: mode, StateDir: *stateDir,
			Renderers: a.renderers, Drivers: a.drivers, Logger: a.log,
		})
		return err
	}
	return cmd
}
