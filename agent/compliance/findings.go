package compliance

import (
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/finding"
)

// Plan finding codes, beside the cabling statuses a plan with a cabling
// check adds.
const (
	CodeDrift       finding.Code = "drift"       // drift: running differs from the intent
	CodeConflict    finding.Code = "conflict"    // another owner holds a singleton
	CodeUnreachable finding.Code = "unreachable" // the device could not be read
	CodeDeviceError finding.Code = "device-error"
	CodeWarning     finding.Code = "device-warning" // a setting the device cannot do
)

// Findings are the device's problems in the shared finding shape (source
// plan). Planned changes are not problems; a drifted setting (drift), a
// conflict, an unreachable or failed device and a warning are: conflicts,
// failures and drift that breaks the lossless class are errors, the rest
// warnings. Where is device/step.
func (d DevicePlan) Findings() []finding.Finding {
	var out []finding.Finding
	add := func(code finding.Code, sev finding.Severity, where, msg string) {
		out = append(out, finding.Finding{Source: finding.SourcePlan, Code: code, Severity: sev,
			Subject: finding.Subject{Device: d.Device}, Where: d.Device + "/" + where, Message: msg})
	}
	switch d.Status {
	case StatusUnreachable:
		add(CodeUnreachable, finding.Error, "read", d.Error)
	case StatusError:
		add(CodeDeviceError, finding.Error, "plan", d.Error)
	case StatusDrifted:
		for _, c := range d.Changes {
			sev := finding.Warning
			if c.Effect == devcfg.EffectBreaks {
				sev = finding.Error
			}
			msg := c.Action.String() + " " + c.Where()
			if c.Old != "" || c.New != "" {
				msg += ": " + c.Old + " -> " + c.New
			}
			add(CodeDrift, sev, c.Where(), msg)
		}
	}
	for _, c := range d.Conflicts {
		add(CodeConflict, finding.Error, c.Singleton, c.String())
	}
	for _, w := range d.Warnings {
		add(CodeWarning, finding.Warning, "render", w)
	}
	return out
}

// Findings are the plan's problems in the shared shape: every device's,
// then the cabling check's links that are not verified.
func (p *Plan) Findings() []finding.Finding {
	var out []finding.Finding
	for _, d := range p.Devices {
		out = append(out, d.Findings()...)
	}
	if p.Cabling != nil {
		for _, f := range finding.All(p.Cabling.Findings) {
			if f.Severity > finding.Info {
				out = append(out, f)
			}
		}
	}
	return out
}
