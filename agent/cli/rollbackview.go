package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/devcfg"
)

// A rollback shows what it will do before it asks: per device, the diff
// that puts it back to its snapshot, and the changes made on the device
// since the run (by hand, or by a later run) that the rollback would
// overwrite. Devices whose restore is traffic-affecting are named before
// the question too, as apply does.

// rollbackDevice is one device of the preview.
type rollbackDevice struct {
	plan compliance.DevicePlan
	// since are the differences between what the run left (its read-back)
	// and what runs now: changes made after the run.
	since []devcfg.Change
	// overwritten are the entries of since that the rollback changes.
	overwritten []devcfg.Change
	err         string
}

// rollbackPreview reads every device the run applied to and diffs it
// against its snapshot, as the engine's rollback will.
func (a *app) rollbackPreview(ctx context.Context, store engine.RunStore, orig *engine.RunReport) []rollbackDevice {
	var out []rollbackDevice
	for _, d := range orig.Devices {
		if d.Snapshot == "" || !rollbackTouches(d) {
			continue
		}
		rd := rollbackDevice{plan: compliance.DevicePlan{Device: d.Device, Kind: d.Kind, Platform: d.Platform, Transport: d.Transport,
			Address: d.Address, Connection: d.Connection}}
		if d.Kind == "host" {
			rd.err = "host NIC settings are runtime state: the rollback skips it (re-apply the intent instead)"
			out = append(out, rd)
			continue
		}
		entry, err := a.renderers.Lookup(d.Platform)
		if err != nil {
			rd.err = err.Error()
			out = append(out, rd)
			continue
		}
		syn, classify := entry.Attrs.Platform.Syntax, entry.Attrs.Classify
		snap, err := store.LoadSnapshot(d.Snapshot)
		if err != nil {
			rd.err = err.Error()
			out = append(out, rd)
			continue
		}
		now, err := a.fleet().ReadDevice(ctx, rd.plan, snap.Owned)
		if err != nil {
			rd.err = err.Error()
			out = append(out, rd)
			continue
		}
		rd.plan.Desired = snap
		rd.plan.Changes = devcfg.Diff(snap, now.Owned, syn, classify)
		rd.plan.Status = compliance.StatusChanges
		if len(rd.plan.Changes) == 0 {
			rd.plan.Status = compliance.StatusNoChanges
		}
		if d.Applied != "" {
			if left, err := store.LoadSnapshot(d.Applied); err == nil {
				left.Owned = snap.Owned // compare within the same scope
				rd.since = devcfg.Diff(left, now.Owned, syn, classify)
				touched := map[string]bool{}
				for _, c := range rd.plan.Changes {
					touched[changeKey(c, syn)] = true
				}
				for _, c := range rd.since {
					if touched[changeKey(c, syn)] {
						rd.overwritten = append(rd.overwritten, c)
					}
				}
			}
		}
		out = append(out, rd)
	}
	return out
}

// rollbackTouches is the engine's choice of the devices a rollback
// restores: those the run pushed to, or had started to when it was
// interrupted.
func rollbackTouches(d engine.DeviceRun) bool {
	switch {
	case d.Outcome == engine.OutcomeApplied, d.Outcome == engine.OutcomeUnknown, d.Outcome == engine.OutcomeInProgress:
		return true
	case d.Phase == engine.PhasePushing, d.Phase == engine.PhaseConfirming:
		return true
	}
	return d.Found == "new"
}

// unsettledDevices are the devices whose record the run left open: it
// was pushing them when it was interrupted, or never learnt what they
// committed. A rollback settles them even when nothing needs restoring.
func unsettledDevices(store engine.RunStore, orig *engine.RunReport) []string {
	var out []string
	for _, d := range orig.Devices {
		open := d.Outcome == engine.OutcomeInProgress || d.Outcome == engine.OutcomeUnknown
		if a := store.Interrupted(d.Device); a != nil && a.Run == orig.ID {
			open = true
		}
		if open && d.Kind != "host" && d.Snapshot != "" {
			out = append(out, d.Device)
		}
	}
	return out
}

// changeKey is where a change is: its parents and line key, or its path.
func changeKey(c devcfg.Change, syn devcfg.Syntax) string {
	line := c.Path
	switch {
	case c.Action == devcfg.Add && c.New != "":
		line = c.New
	case c.Action == devcfg.Remove && c.Old != "":
		line = c.Old
	}
	if len(c.Parents) > 0 || syn.Style == devcfg.StyleCLITree {
		return strings.Join(append(append([]string(nil), c.Parents...), syn.LineKey(line)), " > ")
	}
	return c.Path
}

// writeRollbackPreview prints the preview and returns how many devices
// the rollback will change, and how many it will refuse without
// --allow-disruptive.
func writeRollbackPreview(w io.Writer, orig *engine.RunReport, devs []rollbackDevice, v compliance.View, allowDisruptive bool) (ready, held int) {
	var b strings.Builder
	fmt.Fprintf(&b, "Rollback of %s run %s (%s by %s, intent %s%s): what it puts back, running -> snapshot before the run\n",
		orig.Kind, orig.ID, orig.StartedAt.Local().Format(time.RFC3339), orDashString(orig.User), orDashString(orig.Intent.Fabric), commitText(orig.Intent))
	for _, d := range devs {
		b.WriteByte('\n')
		what := d.plan.Platform
		if d.plan.Transport != "" {
			what += " via " + d.plan.Transport
		}
		if d.plan.Address != "" {
			what += " " + d.plan.Address
		}
		if d.err != "" {
			fmt.Fprintf(&b, "%s (%s): cannot be read: %s\n", d.plan.Device, what, d.err)
			continue
		}
		if len(d.plan.Changes) == 0 {
			fmt.Fprintf(&b, "%s (%s): already at its snapshot, nothing to do\n", d.plan.Device, what)
			continue
		}
		fmt.Fprintf(&b, "%s (%s): %s\n", d.plan.Device, what, compliance.Headline(d.plan))
		for _, l := range compliance.ChangeLines("plan", d.plan, v) {
			b.WriteString(l + "\n")
		}
		if len(d.overwritten) > 0 {
			fmt.Fprintf(&b, "  ! %d change(s) made on %s since the run (by hand or by a later run) would be overwritten:\n", len(d.overwritten), d.plan.Device)
			tmp := compliance.DevicePlan{Platform: d.plan.Platform, Changes: d.overwritten}
			for _, l := range compliance.ChangeLines("plan", tmp, v) {
				// These read as "now -> what the run left".
				b.WriteString("    " + strings.TrimPrefix(l, "  ") + "   (now -> as the run left it)\n")
			}
		} else if len(d.since) > 0 {
			fmt.Fprintf(&b, "  note: %s changed in %d place(s) since the run; the rollback leaves them alone\n", d.plan.Device, len(d.since))
		}
		if d.plan.Disruptive() && !allowDisruptive {
			held++
			fmt.Fprintf(&b, "  refused without --allow-disruptive: restoring these settings is traffic-affecting\n")
			continue
		}
		ready++
	}
	_, _ = io.WriteString(w, b.String())
	return ready, held
}

func commitText(r compliance.IntentRef) string {
	if r.Commit == "" {
		return ""
	}
	c := r.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	return " at commit " + c
}
