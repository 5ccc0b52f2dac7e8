package counters

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// ParseText reads counters as tools print them, for recorded output and
// hosts where only the tools' text is at hand:
//
//	NIC statistics:              `ethtool -S DEV`: keys ethtool/<name>
//	     rx_prio3_pause: 12
//	Port 1 hw counters:          mlx5 show_counters, or a dump of the
//	np_cnp_sent: 0               sysfs files: keys hw_counters/<name>
//	Port 1 counters:             keys counters/<name>
//
// Blank lines and lines starting with '#' are skipped. A counter line
// before any header, or one that is not "name: unsigned value", is an error
// naming its line.
func ParseText(text string) (map[string]uint64, error) {
	out := map[string]uint64{}
	prefix := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if p, ok := sectionPrefix(line); ok {
			prefix = p
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: %q is not \"name: value\"", n, line)
		}
		if prefix == "" {
			return nil, fmt.Errorf("line %d: counter %q before a \"NIC statistics:\" or \"Port N hw counters:\" header", n, name)
		}
		v, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: counter %s: value %q is not an unsigned integer", n, name, value)
		}
		out[prefix+name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// sectionPrefix recognises a header line and returns the key prefix of
// the counters under it.
func sectionPrefix(line string) (string, bool) {
	l := strings.ToLower(line)
	switch {
	case l == "nic statistics:":
		return PrefixEthtool, true
	case strings.HasPrefix(l, "port ") && strings.HasSuffix(l, " hw counters:"):
		return PrefixHW, true
	case strings.HasPrefix(l, "port ") && strings.HasSuffix(l, " counters:"):
		return PrefixPort, true
	}
	return "", false
}

// TextStats is a StatsReader over recorded `ethtool -S` output, by netdev.
type TextStats map[string]string

// Stats parses the netdev's recorded output; names lose the ethtool/ prefix
// as the ioctl reader returns them.
func (t TextStats) Stats(netdev string) (map[string]uint64, error) {
	text, ok := t[netdev]
	if !ok {
		return nil, fmt.Errorf("%s: no recorded ethtool statistics", netdev)
	}
	all, err := ParseText(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", netdev, err)
	}
	out := map[string]uint64{}
	for k, v := range all {
		if name, ok := strings.CutPrefix(k, PrefixEthtool); ok {
			out[name] = v
		}
	}
	return out, nil
}
