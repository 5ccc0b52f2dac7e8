package rdmasys

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// safeName is what a device or netdev name may contain before it goes into
// a remote shell command.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_.:@-]{1,64}$`)

// SafeName reports whether name can be quoted into a shell command as is.
func SafeName(name string) bool { return safeName.MatchString(name) }

// GIDListingCommand is a POSIX shell command that prints what
// ParseGIDListing reads for one port of a remote host: the device (found
// from the netdev when device is empty) and its GID table with types and
// netdevs, one "path:value" line per file.
func GIDListingCommand(device, netdev string, port int) ([]string, error) {
	if device != "" && !SafeName(device) {
		return nil, fmt.Errorf("RDMA device name %q has characters rocefab will not send to a shell", device)
	}
	if netdev != "" && !SafeName(netdev) {
		return nil, fmt.Errorf("netdev name %q has characters rocefab will not send to a shell", netdev)
	}
	if device == "" && netdev == "" {
		return nil, fmt.Errorf("GID lookup needs an RDMA device or a netdev")
	}
	if port < 1 {
		port = 1
	}
	script := fmt.Sprintf(`d=%s; [ -n "$d" ] || d=$(ls /sys/class/net/%s/device/infiniband 2>/dev/null | head -n 1); `+
		`echo "device:$d"; [ -n "$d" ] || exit 3; cd /sys/class/infiniband/"$d"/ports/%d || exit 3; `+
		`grep -H . gids/* gid_attrs/types/* gid_attrs/ndevs/* 2>/dev/null; exit 0`, device, netdev, port)
	return []string{"sh", "-c", script}, nil
}

// ParseGIDListing reads the output of GIDListingCommand: a "device:NAME"
// line, then "gids/<i>:<gid>", "gid_attrs/types/<i>:<type>" and
// "gid_attrs/ndevs/<i>:<netdev>" lines. Zero GIDs and entries without a
// type are dropped, as sysfs reading does.
func ParseGIDListing(text string) (device string, gids []GID, err error) {
	type entry struct {
		gid      string
		typ, dev string
		hasType  bool
	}
	byIndex := map[int]*entry{}
	get := func(i int) *entry {
		if byIndex[i] == nil {
			byIndex[i] = &entry{}
		}
		return byIndex[i]
	}
	sawDevice := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			continue
		}
		if v, ok := strings.CutPrefix(line, "device:"); ok {
			device, sawDevice = strings.TrimSpace(v), true
			continue
		}
		path, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		dir, idxText, ok := cutLast(path, "/")
		if !ok {
			continue
		}
		idx, convErr := strconv.Atoi(idxText)
		if convErr != nil || idx < 0 {
			continue
		}
		switch dir {
		case "gids":
			get(idx).gid = value
		case "gid_attrs/types":
			e := get(idx)
			e.typ, e.hasType = strings.TrimSpace(value), true
		case "gid_attrs/ndevs":
			get(idx).dev = strings.TrimSpace(value)
		}
	}
	if !sawDevice {
		return "", nil, fmt.Errorf("GID listing has no device line")
	}
	if device == "" {
		return "", nil, fmt.Errorf("no RDMA device found for the netdev")
	}
	for idx, e := range byIndex {
		if e.gid == "" || !e.hasType {
			continue
		}
		addr, perr := ParseGID(e.gid)
		if perr != nil || addr.IsUnspecified() {
			continue
		}
		gids = append(gids, GID{Index: idx, GID: addr, Type: e.typ, Netdev: e.dev})
	}
	sort.Slice(gids, func(i, j int) bool { return gids[i].Index < gids[j].Index })
	return device, gids, nil
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
