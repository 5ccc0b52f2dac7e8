package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/junit"
	"github.com/rocefab/rocefab/validators/cabling"
	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// --output junit turns each command's findings into JUnit XML so CI systems
// show them as test results: a diagnostic, a device or a host pair is a
// test case; what the command judges wrong is a failure, what it could not
// check an error.

// writeValidateJUnit: one case per diagnostic (errors fail; warnings fail
// with --strict, else pass with the warning as output), and one passing
// case per PATH that has none.
func writeValidateJUnit(w io.Writer, paths []string, diags intent.Diagnostics, strict bool) error {
	s := junit.Suite{Name: "rocefab validate"}
	for _, d := range diags {
		c := junit.Case{Name: fmt.Sprintf("%s %s %s", d.Code, orField(d.Field), d.Loc), Classname: "validate." + d.Code,
			File: d.File, Line: d.Line}
		switch {
		case d.Severity == intent.SeverityError:
			c.Failure = &junit.Problem{Message: d.Message, Type: "error", Text: d.String()}
		case strict:
			c.Failure = &junit.Problem{Message: d.Message, Type: "warning", Text: d.String()}
		default:
			c.SystemOut = d.String()
		}
		s.Add(c)
	}
	for _, p := range paths {
		mentioned := false
		for _, d := range diags {
			mentioned = mentioned || strings.HasPrefix(d.File, strings.TrimSuffix(p, "/"))
		}
		if !mentioned {
			s.Add(junit.Case{Name: "intent " + p, Classname: "validate", SystemOut: "no diagnostics"})
		}
	}
	return junit.Write(w, "rocefab", time.Now(), s)
}

func orField(f string) string {
	if f == "" {
		return "(document)"
	}
	return f
}

// writePlanJUnit: one case per device. A device that could not be planned
// (error, unreachable, conflict) is an error; in a drift report a drifted
// device fails, its differences (breaking ones first) the failure's text;
// a plan's changes are the case's output.
func writePlanJUnit(w io.Writer, p *compliance.Plan, v compliance.View) error {
	s := junit.Suite{Name: "rocefab " + p.Kind}
	s.Props = []junit.Property{{Name: "fabric", Value: p.Intent.Fabric}}
	if p.Intent.Commit != "" {
		s.Props = append(s.Props, junit.Property{Name: "commit", Value: p.Intent.Commit})
	}
	for _, d := range p.Devices {
		c := junit.Case{Name: d.Device, Classname: p.Kind + "." + orDashString(d.Platform)}
		head := compliance.Headline(d)
		body := strings.Join(compliance.ChangeLines(p.Kind, d, v), "\n")
		for _, w := range d.Warnings {
			body += "\nwarning: " + w
		}
		switch d.Status {
		case compliance.StatusError, compliance.StatusUnreachable:
			c.Error = &junit.Problem{Message: head, Type: string(d.Status), Text: d.Error}
		case compliance.StatusConflict:
			var cs []string
			for _, x := range d.Conflicts {
				cs = append(cs, x.String())
			}
			c.Error = &junit.Problem{Message: head, Type: "conflict", Text: strings.Join(cs, "\n")}
		case compliance.StatusDrifted:
			c.Failure = &junit.Problem{Message: head, Type: "drift", Text: body}
		default:
			c.SystemOut = strings.TrimSpace(head + "\n" + body)
		}
		s.Add(c)
	}
	// With --cabling, one case per link: miscabled fails, verified passes,
	// missing, unexpected and unread pass with the finding as output.
	if p.Cabling != nil {
		for _, f := range p.Cabling.Findings {
			c := junit.Case{Name: f.Link, Classname: p.Kind + ".cabling"}
			if f.Status == cabling.Miscabled {
				c.Failure = &junit.Problem{Message: f.Message, Type: string(f.Status), Text: f.Message}
			} else {
				c.SystemOut = string(f.Status) + ": " + f.Message
			}
			s.Add(c)
		}
	}
	return junit.Write(w, "rocefab", p.CreatedAt, s)
}

func orDashString(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// writeProbeJUnit: one case per host pair; error findings fail it,
// warnings and information are its output.
func writeProbeJUnit(w io.Writer, o *probeOutput) error {
	s := junit.Suite{Name: "rocefab probe"}
	s.Props = []junit.Property{{Name: "profile", Value: string(o.Report.Policy.Profile)},
		{Name: "roceDscp", Value: fmt.Sprint(o.Report.Policy.RoCEDSCP)}, {Name: "hostMtu", Value: fmt.Sprint(o.Report.Policy.HostMTU)}}
	for _, pr := range o.Report.Pairs {
		name := pr.Name()
		c := junit.Case{Name: name, Classname: "probe", Time: float64(pr.Measurements.ElapsedMillis) / 1000}
		var fails, notes []string
		code := ""
		for _, f := range o.Report.Findings {
			if f.Pair != name {
				continue
			}
			line := fmt.Sprintf("%s %s: %s (measured %s; expected %s)", f.Severity, f.Code, f.Message, f.Measurement, f.Expected)
			if f.Severity == probe.SeverityError {
				if code == "" {
					code = string(f.Code)
				}
				fails = append(fails, line)
			} else {
				notes = append(notes, line)
			}
		}
		if len(fails) > 0 {
			c.Failure = &junit.Problem{Message: fails[0], Type: code, Text: strings.Join(fails, "\n")}
		}
		c.SystemOut = strings.Join(notes, "\n")
		s.Add(c)
	}
	for _, r := range o.Perftest {
		c := junit.Case{Name: r.Client + " -> " + r.Server, Classname: "probe.perftest"}
		if r.Error != "" {
			c.Failure = &junit.Problem{Message: r.Error, Type: "perftest"}
		}
		s.Add(c)
	}
	if len(o.Report.Pairs) == 0 {
		s.Add(junit.Case{Name: "pairs", Classname: "probe", Skipped: &junit.Problem{Message: strings.Join(o.Notes, "; ")}})
	}
	return junit.Write(w, "rocefab", time.Now(), s)
}

// writeMeshJUnit: one case per fabric link direction the mesh covers,
// failed by the localized findings that name it; inconclusive findings
// and flows that could not run are errors.
func writeMeshJUnit(w io.Writer, rep *mesh.Report) error {
	s := junit.Suite{Name: "rocefab probe --mesh"}
	s.Props = []junit.Property{{Name: "fabric", Value: rep.Fabric}, {Name: "verdict", Value: string(rep.Localization.Verdict)}}
	named := map[string][]string{}
	var loose []localize.Finding
	for _, f := range rep.Localization.Findings {
		if f.Element != nil && f.Status == localize.Localized {
			named[f.Element.String()] = append(named[f.Element.String()], f.Summary)
			continue
		}
		loose = append(loose, f)
	}
	for _, cov := range rep.Plan.Coverage {
		name := localize.Link(cov.Link.From.Device, cov.Link.From.Port, cov.Link.To.Device, cov.Link.To.Port).String()
		c := junit.Case{Name: name, Classname: "mesh.link", SystemOut: fmt.Sprintf("%d flow(s)", cov.Flows)}
		if msgs := named[name]; len(msgs) > 0 {
			c.Failure = &junit.Problem{Message: msgs[0], Type: "localized", Text: strings.Join(msgs, "\n")}
			delete(named, name)
		}
		s.Add(c)
	}
	for el, msgs := range named { // devices and elements that are not a link direction
		s.Add(junit.Case{Name: el, Classname: "mesh.element", Failure: &junit.Problem{Message: msgs[0], Type: "localized", Text: strings.Join(msgs, "\n")}})
	}
	for _, f := range loose {
		s.Add(junit.Case{Name: string(f.Class), Classname: "mesh.inconclusive", Error: &junit.Problem{Message: f.Summary, Type: string(f.Status), Text: strings.Join(f.Details, "\n")}})
	}
	return junit.Write(w, "rocefab", time.Now(), s)
}
