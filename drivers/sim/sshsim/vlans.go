package sshsim

import (
	"strings"
)

// A trunk's allowed VLAN list, as NX-OS and EOS keep it: by default (no
// line) every VLAN; `switchport trunk allowed vlan <list>` replaces the
// list, `add` and `remove` change it, `except` is every VLAN but those,
// `all` and `none` are what they say, and `no switchport trunk allowed
// vlan` resets it to every VLAN. The device prints the resulting list, not
// the commands: no line for every VLAN, "... none" for no VLAN, else the
// VLANs with ranges folded ("... vlan 10,100-102").

const (
	allowedVLANPrefix = "switchport trunk allowed vlan "
	maxVLAN           = 4094
)

// editAllowedVLANs applies one allowed-VLAN command to the interface n and
// reports whether the command was valid.
func editAllowedVLANs(n *node, line string, negate bool) bool {
	idx := -1
	set := allVLANs()
	for i, k := range n.kids {
		if rest, ok := strings.CutPrefix(k.line, allowedVLANPrefix); ok {
			idx = i
			set = map[int]bool{}
			if rest != "none" {
				ids, _ := vlanIDs(rest)
				for _, id := range ids {
					set[id] = true
				}
			}
		}
	}
	if negate {
		set = allVLANs()
	} else {
		arg := strings.TrimPrefix(line, allowedVLANPrefix)
		word, list, _ := strings.Cut(arg, " ")
		switch word {
		case "all", "none":
			if list != "" {
				return false
			}
			set = map[int]bool{}
			if word == "all" {
				set = allVLANs()
			}
		case "add", "remove", "except":
			ids, ok := vlanIDs(list)
			if !ok {
				return false
			}
			if word == "except" {
				set = allVLANs()
			}
			for _, id := range ids {
				if word == "add" {
					set[id] = true
				} else {
					delete(set, id)
				}
			}
		default:
			ids, ok := vlanIDs(arg)
			if !ok {
				return false
			}
			set = map[int]bool{}
			for _, id := range ids {
				set[id] = true
			}
		}
	}
	var stored string
	switch len(set) {
	case maxVLAN:
		stored = "" // every VLAN: no line
	case 0:
		stored = allowedVLANPrefix + "none"
	default:
		ids := make([]int, 0, len(set))
		for id := 1; id <= maxVLAN; id++ {
			if set[id] {
				ids = append(ids, id)
			}
		}
		stored = allowedVLANPrefix + compressIDs(ids)
	}
	switch {
	case stored == "" && idx >= 0:
		n.kids = append(n.kids[:idx], n.kids[idx+1:]...)
	case stored == "":
	case idx >= 0:
		n.kids[idx].line = stored
	default:
		n.kids = append(n.kids, &node{line: stored})
	}
	return true
}

func allVLANs() map[int]bool {
	set := make(map[int]bool, maxVLAN)
	for id := 1; id <= maxVLAN; id++ {
		set[id] = true
	}
	return set
}

// nxosListWidth is how long an allowed-VLAN list gets on one NX-OS line
// before it continues on "add" lines. NX-OS does this for long lists
// (cisco/cisco-network-node-utils PR #423: N7K, N9K 7.0(3)I3); the exact
// width is not documented, so the simulator picks one that tests reach.
const nxosListWidth = 64

// nxosSplitList prints a long allowed-VLAN list as NX-OS does: the first
// part on the list line, the rest on "switchport trunk allowed vlan add"
// lines, split between items.
func nxosSplitList(line string) []string {
	list, ok := strings.CutPrefix(line, allowedVLANPrefix)
	if !ok || len(list) <= nxosListWidth || strings.HasPrefix(list, "none") {
		return []string{line}
	}
	var out []string
	cur := ""
	for _, item := range strings.Split(list, ",") {
		if cur != "" && len(cur)+1+len(item) > nxosListWidth {
			out = append(out, cur)
			cur = ""
		}
		if cur != "" {
			cur += ","
		}
		cur += item
	}
	out = append(out, cur)
	for i := range out {
		if i == 0 {
			out[i] = allowedVLANPrefix + out[i]
		} else {
			out[i] = allowedVLANPrefix + "add " + out[i]
		}
	}
	return out
}
