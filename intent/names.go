package intent

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names end up in file names (render output, snapshots), on device command
// lines, in namespace paths and in what users read, so the loader accepts
// only a small character set (docs/intent.md, "Names"):
//
//   - devices, hosts, groups, namespaces, NICs and RDMA devices: ASCII
//     letters, digits, '.', '-' and '_', starting with a letter or digit;
//   - switch ports and LAGs: the same, plus '/' and ':' between parts
//     (Ethernet1/1, et-0/0/0:1), never an empty, "." or ".." part.
//
// Everything else is refused with RF016: path separators in device names,
// ".", "..", empty names, spaces, control characters, bidirectional
// overrides and other invisible formatting, and anything beyond ASCII.
type nameRule struct {
	what  string // "switch name"
	max   int    // bytes
	parts bool   // '/' and ':' separate parts (port names)
}

var (
	deviceNameRule = nameRule{what: "name", max: MaxNameLength}
	netdevRule     = nameRule{what: "netdev", max: 15} // Linux IFNAMSIZ-1
	rdmaRule       = nameRule{what: "RDMA device", max: 64}
	portNameRule   = nameRule{what: "port name", max: MaxNameLength, parts: true}
)

// MaxNameLength bounds device, group and port names, in bytes.
const MaxNameLength = 128

// check returns why name is not safe, or "".
func (r nameRule) check(name string) string {
	if name == "" {
		return "is empty"
	}
	for i, c := range name {
		switch {
		case c == utf8.RuneError:
			return fmt.Sprintf("is not valid UTF-8 (byte %d)", i)
		case c == '/' || c == '\\':
			if !r.parts || c == '\\' {
				return fmt.Sprintf("contains the path separator %q", c)
			}
		case c == ':' && r.parts:
		case unicode.Is(unicode.Bidi_Control, c):
			return fmt.Sprintf("contains the bidirectional control character U+%04X, which makes text display in another order than it is read", c)
		case unicode.IsControl(c) || unicode.Is(unicode.Cf, c):
			return fmt.Sprintf("contains the invisible character U+%04X", c)
		case unicode.IsSpace(c):
			return "contains a space"
		case c > unicode.MaxASCII:
			return fmt.Sprintf("contains U+%04X: only ASCII letters, digits and %s are allowed", c, r.punctuation())
		case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'):
			return fmt.Sprintf("contains %q: only letters, digits and %s are allowed", c, r.punctuation())
		}
	}
	if len(name) > r.max {
		return fmt.Sprintf("is %d bytes long, more than %d", len(name), r.max)
	}
	parts := []string{name}
	if r.parts {
		parts = strings.FieldsFunc(name, func(c rune) bool { return c == '/' || c == ':' })
		if strings.Contains(name, "//") || strings.Contains(name, "::") || strings.ContainsAny(name[len(name)-1:], "/:") {
			return "has an empty part between separators"
		}
	}
	for _, p := range parts {
		if p == "." || p == ".." {
			return fmt.Sprintf("is or holds %q", p)
		}
		if c := p[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Sprintf("starts with %q: a name starts with a letter or digit", c)
		}
	}
	return ""
}

func (r nameRule) punctuation() string {
	if r.parts {
		return "'.', '-', '_', '/', ':'"
	}
	return "'.', '-', '_'"
}

// quoteName shows a name in a message with every non-ASCII and invisible
// character escaped, so the message cannot be reordered or hidden by it.
func quoteName(name string) string { return strconv.QuoteToASCII(name) }

// checkNames reports every unsafe name (RF016) where it is written.
func checkNames(fab *Fabric, diags *Diagnostics) {
	// A name that did not decode (a list, a number) is reported already.
	undecoded := map[[2]string]bool{}
	for _, d := range *diags {
		undecoded[[2]string{d.File, d.Field}] = true
	}
	check := func(r nameRule, kind, name string, at Loc) {
		if name == "" && undecoded[[2]string{at.File, at.Field}] {
			return
		}
		if why := r.check(name); why != "" {
			diags.Errorf(at, CodeUnsafeName, "%s %s %s %s", kind, r.what, quoteName(name), why)
		}
	}
	optional := func(r nameRule, kind, name string, at Loc) {
		if name != "" {
			check(r, kind, name, at)
		}
	}
	if why := safeText(fab.Name); why != "" {
		diags.Errorf(fab.nameAt, CodeUnsafeName, "fabric name %s %s", quoteName(fab.Name), why)
	}
	for i := range fab.Groups {
		g := &fab.Groups[i]
		if g.Has("name") {
			check(deviceNameRule, "group", g.Name, g.At("name"))
		}
		optional(deviceNameRule, "group", g.Netns, g.At("netns"))
	}
	for i := range fab.Switches {
		sw := &fab.Switches[i]
		if sw.Has("name") {
			check(deviceNameRule, "switch", sw.Name, sw.At("name"))
		}
		optional(deviceNameRule, "switch", sw.Netns, sw.At("netns"))
		for j := range sw.Ports {
			ps := &sw.Ports[j]
			for _, name := range ps.Names.Names {
				if why := portNameRule.check(name); why != "" {
					diags.Errorf(ps.At("names"), CodeUnsafeName, "switch %s: port name %s %s", quoteName(sw.Name), quoteName(name), why)
					break // one report per list: a range repeats the problem
				}
			}
			if ps.LAG != "" {
				if why := portNameRule.check(ps.LAG); why != "" {
					diags.Errorf(ps.At("lag"), CodeUnsafeName, "switch %s: LAG name %s %s", quoteName(sw.Name), quoteName(ps.LAG), why)
				}
			}
		}
	}
	for i := range fab.Hosts {
		h := &fab.Hosts[i]
		if h.Has("name") {
			check(deviceNameRule, "host", h.Name, h.At("name"))
		}
		optional(deviceNameRule, "host", h.Netns, h.At("netns"))
		for j := range h.NICs {
			n := &h.NICs[j]
			if n.Has("netdev") {
				check(netdevRule, "host "+quoteName(h.Name)+": NIC", n.Netdev, n.At("netdev"))
			}
			optional(rdmaRule, "host "+quoteName(h.Name)+": NIC", n.RDMADevice, n.At("rdmaDevice"))
		}
	}
}

// safeText returns why free text (the fabric name) would be unsafe to
// print, or "": it may hold spaces and any letters, but no control,
// formatting or bidirectional characters.
func safeText(s string) string {
	if len(s) > MaxNameLength {
		return fmt.Sprintf("is %d bytes long, more than %d", len(s), MaxNameLength)
	}
	for i, c := range s {
		switch {
		case c == utf8.RuneError:
			return fmt.Sprintf("is not valid UTF-8 (byte %d)", i)
		case unicode.Is(unicode.Bidi_Control, c):
			return fmt.Sprintf("contains the bidirectional control character U+%04X, which makes text display in another order than it is read", c)
		case unicode.IsControl(c) || unicode.Is(unicode.Cf, c):
			return fmt.Sprintf("contains the invisible character U+%04X", c)
		}
	}
	return ""
}
