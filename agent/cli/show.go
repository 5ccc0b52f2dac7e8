package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/host"
	"github.com/rocefab/rocefab/validators/lint"
)

// showReport is the JSON shape of `show DEVICE --output json`.
type showReport struct {
	SchemaVersion string `json:"schemaVersion"`
	Device        string `json:"device"`
	Kind          string `json:"kind"`
	Platform      string `json:"platform"`
	Transport     string `json:"transport,omitempty"`
	Address       string `json:"address,omitempty"`
	// Native is what rocefab owns on the device now, in the device's own
	// form; Model is the same as rocefab's model.
	Native string         `json:"native"`
	Model  *devcfg.Config `json:"model"`
	// Compliant: the device runs what the intent renders; Changes are the
	// differences (running -> intent) otherwise.
	Compliant bool            `json:"compliant"`
	Changes   []devcfg.Change `json:"changes,omitempty"`
	Error     string          `json:"error,omitempty"`
}

func newShowCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show DEVICE | --link DEVICE:PORT",
		Short: "Show what rocefab owns on a device now, or both ends of a link",
		Long: `show DEVICE reads the device as plan does and prints what rocefab owns on it
now: in the device's own form (CLI, set statements, nv set commands,
config_db or gNMI JSON; a host's NIC settings) and as rocefab's model, and
whether it matches the intent. It changes nothing.

show --link DEVICE:PORT prints both ends of the cable at that port side by
side (lossless settings as the intent gives them, a host's NIC settings as
rocefab renders them) and the verdict of the same check validate runs:
consistent, or what the two ends disagree on. It reads no device.

The intent is --intent PATH (default: the current directory).`,
		Example: `  rocefab show leaf1 --intent fabric/
  rocefab show gpu07 --intent fabric/ --output json
  rocefab show --link leaf1:Ethernet1/7 --intent fabric/
  rocefab show --link spine1:swp2`,
		Args: func(cmd *cobra.Command, args []string) error {
			link, _ := cmd.Flags().GetString("link")
			switch {
			case link != "" && len(args) > 0:
				return usageErr("give DEVICE or --link DEVICE:PORT, not both")
			case link == "" && len(args) != 1:
				return usageErr("show needs one DEVICE, or --link DEVICE:PORT")
			}
			return nil
		},
	}
	output := outputFlag(cmd, "text", "json")
	paths := cmd.Flags().StringSlice("intent", []string{"."}, "intent files or directories")
	link := cmd.Flags().String("link", "", "show the link at DEVICE:PORT instead of a device")
	df := addDeviceFlags(cmd)
	cmd.ValidArgsFunction = a.completeDevices(paths, kindDevice)
	_ = cmd.RegisterFlagCompletionFunc("link", a.completeLinkEnds(paths))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := df.validate(a); err != nil {
			return err
		}
		format, err := output()
		if err != nil {
			return err
		}
		if *link != "" {
			// A link is shown even when lint finds it (or anything else)
			// wrong: that is what the verdict is for. Only an intent that
			// does not load stops it.
			res, diags := a.validate(*paths...)
			if res == nil || loaderErrors(diags) {
				printDiagnostics(a, diags)
				return exitWith(ExitFailure)
			}
			a.pinTrust(res)
			return a.showLink(format, res, *link)
		}
		res, err := a.loadIntent(*paths)
		if err != nil {
			return err
		}
		if err := checkNames("show", kindDevice, args, intentNames(res, kindDevice)); err != nil {
			return err
		}
		rep := a.showDevice(cmd, res, *paths, df, args[0])
		if err := writeShow(a.stdout, format, rep); err != nil {
			return err
		}
		if rep.Error != "" {
			return exitWith(ExitFailure)
		}
		return nil
	}
	return cmd
}

// loaderErrors: the intent did not load or resolve (RF0xx errors).
func loaderErrors(diags intent.Diagnostics) bool {
	for _, d := range diags {
		if d.Severity == intent.SeverityError && strings.HasPrefix(d.Code, "RF0") {
			return true
		}
	}
	return false
}

// showDevice reads one device: a switch through its driver, within what
// rocefab owns there (the intent's render and what it applied last), a
// host through the host runner.
func (a *app) showDevice(cmd *cobra.Command, res *intent.Resolved, paths []string, df *deviceFlags, name string) *showReport {
	rep := &showReport{SchemaVersion: "rocefab.io/show/v1", Device: name}
	if h := res.Host(name); h != nil {
		rep.Kind, rep.Platform = "host", "host"
		hosts := a.fleet().Hosts(res, paths)
		r, transport, err := hosts.Run(cmd.Context(), res, h, false)
		rep.Transport, rep.Address = transport, h.Address.String()
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		if r.Observed == nil {
			rep.Error = "the host reported no settings"
			return rep
		}
		rep.Model = &devcfg.Config{Device: name, Platform: "host", Shape: devcfg.ShapeHost, Host: r.Observed}
		rep.Native = hostNative(r.Observed)
		rep.Changes = r.Changes()
		rep.Compliant = len(rep.Changes) == 0
		return rep
	}
	sw := res.Switch(name)
	rep.Kind, rep.Platform = "switch", sw.Platform
	// Plan the one device: how to reach it, and the scope rocefab owns.
	eng := a.engine(df, nil)
	p, err := eng.Plan(cmd.Context(), res, engine.IntentRefFor(res.Name, paths), engine.Selection{Devices: []string{name}, SkipHosts: true})
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	dp, _ := p.Device(name)
	if dp == nil {
		rep.Error = "not planned"
		return rep
	}
	rep.Transport, rep.Address = dp.Transport, dp.Address
	if dp.Error != "" || dp.Desired == nil {
		rep.Error = dp.Error
		return rep
	}
	running, err := a.fleet().ReadDevice(cmd.Context(), *dp, dp.Desired.Owned)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	owned := running.Owned
	owned.Device, owned.Platform = name, sw.Platform
	rep.Model = owned
	e, _ := a.renderers.Lookup(sw.Platform)
	if data, err := e.Attrs.Encode(owned); err == nil {
		rep.Native = string(data)
	} else {
		rep.Native = owned.Text()
	}
	rep.Changes = dp.Changes
	rep.Compliant = len(dp.Changes) == 0 && len(dp.Conflicts) == 0
	return rep
}

// hostNative is a host's NIC settings as an operator reads them.
func hostNative(s *devcfg.HostSettings) string {
	var b strings.Builder
	for _, n := range s.NICs {
		fmt.Fprintf(&b, "%s", n.Netdev)
		if n.RDMADevice != "" {
			fmt.Fprintf(&b, " (%s port %d)", n.RDMADevice, max(n.RDMAPort, 1))
		}
		b.WriteString(":\n")
		line := func(k string, v any) { fmt.Fprintf(&b, "  %-22s %v\n", k, v) }
		line("mtu", n.MTU)
		if n.VLANNetdev != "" {
			line("vlan netdev", fmt.Sprintf("%s (VLAN %d)", n.VLANNetdev, n.VLAN))
		}
		if n.PFCEnable != nil {
			line("pfc enable", fmt.Sprintf("0x%02x (priorities %s)", *n.PFCEnable, bits(*n.PFCEnable)))
		}
		if n.Trust != "" {
			line("trust", n.Trust)
		}
		for _, app := range n.App {
			if app.Selector == 5 {
				line(fmt.Sprintf("dscp %d", app.Protocol), fmt.Sprintf("priority %d", app.Priority))
			}
		}
		if n.CNPDSCP != nil {
			line("cnp dscp", *n.CNPDSCP)
		}
		if n.CNPPriority != nil {
			line("cnp priority", *n.CNPPriority)
		}
		if len(n.ECNNotificationPoint) > 0 || len(n.ECNReactionPoint) > 0 {
			line("dcqcn np / rp", fmt.Sprintf("%v / %v", n.ECNNotificationPoint, n.ECNReactionPoint))
		}
		if n.RoCEMode != "" {
			line("roce mode", n.RoCEMode)
		}
		if n.RoCEToS != nil {
			line("roce tos", *n.RoCEToS)
		}
		if n.LinkPause != nil {
			line("802.3x pause", *n.LinkPause)
		}
	}
	return b.String()
}

func bits(b uint8) string {
	var out []string
	for i := 0; i < 8; i++ {
		if b&(1<<i) != 0 {
			out = append(out, fmt.Sprint(i))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ",")
}

func writeShow(w io.Writer, format string, rep *showReport) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	var b strings.Builder
	what := rep.Platform
	if rep.Transport != "" {
		what += " via " + rep.Transport
	}
	if rep.Address != "" {
		what += " " + rep.Address
	}
	fmt.Fprintf(&b, "%s (%s)\n", rep.Device, what)
	if rep.Error != "" {
		fmt.Fprintf(&b, "ERROR: %s\n", rep.Error)
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("\nWhat rocefab owns on it now, as the device has it:\n")
	writeIndented(&b, rep.Native)
	b.WriteString("\nThe same in rocefab's model:\n")
	if rep.Model != nil {
		writeIndented(&b, rep.Model.Text())
	}
	b.WriteByte('\n')
	if rep.Compliant {
		b.WriteString("It matches the intent.\n")
	} else {
		fmt.Fprintf(&b, "It differs from the intent in %d place(s); `rocefab drift` shows them (running -> intent).\n", len(rep.Changes))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeIndented(b *strings.Builder, text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		b.WriteString("  (nothing)\n")
		return
	}
	for _, l := range strings.Split(text, "\n") {
		b.WriteString("  " + l + "\n")
	}
}

// linkEnd is one end of a cable, for the side-by-side view.
type linkEnd struct {
	End      string            `json:"end"`
	Kind     string            `json:"kind"`
	Platform string            `json:"platform,omitempty"`
	Settings map[string]string `json:"settings"`
}

// linkReport is the JSON shape of `show --link`.
type linkReport struct {
	SchemaVersion string              `json:"schemaVersion"`
	Link          string              `json:"link"`
	At            string              `json:"at"`
	Ends          [2]linkEnd          `json:"ends"`
	Consistent    bool                `json:"consistent"`
	Findings      []linkReportFinding `json:"findings,omitempty"`
}

type linkReportFinding struct {
	Severity string `json:"severity"`
	At       string `json:"at"`
	Message  string `json:"message"`
}

// linkRows are the settings shown for both ends, in order.
var linkRows = []string{"port mode", "no-drop priority", "PFC priorities", "RoCE DSCP", "trust", "VLAN", "CNP DSCP", "CNP priority",
	"ECN thresholds", "RoCE ToS", "MTU (L3)", "802.3x pause"}

// mustMatch are the rows both ends of a cable must agree on (the MTU
// need not be equal: the host's must fit the switch's).
var mustMatch = map[string]bool{"no-drop priority": true, "PFC priorities": true, "RoCE DSCP": true, "trust": true,
	"VLAN": true, "CNP DSCP": true, "CNP priority": true}

func (a *app) showLink(format string, res *intent.Resolved, at string) error {
	dev, port, ok := strings.Cut(at, ":")
	if !ok || dev == "" || port == "" {
		return usageErr("--link %q: give DEVICE:PORT, e.g. leaf1:Ethernet1/7", at)
	}
	if err := checkNames("--link", kindDevice, []string{dev}, intentNames(res, kindDevice)); err != nil {
		return err
	}
	var l *intent.Link
	var ends []string
	for i := range res.Links {
		x := &res.Links[i]
		if (x.A.Device == dev && x.A.Port == port) || (x.B.Device == dev && x.B.Port == port) {
			l = x
		}
		for _, e := range []intent.Endpoint{x.A, x.B} {
			if e.Device == dev {
				ends = append(ends, e.String())
			}
		}
	}
	if l == nil {
		hint := " (" + dev + " has no links)"
		if len(ends) > 0 {
			hint = " (" + dev + "'s cabled ports: " + strings.Join(ends, ", ") + ")"
			if best := lint.Closest(at, ends); best != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", best)
			}
		}
		return usageErr("--link: no link at %s in the intent%s", at, hint)
	}
	rep := linkReport{SchemaVersion: "rocefab.io/link/v1", Link: l.A.String() + " – " + l.B.String(), At: l.At.String()}
	var settings *devcfg.HostSettings
	for i, e := range []intent.Endpoint{l.A, l.B} {
		end, s, err := a.linkEndView(res, e)
		if err != nil {
			return err
		}
		rep.Ends[i] = end
		if s != nil {
			settings = s
		}
	}
	for _, f := range lint.CheckLink(res, a.renderers, *l, settings) {
		rep.Findings = append(rep.Findings, linkReportFinding{Severity: f.Severity.String(), At: f.At.String(), Message: f.Message})
	}
	rep.Consistent = true
	for _, f := range rep.Findings {
		if f.Severity == "error" {
			rep.Consistent = false
		}
	}
	if format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Link %s (%s)\n\n", rep.Link, rep.At)
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	fmt.Fprintf(tw, "  \t%s\t%s\n", rep.Ends[0].End, rep.Ends[1].End)
	kind := func(e linkEnd) string {
		if e.Platform != "" {
			return e.Kind + " (" + e.Platform + ")"
		}
		return e.Kind
	}
	fmt.Fprintf(tw, "  device\t%s\t%s\n", kind(rep.Ends[0]), kind(rep.Ends[1]))
	for _, row := range linkRows {
		va, vb := rep.Ends[0].Settings[row], rep.Ends[1].Settings[row]
		if va == "" && vb == "" {
			continue
		}
		mark := ""
		if mustMatch[row] && va != "" && vb != "" && strings.Fields(va)[0] != strings.Fields(vb)[0] {
			mark = "   <- differs"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s%s\n", row, orNone(va), orNone(vb), mark)
	}
	_ = tw.Flush()
	b.WriteByte('\n')
	switch {
	case len(rep.Findings) == 0:
		b.WriteString("Verdict: consistent: both ends agree on the lossless class.\n")
	case rep.Consistent:
		fmt.Fprintf(&b, "Verdict: consistent, with %d warning(s):\n", len(rep.Findings))
	default:
		b.WriteString("Verdict: INCONSISTENT:\n")
	}
	for _, f := range rep.Findings {
		fmt.Fprintf(&b, "  %s %s: %s\n", f.Severity, f.At, f.Message)
	}
	if _, err := io.WriteString(a.stdout, b.String()); err != nil {
		return err
	}
	if !rep.Consistent {
		return exitWith(ExitFailure)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// linkEndView is one end's settings: a switch port's from its policy and
// platform, a host NIC's as rocefab renders them (returned too).
func (a *app) linkEndView(res *intent.Resolved, e intent.Endpoint) (linkEnd, *devcfg.HostSettings, error) {
	end := linkEnd{End: e.String(), Settings: map[string]string{}}
	set := func(k string, v any) { end.Settings[k] = fmt.Sprint(v) }
	if sw := res.Switch(e.Device); sw != nil {
		end.Kind, end.Platform = "switch", sw.Platform
		p := sw.Policy
		if port, ok := sw.Port(e.Port); ok {
			set("port mode", port.Mode)
		}
		set("no-drop priority", p.NoDropPriority)
		set("PFC priorities", prioText(p))
		set("RoCE DSCP", intsText(p.RoCEDSCP))
		set("trust", p.Trust)
		if p.VLAN != 0 {
			set("VLAN", p.VLAN)
		}
		if p.ECNOn() {
			set("CNP DSCP", p.CNPDSCP)
			set("CNP priority", p.CNPPriority)
			set("ECN thresholds", fmt.Sprintf("%d-%d B, %d%%", p.ECNMin, p.ECNMax, p.MarkProbability))
		}
		if entry, err := a.renderers.Lookup(sw.Platform); err == nil {
			set("MTU (L3)", entry.SwitchMTU(p))
		}
		return end, nil, nil
	}
	h := res.Host(e.Device)
	if h == nil {
		return end, nil, fmt.Errorf("%s is not in the intent", e.Device)
	}
	end.Kind = "host NIC"
	rh, err := host.Render(h, res)
	if err != nil {
		return end, nil, err
	}
	for _, n := range rh.Settings.NICs {
		if n.Netdev != e.Port {
			continue
		}
		set("MTU (L3)", n.MTU)
		if n.VLAN != 0 {
			set("VLAN", fmt.Sprintf("%d (%s)", n.VLAN, n.VLANNetdev))
		}
		if n.PFCEnable != nil {
			set("PFC priorities", bits(*n.PFCEnable))
		}
		set("trust", n.Trust)
		var roce []string
		for _, app := range n.App {
			if app.Selector == 5 && int(app.Priority) == h.Policy.NoDropPriority {
				roce = append(roce, fmt.Sprint(app.Protocol))
			}
		}
		if len(roce) > 0 {
			set("RoCE DSCP", strings.Join(roce, ", "))
		}
		set("no-drop priority", h.Policy.NoDropPriority)
		if n.CNPDSCP != nil {
			set("CNP DSCP", *n.CNPDSCP)
		}
		if n.CNPPriority != nil {
			set("CNP priority", *n.CNPPriority)
		}
		if n.RoCEToS != nil {
			set("RoCE ToS", fmt.Sprintf("%d (DSCP %d, ECN %d)", *n.RoCEToS, *n.RoCEToS>>2, *n.RoCEToS&3))
		}
		if n.LinkPause != nil {
			set("802.3x pause", map[bool]string{true: "on", false: "off"}[*n.LinkPause])
		}
	}
	return end, rh.Settings, nil
}

func prioText(p intent.Policy) string {
	if !p.PFCOn() {
		return "none"
	}
	return intsText(p.PFCPriorities)
}

func intsText(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}
