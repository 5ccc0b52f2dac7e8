package gnmisim

import (
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// Origin cli as EOS's gNMI server takes it, written from the gNMI
// union_replace specification (openconfig/reference
// rpc/gnmi/gnmi-union_replace.md: CLI configuration is ASCII text, the
// origin "does not support addressing a path", and it has no delete) and
// the featureprofiles tests that configure EOS with
// Update{Path: {Origin: "cli"}, Val: ascii_val} (openconfig/featureprofiles
// feature tests, cliSetRequest): an update carries a block of CLI text that
// the device runs as configuration commands, "no" lines included. A delete
// or replace under the origin, a path with elements, or a value other than
// ascii_val is refused.
//
// The simulator keeps what the commands configure as one leaf per command:
// "cli:/<mode> > <mode> > <command>" holding the command's text under its
// modes, as the device prints it. Modes are what the text indents under.
// A Get under origin cli answers those leaves; EOS itself answers a Get
// under origin cli with a show command's output (path "show
// running-config"), which this simulator does not play.

// cliSingleValued are commands that hold one value in their mode: a new
// value replaces the old, and the "no" form takes no value. EOS: the PFC
// watchdog's per-port timer and action (Arista EOS User Manual, Priority
// Flow Control, "priority-flow-control pause watchdog port timer|action");
// NX-OS: a network-qos class's mtu and the system qos service-policy
// (Cisco Nexus 9000 NX-OS Quality of Service Configuration Guide).
var cliSingleValued = []string{
	"priority-flow-control pause watchdog port timer ",
	"priority-flow-control pause watchdog port action ",
	"service-policy type network-qos ",
	"mtu ",
}

// cliCheck refuses what origin cli does not take.
func cliCheck(req *gnmipb.SetRequest) error {
	prefix := req.GetPrefix()
	for _, d := range req.GetDelete() {
		if gnmipath.Join(prefix, d).GetOrigin() == OriginCLI {
			return status.Error(codes.InvalidArgument, "origin cli: delete is not supported; send the \"no\" form of the command as CLI text")
		}
	}
	for _, u := range req.GetReplace() {
		if gnmipath.Join(prefix, u.GetPath()).GetOrigin() == OriginCLI {
			return status.Error(codes.Unimplemented, "origin cli: replace of the whole CLI configuration is not supported by this target")
		}
	}
	for _, u := range req.GetUpdate() {
		full := gnmipath.Join(prefix, u.GetPath())
		if full.GetOrigin() != OriginCLI {
			continue
		}
		if len(full.GetElem()) > 0 {
			return status.Errorf(codes.InvalidArgument, "origin cli does not support addressing a path (got %s)", gnmipath.Format(full))
		}
		if _, ok := u.GetVal().GetValue().(*gnmipb.TypedValue_AsciiVal); !ok {
			return status.Errorf(codes.InvalidArgument, "origin cli takes CLI text as ascii_val, got %T", u.GetVal().GetValue())
		}
	}
	return nil
}

// cliLine is one command line and the lines indented under it.
type cliLine struct {
	text     string // as written, indentation included
	children []*cliLine
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// parseCLI nests lines under the nearest less-indented line above them.
func parseCLI(text string) []*cliLine {
	type open struct {
		indent int
		line   *cliLine
	}
	var roots []*cliLine
	var stack []open
	for _, raw := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(raw)
		if trimmed == "" || strings.HasPrefix(trimmed, "!") || trimmed == "exit" || trimmed == "end" {
			continue
		}
		l := &cliLine{text: strings.TrimRight(raw, " \t")}
		in := indentOf(raw)
		for len(stack) > 0 && stack[len(stack)-1].indent >= in {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			roots = append(roots, l)
		} else {
			parent := stack[len(stack)-1].line
			parent.children = append(parent.children, l)
		}
		stack = append(stack, open{in, l})
	}
	return roots
}

// cliKey is the leaf of a command under its modes.
func cliKey(modes []string, command string) string {
	for _, sv := range cliSingleValued {
		if strings.HasPrefix(command, sv) {
			command = strings.TrimSuffix(sv, " ")
			break
		}
	}
	return gnmipath.Format(&gnmipb.Path{Origin: OriginCLI, Elem: []*gnmipb.PathElem{{Name: strings.Join(append(append([]string(nil), modes...), command), " > ")}}})
}

// cliName is the element name of a cli leaf ("" for other origins).
func cliName(key string) string {
	p, err := gnmipath.Parse(key)
	if err != nil || p.GetOrigin() != OriginCLI || len(p.GetElem()) != 1 {
		return ""
	}
	return p.GetElem()[0].GetName()
}

// applyCLI runs a block of CLI text against the tree and returns the
// leaves it wrote.
func (t tree) applyCLI(text string) []string {
	var written []string
	var walk func(modes, lines []string, nodes []*cliLine)
	walk = func(modes, lines []string, nodes []*cliLine) {
		for _, n := range nodes {
			cmd := strings.TrimSpace(n.text)
			if len(n.children) > 0 {
				walk(append(append([]string(nil), modes...), cmd), append(append([]string(nil), lines...), n.text), n.children)
				continue
			}
			if negated, ok := strings.CutPrefix(cmd, "no "); ok {
				t.cliNo(modes, strings.TrimSpace(negated))
				continue
			}
			k := cliKey(modes, cmd)
			t[k] = devcfg.String(strings.Join(append(append([]string(nil), lines...), n.text), "\n"))
			written = append(written, k)
		}
	}
	walk(nil, nil, parseCLI(text))
	return written
}

// cliNo removes what "no <command>" under modes unconfigures: the command
// (any value of a single-valued one) and, for a mode, everything in it.
func (t tree) cliNo(modes []string, command string) {
	exact := strings.Join(append(append([]string(nil), modes...), command), " > ")
	single := cliName(cliKey(modes, command+" "))
	for k := range t {
		name := cliName(k)
		if name == "" {
			continue
		}
		if name == exact || name == single || strings.HasPrefix(name, exact+" > ") {
			delete(t, k)
		}
	}
}

// checkCLI is the injected rejection for CLI text: the command a written
// leaf holds is refused, named with its modes as a CLI error names the
// failing command.
func (t *Target) checkCLI(written []string) error {
	rp := t.faults.RejectPath
	if rp == "" {
		return nil
	}
	canon, err := gnmipath.Canonical(rp)
	if err != nil {
		return nil
	}
	for _, k := range written {
		if !gnmipath.Under(k, canon) && !gnmipath.Under(canon, k) {
			continue
		}
		msg := t.faults.RejectMessage
		if msg == "" {
			msg = "rejected by target"
		}
		parts := strings.Split(cliName(k), " > ")
		return status.Errorf(codes.InvalidArgument, "origin cli: command %q in mode %q failed: %s", parts[len(parts)-1], strings.Join(parts[:len(parts)-1], " > "), msg)
	}
	return nil
}
