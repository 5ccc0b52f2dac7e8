package devcfg

import "strings"

// Platform is what a driver needs to know about a platform, as data. The
// agent takes it from the renderer registry and hands it to the driver, so
// drivers never import a renderer.
type Platform struct {
	Name  string
	Shape Shape
	// Scrapli is the scrapligo platform name (cisco_nxos, arista_eos, ...).
	Scrapli string
	// Commit is how a change is made atomic on the device.
	Commit CommitStyle
	// ShowRunning reads the running config in the form Parse takes.
	ShowRunning string
	// CLIErrors are strings that mark a rejected CLI command.
	CLIErrors []string
	// Dialect is how the SSH driver pushes the platform (CommitDialect);
	// nil for a platform not pushed over SSH.
	Dialect *Dialect
	// Syntax turns changes into device commands.
	Syntax Syntax
	// Parse turns the raw running config into the model.
	Parse func(raw []byte) (*Config, error)
	// Normalise drops or rewrites what the device generates or defaults, so
	// a compliant device shows no diff. It may be nil.
	Normalise func(*Config) *Config
	// Models are the YANG models (gNMI ModelData names, e.g.
	// "openconfig-qos") the target must advertise before a gNMI push.
	Models []string
	// GNMI maps the platform's paths onto gNMI; the zero value is
	// OpenConfig (gNMI path strings, flat leaf JSON handed to Parse).
	GNMI GNMIMapping
}

// GNMIMapping tells the gnmi driver how a paths platform's keys and Parse
// input look on the wire.
type GNMIMapping struct {
	// Origin of paths that carry no "origin:" prefix; empty is openconfig.
	Origin string
	// Target is the gNMI prefix target, e.g. "CONFIG_DB" (sonic-gnmi).
	Target string
	// Document: paths are RFC 6901 JSON pointers ("/TABLE/key/field", "~1"
	// for "/", "~0" for "~"), and Parse takes the origin's nested JSON
	// document (config_db JSON) instead of the flat leaf map.
	Document bool
	// Root is a gNMI path string of the elements every path of Origin
	// carries on the wire before the platform's own elements: sonic-gnmi
	// names CONFIG_DB "/CONFIG_DB/localhost" + "/TABLE/key/field" under
	// origin sonic-db. A key that already starts with them is sent as is.
	Root string
	// GetAll: the target answers only GetRequest type ALL, not CONFIG.
	GetAll bool
	// JSONPatch: the target applies a SetRequest as one RFC 6902 JSON
	// patch of the origin's document (update = add, replace = replace,
	// delete = remove; a remove of a missing path is skipped), so an update
	// needs its parent to exist. The driver reads the tables a push
	// touches and writes a missing entry or table whole, never sends
	// replace, escapes '~' and '/' in element names as the patch path
	// does ("~0", "~1"), and sends values as JSON_IETF only.
	JSONPatch bool
}

// CommitStyle names a platform's safe-push mechanism.
type CommitStyle string

const (
	CommitDialect CommitStyle = "dialect"  // the platform's Dialect, over SSH
	CommitGNMI    CommitStyle = "gnmi-set" // one SetRequest, commit extension
	CommitNetlink CommitStyle = "netlink"  // read-modify-write with restore
)

// PatchStyle says how changes become commands.
type PatchStyle string

const (
	// StyleCLITree: context lines, the line or Negate+line, then Exit.
	StyleCLITree PatchStyle = "cli-tree"
	// StyleStatements: Set+path+value or Delete+path, one per line.
	StyleStatements PatchStyle = "statements"
	// StylePaths: path updates and deletes (gNMI, config_db, netlink).
	StylePaths PatchStyle = "paths"
)

// Syntax is the command grammar a platform's patches use.
type Syntax struct {
	Style  PatchStyle
	Negate string // "no "
	Exit   string // "exit"
	Set    string // "set ", "nv set "
	Delete string // "delete ", "nv unset "
	// LineKeys are prefixes of single-valued CLI lines: a new line with the
	// same key replaces the old one ("mtu 9216" replaces "mtu 1500"), so the
	// diff shows a modification.
	LineKeys []string
	// NegateRewrite removes a CLI line that starts with a key by replacing
	// that prefix with the value instead of prefixing Negate: a list
	// member "switchport trunk allowed vlan add 100" is removed with
	// "switchport trunk allowed vlan remove 100", because "no switchport
	// trunk allowed vlan ..." would reset the whole list. See Negation.
	NegateRewrite map[string]string
}

// Negation is the command that removes a CLI line: the line with its
// longest NegateRewrite prefix replaced, else Negate followed by the line.
func (s Syntax) Negation(line string) string {
	best := ""
	for k := range s.NegateRewrite {
		if len(k) > len(best) && strings.HasPrefix(line, k) {
			best = k
		}
	}
	if best == "" {
		return s.Negate + line
	}
	return s.NegateRewrite[best] + line[len(best):]
}

// LineKey returns the key a tree line is matched by: the longest LineKeys
// prefix it starts with, or the whole line.
func (s Syntax) LineKey(line string) string {
	best := ""
	for _, k := range s.LineKeys {
		if len(k) > len(best) && len(line) >= len(k) && line[:len(k)] == k {
			best = k
		}
	}
	if best == "" {
		return line
	}
	return best
}
