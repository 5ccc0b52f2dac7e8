package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/cabling"
	"github.com/rocefab/rocefab/validators/consistency"
)

func newCablingCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cabling PATH...",
		Short: "Check the cabling against the intent from LLDP: verified, miscabled, missing, unexpected",
		Long: `cabling reads every device's LLDP neighbours and reports each intent link as
verified (the ends see each other), miscabled ("gpu03 ens1f0 reaches leaf2
Ethernet7; the intent says leaf1 Ethernet7", for each end that says so),
missing (no neighbour on either end) or unread, and neighbours between
known devices on ports the intent has no link for as unexpected. Then it
checks each host's NIC settings, as rendered, against the switch ports LLDP
verified it is cabled to, and names every link it skipped: on a miscabled
link the intent's pair is the wrong one.

Devices in a network namespace (netns in the intent: hosts, and Linux
switches) are read with lldpcli -f json show neighbors inside it
(--lldp-socket names lldpd's control socket, {name} the device). Switches
are opened as plan opens them and asked as their platform reads LLDP: its
JSON show command over SSH or its gNMI Get (docs/platforms.md lists them),
or OpenConfig's /lldp over gNMI. Any device can
be given as saved output instead, --lldp DEVICE=FILE, parsed as its
platform prints it (lldpcli JSON for hosts and Linux). A device read no
way is not read, and the report says so.

--dcbx also reads what each port of a device in a namespace hears from
its DCBX neighbour (the kernel's DCB netlink peer PFC and APP table, where
the NIC driver runs DCBX and reports it) and compares the PFC priorities
and DSCP entries with the intent. The switch platforms document no
structured DCBX neighbour output, and lldpd decodes none: those are not
read (docs/intent.md).

Exit status: 0 when no link is miscabled, 1 when one is, a verified link's
ends disagree, a DCBX neighbour disagrees with the intent, or cabling
could not run; 64 on usage errors.`,
		Example: `  rocefab cabling fabric/
  rocefab cabling fabric/ --lldp leaf1=leaf1-lldp.json --lldp gpu03=gpu03-lldpcli.json
  sudo rocefab cabling examples/lab --lldp-socket /run/rflab-lldpd/{name}.sock --output markdown`,
		Args: requireArgs(1, "intent PATH"),
	}
	output := outputFlag(cmd, "text", "json", "markdown")
	df := addDeviceFlags(cmd)
	files := cmd.Flags().StringArray("lldp", nil, "DEVICE=FILE: that device's saved LLDP output, in its platform's format (repeatable)")
	socket := cmd.Flags().String("lldp-socket", "", "lldpd control socket for lldpcli -u, {name} the device (default: lldpd's own)")
	withDCBX := cmd.Flags().Bool("dcbx", false, "also read what each port's DCBX neighbour advertises (PFC priorities, DSCP APP table) where the NIC driver reports it, and compare it with the intent")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := df.validate(a); err != nil {
			return err
		}
		format, err := output()
		if err != nil {
			return err
		}
		cf := &cablingFlags{on: true, files: *files, socket: *socket}
		if _, err := fleet.ParseLLDPFiles(cf.files); err != nil {
			return err // a usage error before the intent is read
		}
		res, err := a.loadIntent(args)
		if err != nil {
			return err
		}
		rep, err := cf.report(cmd.Context(), res, a.switchLLDP(df, res))
		if err != nil {
			return err
		}
		out := cablingOutput{Report: rep}
		if out.Consistency, err = a.cabledConsistency(res, rep); err != nil {
			return err
		}
		if *withDCBX {
			out.DCBX = fleet.ReadDCBX(res, readDCBXPeer)
		}
		if err := out.write(a.stdout, format); err != nil {
			return err
		}
		if rep.Verdict == cabling.Fail || out.Consistency.errors() || (out.DCBX != nil && len(out.DCBX.Findings) > 0) {
			return exitWith(ExitFailure)
		}
		return nil
	}
	return cmd
}

// cablingOutput is what `rocefab cabling` prints: the cabling report and
// the host/switch consistency check over the links it verified.
type cablingOutput struct {
	*cabling.Report
	Consistency cablingConsistency `json:"consistency"`
	// DCBX is the neighbours' DCBX advertisements against the intent,
	// with --dcbx.
	DCBX *fleet.DCBXReport `json:"dcbx,omitempty"`
}

type cablingConsistency struct {
	Checked  int                   `json:"checked"`
	Findings []consistency.Finding `json:"findings"`
	Skipped  []consistency.Skipped `json:"skipped"`
}

func (c cablingConsistency) errors() bool {
	for _, f := range c.Findings {
		if f.Severity == consistency.Error {
			return true
		}
	}
	return false
}

// cabledConsistency checks each host's rendered NIC settings against the
// switch ports LLDP verified it is cabled to, and names the links it left
// out: on a miscabled link the intent's pair is the wrong one.
func (a *app) cabledConsistency(res *intent.Resolved, rep *cabling.Report) (cablingConsistency, error) {
	out := cablingConsistency{Findings: []consistency.Finding{}, Skipped: []consistency.Skipped{}}
	for _, h := range res.Hosts {
		fs, skipped, err := consistency.CheckHostCabled(res, a.renderers, h, nil, rep)
		if err != nil {
			return out, fmt.Errorf("host %s: %w", h.Name, err)
		}
		out.Checked += len(res.HostLinksOf(h.Name)) - len(skipped)
		out.Findings = append(out.Findings, fs...)
		out.Skipped = append(out.Skipped, skipped...)
	}
	return out, nil
}

func (o cablingOutput) write(w io.Writer, format string) error {
	c := o.Consistency
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(o)
	case "markdown":
		if err := o.WriteMarkdown(w); err != nil {
			return err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "\n### Host/switch consistency\n\n%d host links checked, %d findings, %d skipped.\n\n", c.Checked, len(c.Findings), len(c.Skipped))
		for _, f := range c.Findings {
			fmt.Fprintf(&b, "- %s\n", strings.ReplaceAll(f.String(), "|", `\|`))
		}
		for _, s := range c.Skipped {
			fmt.Fprintf(&b, "- %s\n", strings.ReplaceAll(s.String(), "|", `\|`))
		}
		if d := o.DCBX; d != nil {
			fmt.Fprintf(&b, "\n### DCBX\n\n%d ports with a DCBX neighbour read, %d findings.\n\n", d.Read, len(d.Findings))
			for _, f := range d.Findings {
				fmt.Fprintf(&b, "- **%s** %s\n", f.TLV, strings.ReplaceAll(f.Message, "|", `\|`))
			}
			for _, n := range d.Notes {
				fmt.Fprintf(&b, "- note: %s\n", strings.ReplaceAll(n, "|", `\|`))
			}
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	if err := o.WriteText(w); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "consistency: %d host links checked against their switch ports, %d findings, %d skipped\n", c.Checked, len(c.Findings), len(c.Skipped))
	for _, f := range c.Findings {
		fmt.Fprintf(&b, "consistency: %s\n", f)
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(&b, "consistency: %s\n", s)
	}
	if d := o.DCBX; d != nil {
		fmt.Fprintf(&b, "dcbx: %d ports with a DCBX neighbour read, %d findings\n", d.Read, len(d.Findings))
		for _, f := range d.Findings {
			fmt.Fprintf(&b, "dcbx: %s\n", f)
		}
		for _, n := range d.Notes {
			fmt.Fprintf(&b, "dcbx: note: %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cablingFlags read the cabling for a command that trusts it (probe) or
// reports it beside the configuration (plan, drift).
type cablingFlags struct {
	on     bool
	files  []string
	socket string
}

func addCablingFlags(cmd *cobra.Command, usage string) *cablingFlags {
	f := &cablingFlags{}
	fs := cmd.Flags()
	fs.BoolVar(&f.on, "cabling", false, usage)
	fs.StringArrayVar(&f.files, "lldp", nil, "with --cabling: DEVICE=FILE, that device's saved LLDP output (repeatable)")
	fs.StringVar(&f.socket, "lldp-socket", "", "with --cabling: lldpd control socket for lldpcli -u, {name} the device")
	return f
}

// used reports whether any cabling flag was given.
func (f *cablingFlags) used(cmd *cobra.Command) bool {
	for _, n := range []string{"cabling", "lldp", "lldp-socket"} {
		if cmd.Flags().Changed(n) {
			return true
		}
	}
	return false
}

// validate: --lldp and --lldp-socket say how to read the cabling, so they
// need --cabling; a malformed --lldp is a usage error before any device
// is read.
func (f *cablingFlags) validate(cmd *cobra.Command) error {
	if !f.on {
		for _, n := range []string{"lldp", "lldp-socket"} {
			if cmd.Flags().Changed(n) {
				return usageErr("--%s needs --cabling", n)
			}
		}
		return nil
	}
	_, err := fleet.ParseLLDPFiles(f.files)
	return err
}

// switchLLDP opens each switch as plan does and reads its neighbours.
func (a *app) switchLLDP(df *deviceFlags, res *intent.Resolved) fleet.SwitchLLDPReader {
	return fleet.SwitchLLDP(a.engine(df, nil), res)
}

// report reads the cabling as rocefab cabling does: the saved files
// given with --lldp, lldpcli in each namespace, the switches through sw.
func (f *cablingFlags) report(ctx context.Context, res *intent.Resolved, sw fleet.SwitchLLDPReader) (*cabling.Report, error) {
	given, err := fleet.ParseLLDPFiles(f.files)
	if err != nil {
		return nil, err
	}
	return fleet.ReadCabling(ctx, res, given, f.socket, sw)
}

// verifiedOnly reads the cabling and returns the intent with only the
// links LLDP verified, and a note for each link left out.
func (f *cablingFlags) verifiedOnly(ctx context.Context, res *intent.Resolved, sw fleet.SwitchLLDPReader) (*intent.Resolved, []string, error) {
	rep, err := f.report(ctx, res, sw)
	if err != nil {
		return nil, nil, err
	}
	var keep []intent.Link
	var notes []string
	for _, l := range res.Links {
		if st := rep.Status(l); st != cabling.Verified {
			msg := "not read"
			if fd := rep.Finding(l); fd != nil {
				msg = fd.Message
			}
			notes = append(notes, fmt.Sprintf("cabling: skipped %s (%s): %s", cabling.LinkName(l), st, msg))
			continue
		}
		keep = append(keep, l)
	}
	return res.WithLinks(keep), notes, nil
}
