package fabriclab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Step is one line of a topology.
type Step struct {
	Line int
	// Kind is "node", "link" or "run".
	Kind string
	// Nodes: the namespaces a node step creates, or the nodes a run step
	// runs Args in.
	Nodes []string
	// A link step's ends and MTU.
	A, B Port
	MTU  int
	Args []string
}

// Port is NODE:IFACE.
type Port struct{ Node, Iface string }

func (p Port) String() string { return p.Node + ":" + p.Iface }

// Topology is a parsed topology file.
type Topology struct {
	Steps []Step
	Nodes []string // in declaration order
}

// Links returns the link steps.
func (t *Topology) Links() []Step {
	var out []Step
	for _, s := range t.Steps {
		if s.Kind == "link" {
			out = append(out, s)
		}
	}
	return out
}

// Parse reads the format documented in examples/lab/topology. Errors name
// the line.
func Parse(text string) (*Topology, error) {
	t := &Topology{}
	known := map[string]bool{}
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		fields := strings.Fields(raw)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("topology line %d: %s", n, fmt.Sprintf(format, args...))
		}
		switch verb := fields[0]; verb {
		case "node":
			if len(fields) < 2 {
				return nil, bad("node needs at least one name")
			}
			for _, name := range fields[1:] {
				if known[name] {
					return nil, bad("node %s declared twice", name)
				}
				known[name] = true
				t.Nodes = append(t.Nodes, name)
			}
			t.Steps = append(t.Steps, Step{Line: n, Kind: "node", Nodes: fields[1:]})
		case "link":
			if len(fields) != 4 {
				return nil, bad("link needs A:IFACE B:IFACE MTU")
			}
			var ends [2]Port
			for j, f := range fields[1:3] {
				node, iface, ok := strings.Cut(f, ":")
				if !ok || node == "" || iface == "" {
					return nil, bad("link end %q is not NODE:IFACE", f)
				}
				if !known[node] {
					return nil, bad("link end %s names an undeclared node", f)
				}
				ends[j] = Port{node, iface}
			}
			mtu, err := strconv.Atoi(fields[3])
			if err != nil || mtu < 68 || mtu > 65535 {
				return nil, bad("MTU %q is not 68..65535", fields[3])
			}
			t.Steps = append(t.Steps, Step{Line: n, Kind: "link", A: ends[0], B: ends[1], MTU: mtu})
		default:
			nodes := strings.Split(verb, ",")
			for _, node := range nodes {
				if !known[node] {
					return nil, bad("%q is not a declared node (or node, link)", node)
				}
			}
			if len(fields) < 2 {
				return nil, bad("no command for %s", verb)
			}
			t.Steps = append(t.Steps, Step{Line: n, Kind: "run", Nodes: nodes, Args: slices.Clone(fields[1:])})
		}
	}
	if len(t.Nodes) == 0 {
		return nil, fmt.Errorf("topology declares no node")
	}
	return t, nil
}
