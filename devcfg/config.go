package devcfg

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Shape says which of the three forms a Config holds.
type Shape string

const (
	ShapeTree  Shape = "tree"  // CLI configs with indented sub-modes (NX-OS, EOS)
	ShapePaths Shape = "paths" // path → value (gNMI, config_db, NVUE, Junos set)
	ShapeHost  Shape = "host"  // typed NIC settings
)

// Config is one device's configuration in one shape. Desired configs also
// carry what rocefab owns on the device; parsed running configs leave those
// fields empty.
type Config struct {
	Device   string
	Platform string
	Shape    Shape

	Tree  *Tree         // ShapeTree
	Paths Paths         // ShapePaths
	Host  *HostSettings // ShapeHost

	// Owned limits the diff and the push to rocefab's part of the device.
	Owned Scope
	// Singletons are device-wide settings rocefab claims; another owner's
	// value is a conflict, never silently overwritten.
	Singletons []Singleton
	// Notes are renderer remarks shown in plans, e.g. "OpenConfig has no PFC
	// model: PFC rendered through the eos fallback".
	Notes []string
	// Facts are what a driver learned about the device beside its
	// configuration (see the Fact* keys), for a platform's Fit. Running
	// configs only; they never enter the diff or the fingerprint.
	Facts map[string]string `json:",omitempty"`
}

// Fact keys drivers set on a running config.
const (
	// FactGNMIModels lists the model names a gNMI target advertised in
	// Capabilities, comma-separated ("openconfig-qos,sonic-db").
	FactGNMIModels = "gnmi.models"
	// FactGNMIOriginPrefix + origin holds why a gNMI target could not be
	// read under that origin (the target's own message), e.g.
	// "gnmi.origin.cli" = "rpc error: code = InvalidArgument ...".
	FactGNMIOriginPrefix = "gnmi.origin."
)

// Clone returns a deep copy.
func (c *Config) Clone() *Config {
	if c == nil {
		return nil
	}
	out := *c
	out.Tree = c.Tree.Clone()
	out.Paths = c.Paths.Clone()
	if c.Host != nil {
		h := c.Host.Clone()
		out.Host = &h
	}
	out.Owned = c.Owned.Clone()
	out.Singletons = make([]Singleton, len(c.Singletons))
	for i, s := range c.Singletons {
		s.Nodes = append([]string(nil), s.Nodes...)
		out.Singletons[i] = s
	}
	out.Notes = append([]string(nil), c.Notes...)
	if c.Facts != nil {
		out.Facts = make(map[string]string, len(c.Facts))
		for k, v := range c.Facts {
			out.Facts[k] = v
		}
	}
	return &out
}

// Text is the canonical text form: indented lines for trees, sorted
// "path = value" lines for paths. It is stable, so it serves golden files,
// snapshots and fingerprints.
func (c *Config) Text() string {
	switch c.Shape {
	case ShapeTree:
		return c.Tree.Text(2)
	case ShapePaths:
		return c.Paths.Text()
	case ShapeHost:
		if c.Host == nil {
			return ""
		}
		return c.Host.Paths().Text()
	}
	return ""
}

// Fingerprint hashes the canonical text. Drivers return it for the owned,
// normalised part of the running config; a saved plan records it so apply
// can refuse when the device changed since.
func (c *Config) Fingerprint() string {
	sum := sha256.Sum256([]byte(string(c.Shape) + "\n" + c.Text()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Filter returns the part of c inside scope. Host settings are always owned
// whole.
func (c *Config) Filter(scope Scope) *Config {
	out := &Config{Device: c.Device, Platform: c.Platform, Shape: c.Shape}
	switch c.Shape {
	case ShapeTree:
		out.Tree = scope.filterTree(c.Tree)
	case ShapePaths:
		out.Paths = Paths{}
		for p, v := range c.Paths {
			if scope.OwnsPath(p) {
				out.Paths[p] = v
			}
		}
		for _, i := range scope.Implied {
			if v, ok := c.Paths[i.By]; ok {
				out.Paths[i.By] = v
				if _, held := out.Paths[i.Path]; !held {
					out.Paths[i.Path] = v
				}
			}
		}
	case ShapeHost:
		if c.Host != nil {
			h := c.Host.Clone()
			out.Host = &h
		}
	}
	return out
}

// Scope lists what rocefab owns on one device.
type Scope struct {
	// Lines own tree lines; see LineOwner.
	Lines []LineOwner `json:"lines,omitempty"`
	// Paths owns exact paths and everything below them.
	Paths []string `json:"paths,omitempty"`
	// PathPrefixes own any path starting with the string, e.g.
	// "/WRED_PROFILE/ROCEFAB_" for every rocefab-named profile.
	PathPrefixes []string `json:"pathPrefixes,omitempty"`
	// Implied lists owned paths that another running path implies; see
	// ImpliedPath.
	Implied []ImpliedPath `json:"implied,omitempty"`
	// Reads are paths a driver reads with the owned ones but that rocefab
	// never owns, diffs or changes: the facts a platform checks before a
	// push (SONiC's PORT table and buffer model). Drivers that read the
	// whole configuration anyway may ignore them.
	Reads []string `json:"reads,omitempty"`
}

// ImpliedPath says that running path By implies owned path Path: a Cumulus
// port that inherits every VLAN of its bridge (parsed as "... vlan all")
// is a member of the lossless VLAN rocefab owns ("... vlan 100"). Filter
// shows both where the running config holds By; the diff removes neither,
// since they stand for a device default rocefab did not set.
type ImpliedPath struct {
	Path string `json:"path"`
	By   string `json:"by"`
}

// PathImplied reports whether have holds a path that implies path.
func (s Scope) PathImplied(path string, have Paths) bool {
	for _, i := range s.Implied {
		if i.Path == path {
			if _, ok := have[i.By]; ok {
				return true
			}
		}
	}
	return false
}

// Implies reports whether path is one that implies an owned path (an
// ImpliedPath's By): it is kept in the owned view but never removed.
func (s Scope) Implies(path string) bool {
	for _, i := range s.Implied {
		if i.By == path {
			return true
		}
	}
	return false
}

// LineOwner owns tree lines under an exact parent path (empty for top level)
// that start with Prefix. Subtree owns the matched line's children too;
// otherwise only the line itself is owned, and Parents are context.
// Exact owns only the line equal to Prefix, so "vlan 100" does not also
// own "vlan 1000" and "switchport" does not own "switchport mode trunk".
// ImpliedBy (with Exact) lists running lines under the same Parents that
// imply the owned line: a trunk that allows every VLAN ("switchport trunk
// allowed vlan all") is a member of the lossless one ("switchport trunk
// allowed vlan add 100"). Filter shows Prefix in their place, marked
// Node.Implied, which the diff never removes: it stands for a device
// default rocefab did not set.
type LineOwner struct {
	Parents   []string `json:"parents,omitempty"`
	Prefix    string   `json:"prefix"`
	Subtree   bool     `json:"subtree,omitempty"`
	Exact     bool     `json:"exact,omitempty"`
	ImpliedBy []string `json:"impliedBy,omitempty"`
}

// Clone returns a deep copy.
func (s Scope) Clone() Scope {
	out := Scope{Paths: append([]string(nil), s.Paths...), PathPrefixes: append([]string(nil), s.PathPrefixes...),
		Implied: append([]ImpliedPath(nil), s.Implied...), Reads: append([]string(nil), s.Reads...)}
	for _, l := range s.Lines {
		l.Parents = append([]string(nil), l.Parents...)
		l.ImpliedBy = append([]string(nil), l.ImpliedBy...)
		out.Lines = append(out.Lines, l)
	}
	return out
}

// Merge adds other's owners that s does not already have, so merging a
// scope with itself changes nothing.
func (s *Scope) Merge(other Scope) {
	lines := map[string]bool{}
	for _, l := range s.Lines {
		lines[l.key()] = true
	}
	for _, l := range other.Lines {
		if !lines[l.key()] {
			lines[l.key()] = true
			s.Lines = append(s.Lines, l)
		}
	}
	s.Paths = appendNew(s.Paths, other.Paths)
	s.PathPrefixes = appendNew(s.PathPrefixes, other.PathPrefixes)
	s.Reads = appendNew(s.Reads, other.Reads)
	for _, i := range other.Implied {
		if !slices.Contains(s.Implied, i) {
			s.Implied = append(s.Implied, i)
		}
	}
}

func (l LineOwner) key() string {
	return fmt.Sprintf("%q|%q|%v|%v|%q", l.Parents, l.Prefix, l.Subtree, l.Exact, l.ImpliedBy)
}

func appendNew(to, from []string) []string {
	have := make(map[string]bool, len(to))
	for _, v := range to {
		have[v] = true
	}
	for _, v := range from {
		if !have[v] {
			have[v] = true
			to = append(to, v)
		}
	}
	return to
}

// OwnsPath reports whether a Paths key is owned.
func (s Scope) OwnsPath(p string) bool {
	for _, e := range s.Paths {
		if p == e || (strings.HasPrefix(p, e) && isPathBoundary(p[len(e)])) {
			return true
		}
	}
	for _, pre := range s.PathPrefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

func isPathBoundary(c byte) bool { return c == '/' || c == '[' || c == ' ' }

// filterTree keeps owned lines, with their ancestors as context. Owners
// are looked up by their parents, so a running config with many lines
// under many owned contexts (a trunk's per-VLAN member lines on every
// port) filters in time linear in its size.
func (s Scope) filterTree(t *Tree) *Tree {
	out := &Tree{}
	if t == nil {
		return out
	}
	byParents := make(map[string]Scope, len(s.Lines))
	for _, o := range s.Lines {
		k := strings.Join(o.Parents, "\n")
		sub := byParents[k]
		sub.Lines = append(sub.Lines, o)
		byParents[k] = sub
	}
	var walk func(parents []string, nodes []*Node) []*Node
	walk = func(parents []string, nodes []*Node) []*Node {
		var kept []*Node
		here := byParents[strings.Join(parents, "\n")]
		for _, n := range nodes {
			if implied := here.impliedLines(parents, n.Line); len(implied) > 0 {
				for _, l := range implied {
					kept = append(kept, &Node{Line: l, Implied: true})
				}
				continue
			}
			switch here.lineOwnership(parents, n.Line) {
			case ownSubtree:
				kept = append(kept, n.Clone())
			case ownLine:
				kept = append(kept, &Node{Line: n.Line})
			default:
				if len(n.Children) == 0 {
					continue
				}
				if kids := walk(append(parents, n.Line), n.Children); len(kids) > 0 {
					kept = append(kept, &Node{Line: n.Line, Children: kids})
				}
			}
		}
		return kept
	}
	out.Nodes = walk(nil, t.Nodes)
	return out
}

// OwnsLine reports whether a tree line under parents is owned, either
// itself or as part of an owned subtree above it.
func (s Scope) OwnsLine(parents []string, line string) bool {
	for i := range parents {
		if s.lineOwnership(parents[:i], parents[i]) == ownSubtree {
			return true
		}
	}
	return s.lineOwnership(parents, line) != ownNone
}

// impliedLines returns the owned lines a running line under parents
// implies (LineOwner.ImpliedBy).
func (s Scope) impliedLines(parents []string, line string) []string {
	var out []string
	for _, o := range s.Lines {
		if o.Exact && equalLines(o.Parents, parents) && slices.Contains(o.ImpliedBy, line) {
			out = append(out, o.Prefix)
		}
	}
	return out
}

type ownership int

const (
	ownNone ownership = iota
	ownLine
	ownSubtree
)

func (s Scope) lineOwnership(parents []string, line string) ownership {
	best := ownNone
	for _, o := range s.Lines {
		if !equalLines(o.Parents, parents) || !strings.HasPrefix(line, o.Prefix) || (o.Exact && line != o.Prefix) {
			continue
		}
		if o.Subtree {
			return ownSubtree
		}
		best = ownLine
	}
	return best
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Singleton is a device-wide setting rocefab claims, such as NX-OS
// `system qos` or the SONiC global DSCP_TO_TC_MAP binding. The running value
// is foreign when it is present, differs from Want, and does not contain
// Marker (rocefab's name prefix): then the plan reports a conflict.
type Singleton struct {
	Name string `json:"name"`
	// Tree form: a line under Parents starting with Prefix.
	Parents []string `json:"parents,omitempty"`
	Prefix  string   `json:"prefix,omitempty"`
	// Paths form: an exact path.
	Path string `json:"path,omitempty"`
	// Nodes (paths form) makes Path a prefix: the singleton is held by
	// the running value of Path+n for every node n of every listed
	// statement, from its first word to all of it. Junos uses it for
	// `deactivate` (Path "deactivate "): a deactivated node above or at a
	// rendered statement stops that statement from running.
	Nodes []string `json:"nodes,omitempty"`
	// Want is the desired line or value text.
	Want   string `json:"want"`
	Marker string `json:"marker"`
}

// Conflict describes a singleton held by other configuration.
type Conflict struct {
	Singleton string `json:"singleton"`
	Held      string `json:"held"`
	Want      string `json:"want"`
}

func (c Conflict) String() string {
	return fmt.Sprintf("%s is owned by other config (%q); rocefab wants %q", c.Singleton, c.Held, c.Want)
}

// Conflicts returns the singletons in running that other configuration holds.
func Conflicts(running *Config, singletons []Singleton) []Conflict {
	return ConflictsExcept(running, singletons, nil)
}

// ConflictsExcept is Conflicts, except that a value rocefab itself set last
// time (found in ours, the config it last applied) is never foreign: a
// changed intent then shows as a change, not as a conflict with itself.
func ConflictsExcept(running *Config, singletons []Singleton, ours *Config) []Conflict {
	var out []Conflict
	for _, s := range singletons {
		mine := map[string]bool{}
		if ours != nil {
			for _, v := range ours.singletonValues(s) {
				mine[v] = true
			}
		}
		for _, held := range running.singletonValues(s) {
			if held == s.Want || mine[held] || (s.Marker != "" && strings.Contains(held, s.Marker)) {
				continue
			}
			out = append(out, Conflict{Singleton: s.Name, Held: held, Want: s.Want})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Singleton < out[j].Singleton })
	return out
}

func (c *Config) singletonValues(s Singleton) []string {
	switch c.Shape {
	case ShapeTree:
		var vals []string
		for _, n := range c.Tree.Children(s.Parents) {
			if strings.HasPrefix(n.Line, s.Prefix) {
				vals = append(vals, n.Line)
			}
		}
		return vals
	case ShapePaths:
		if len(s.Nodes) > 0 {
			var vals []string
			seen := map[string]bool{}
			for _, stmt := range s.Nodes {
				for i := 0; i <= len(stmt); i++ {
					if i < len(stmt) && stmt[i] != ' ' {
						continue
					}
					node := stmt[:i]
					if node == "" || seen[node] {
						continue
					}
					seen[node] = true
					if v, ok := c.Paths[s.Path+node]; ok {
						vals = append(vals, v.Text())
					}
				}
			}
			return vals
		}
		if v, ok := c.Paths[s.Path]; ok {
			return []string{v.Text()}
		}
	}
	return nil
}
