package junos

import (
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// The model of a Junos configuration is devcfg.Paths with one entry per
// `set` statement. The split rule:
//
//   - a statement whose second-to-last word is a single-valued leaf in its
//     context (valueKeywords: mtu, vlan-id, scheduler-map, ...; see
//     valueKeyword) is path = every word but the last, value = the last
//     word ("interfaces et-0/0/0 mtu" = "9216");
//   - `queue-num N [no-loss]` is path = "... queue-num", value = "N" or
//     "N no-loss" (no-loss is an option of queue-num in the Junos grammar);
//   - every other statement (presence statements and leaf-list entries
//     such as code-points, vlan members and fill-level) is path = all its
//     words, value = devcfg.Empty.
//
// Values are JSON strings. So a changed single value diffs as one
// modification, and a changed list entry as one add and one delete.
// A `deactivate X` line is the path "deactivate X" (see Parse).
var valueKeywords = map[string]bool{
	"mtu": true, "vlan-id": true, "queue-num": true, "pfc-priority": true, "interface-mode": true,
	"scheduler": true, "drop-profile": true, "priority": true, "percent": true,
	"802.3ad": true, "version": true, "host-name": true, "cable-length": true,
}

// valueKeyword reports whether words[i] takes a single value in its
// context. Some keywords are single-valued only where rocefab uses them:
// an interface unit has one classifier and one rewrite rule per type
// ("class-of-service interfaces X unit 0 classifiers dscp D"), an interface
// one scheduler map and one congestion-notification profile; elsewhere the
// same word starts a set ("host-outbound-traffic ieee-802.1 rewrite-rules"
// and "... ieee-802.1 override-firewall" are two statements, and so are
// two bare "congestion-notification-profile P" definitions).
func valueKeyword(words []string, i int) bool {
	switch words[i] {
	case "dscp", "dscp-ipv6", "ieee-802.1", "inet-precedence", "exp":
		return i >= 1 && (words[i-1] == "classifiers" || words[i-1] == "rewrite-rules") &&
			len(words) > 2 && words[0] == "class-of-service" && words[1] == "interfaces"
	case "congestion-notification-profile", "scheduler-map":
		return i >= 2 && words[i-2] == "interfaces"
	}
	return valueKeywords[words[i]]
}

// splitStatement turns the words of one `set` statement into path and value.
func splitStatement(words []string) (string, devcfg.Value) {
	n := len(words)
	if n >= 3 && words[n-1] == "no-loss" && words[n-3] == "queue-num" {
		return strings.Join(words[:n-2], " "), jsonString(words[n-2] + " no-loss")
	}
	if n >= 2 && valueKeyword(words, n-2) {
		return strings.Join(words[:n-1], " "), jsonString(words[n-1])
	}
	return strings.Join(words, " "), devcfg.Empty
}

// statement is the `set` statement of one model entry, without "set ".
func statement(path string, v devcfg.Value) string {
	if v == devcfg.Empty || v == "" {
		return path
	}
	return path + " " + valueText(v)
}

// set adds one statement, given as its words, to p.
func set(p devcfg.Paths, words ...string) {
	path, v := splitStatement(words)
	p[path] = v
}

// jsonString is devcfg.String without the JSON encoder for the plain words
// Junos statements consist of; anything else goes through devcfg.String.
func jsonString(w string) devcfg.Value {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return devcfg.String(w)
		}
	}
	return devcfg.Value(`"` + w + `"`)
}

// valueText is v.Text() without the JSON decoder for a plain string.
func valueText(v devcfg.Value) string {
	if n := len(v); n >= 2 && v[0] == '"' && v[n-1] == '"' && !strings.ContainsRune(string(v[1:n-1]), '\\') {
		return string(v[1 : n-1])
	}
	return v.Text()
}
