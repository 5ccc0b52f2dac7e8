package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
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
		if _, err := parseLLDPFiles(cf.files); err != nil {
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
			out.DCBX = readDCBX(res, readDCBXPeer)
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
	DCBX *cablingDCBX `json:"dcbx,omitempty"`
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
	_, err := parseLLDPFiles(f.files)
	return err
}

func parseLLDPFiles(files []string) (map[string]string, error) {
	given := map[string]string{}
	for _, f := range files {
		dev, path, ok := strings.Cut(f, "=")
		if !ok || dev == "" || path == "" {
			return nil, usageErr("--lldp %q: want DEVICE=FILE", f)
		}
		given[dev] = path
	}
	return given, nil
}

// report reads the cabling as rocefab cabling does: the saved files
// given with --lldp, lldpcli in each namespace, the switches through sw.
func (f *cablingFlags) report(ctx context.Context, res *intent.Resolved, sw switchLLDPReader) (*cabling.Report, error) {
	given, err := parseLLDPFiles(f.files)
	if err != nil {
		return nil, err
	}
	return readCabling(ctx, res, given, f.socket, sw)
}

// verifiedOnly reads the cabling and returns the intent with only the
// links LLDP verified, and a note for each link left out.
func (f *cablingFlags) verifiedOnly(ctx context.Context, res *intent.Resolved, sw switchLLDPReader) (*intent.Resolved, []string, error) {
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

// lldpDevice is one device of the intent as the cabling check reads it.
type lldpDevice struct {
	name, platform, netns string
	sw                    *intent.Switch // nil for a host
}

// readCabling reads every device's neighbours (saved files first, then
// lldpcli in the device's namespace) and classifies the intent's links.
func readCabling(ctx context.Context, res *intent.Resolved, given map[string]string, socket string, readSwitch switchLLDPReader) (*cabling.Report, error) {
	var devs []lldpDevice
	for _, s := range res.Switches {
		devs = append(devs, lldpDevice{s.Name, s.Platform, s.Netns, s})
	}
	for _, h := range res.Hosts {
		devs = append(devs, lldpDevice{h.Name, "host", h.Netns, nil})
	}
	known := map[string]bool{}
	for _, d := range devs {
		known[d.name] = true
	}
	for dev := range given {
		if !known[dev] {
			return nil, usageErr("--lldp %s: no device of that name in the intent", dev)
		}
	}
	obs := cabling.Observed{}
	var notes []string
	for _, d := range devs {
		parse := lldpParser(d.platform)
		var data []byte
		var err error
		path, fromFile := given[d.name]
		switch {
		case fromFile && parse == nil:
			return nil, fmt.Errorf("%s: rocefab reads no LLDP output of platform %s", d.name, d.platform)
		case fromFile:
			if data, err = os.ReadFile(path); err != nil {
				return nil, fmt.Errorf("%s: %w", d.name, err)
			}
		case d.netns != "":
			if data, err = lldpcliIn(ctx, d, socket); err != nil {
				notes = append(notes, fmt.Sprintf("%s not read: %v", d.name, err))
				continue
			}
		case d.sw != nil && readSwitch != nil && parse != nil:
			if data, err = readSwitch(ctx, d.sw); err != nil {
				notes = append(notes, fmt.Sprintf("%s not read: %v; give its LLDP output with --lldp %s=FILE", d.name, err, d.name))
				continue
			}
		default:
			notes = append(notes, fmt.Sprintf("%s not read: give its LLDP output with --lldp %s=FILE", d.name, d.name))
			continue
		}
		nbs, err := parse(d.name, data)
		if err != nil && !fromFile {
			// The device's own answer, not a file the user gave: say so
			// and judge its links by their other ends.
			notes = append(notes, fmt.Sprintf("%s not read: its LLDP answer does not parse: %v", d.name, err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		obs.Read = append(obs.Read, d.name)
		obs.Neighbors = append(obs.Neighbors, nbs...)
	}
	names := make([]string, 0, len(devs))
	for _, d := range devs {
		names = append(names, d.name)
	}
	rep := cabling.Classify(res.Links, names, obs)
	sort.Strings(notes)
	rep.Notes = notes
	return rep, nil
}

// switchLLDPReader reads one switch's LLDP neighbours, in its platform's
// format, through its driver.
type switchLLDPReader func(ctx context.Context, sw *intent.Switch) ([]byte, error)

// platformLLDP is the registered platforms' LLDP readers.
var platformLLDP = sync.OnceValue(func() map[string]*observe.LLDP {
	reg := all.Renderers()
	out := map[string]*observe.LLDP{}
	for _, name := range reg.Names() {
		if e, err := reg.Lookup(name); err == nil && e.Attrs.LLDP != nil {
			out[name] = e.Attrs.LLDP
		}
	}
	return out
})

// lldpParser is the parser of a platform's LLDP output: lldpcli's for
// hosts and Linux, the generic OpenConfig one, or the one the platform
// registers; nil when rocefab reads none.
func lldpParser(platform string) cabling.Parser {
	if p := cabling.Parsers[platform]; p != nil {
		return p
	}
	if l := platformLLDP()[platform]; l != nil {
		return l.Parse
	}
	return nil
}

// switchLLDP opens each switch as plan does and reads its neighbours: a
// show command over SSH or a gNMI Get, as the platform registers them
// (renderers.Attributes.LLDP), or OpenConfig's /lldp over gNMI.
func (a *app) switchLLDP(df *deviceFlags, res *intent.Resolved) switchLLDPReader {
	eng := a.engine(df, nil)
	return func(ctx context.Context, sw *intent.Switch) ([]byte, error) {
		drv, transport, err := eng.OpenSwitch(ctx, res, sw)
		if err != nil {
			return nil, err
		}
		defer drv.Close()
		switch d := drv.(type) {
		case interface {
			Show(context.Context, string) (string, error)
		}:
			var cmd string
			if l := platformLLDP()[sw.Platform]; l != nil {
				cmd = l.Show
			}
			if cmd == "" {
				return nil, fmt.Errorf("rocefab reads no LLDP over %s from %s", transport, sw.Platform)
			}
			out, err := d.Show(ctx, cmd)
			return []byte(out), err
		case interface{ Client() gnmipb.GNMIClient }:
			req := &gnmipb.GetRequest{Type: gnmipb.GetRequest_ALL, Encoding: gnmipb.Encoding_JSON_IETF,
				Path: []*gnmipb.Path{{Elem: []*gnmipb.PathElem{{Name: "lldp"}}}}}
			if l := platformLLDP()[sw.Platform]; l != nil && len(l.GNMIPath) > 0 {
				// The platform's own table instead of OpenConfig's /lldp.
				var elems []*gnmipb.PathElem
				for _, e := range l.GNMIPath {
					elems = append(elems, &gnmipb.PathElem{Name: e})
				}
				req.Prefix = &gnmipb.Path{Target: l.GNMITarget}
				req.Path = []*gnmipb.Path{{Elem: elems}}
			}
			resp, err := d.Client().Get(ctx, req)
			if err != nil {
				return nil, err
			}
			for _, n := range resp.GetNotification() {
				for _, u := range n.GetUpdate() {
					if v := u.GetVal().GetJsonIetfVal(); len(v) > 0 {
						return v, nil
					}
				}
			}
			return nil, fmt.Errorf("the gNMI answer holds no JSON")
		}
		return nil, fmt.Errorf("rocefab reads no LLDP over %s", transport)
	}
}

// lldpcliIn runs lldpcli inside the device's network namespace.
func lldpcliIn(ctx context.Context, d lldpDevice, socket string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := []string{"netns", "exec", d.netns, "lldpcli"}
	if socket != "" {
		args = append(args, "-u", strings.ReplaceAll(socket, "{name}", d.name))
	}
	args = append(args, "-f", "json", "show", "neighbors")
	out, err := exec.CommandContext(ctx, "ip", args...).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return nil, fmt.Errorf("lldpcli in netns %s: %s", d.netns, msg)
	}
	return out, nil
}
