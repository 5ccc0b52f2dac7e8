package linux

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// ShowRunning prints interface MTUs and the forwarding sysctls on a Linux
// device, in a form Parse reads.
const ShowRunning = "ip -o link show; sysctl net.ipv4.ip_forward net.ipv6.conf.all.forwarding"

// Parse reads, line by line, any of:
//
//	2: swp1@if3: <BROADCAST,UP> mtu 9000 qdisc noqueue ...   (ip -o link show)
//	net.ipv4.ip_forward = 1                                 (sysctl)
//	ip link set dev swp1 mtu 9216                           (Encode's listing)
//	sysctl -w net.ipv4.ip_forward=1                         (Encode's listing)
//
// Blank lines and # comments are skipped; anything else is an error naming
// the line.
func Parse(raw []byte) (*devcfg.Config, error) {
	cfg := &devcfg.Config{Platform: "linux", Shape: devcfg.ShapePaths, Paths: devcfg.Paths{}}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := parseLine(cfg.Paths, line); err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", lineNo, excerpt(line), err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func parseLine(p devcfg.Paths, line string) error {
	f := strings.Fields(line)
	switch {
	case f[0] == "ip":
		if len(f) != 7 || f[1] != "link" || f[2] != "set" || f[3] != "dev" || f[5] != "mtu" {
			return fmt.Errorf("want ip link set dev NAME mtu N")
		}
		mtu, err := strconv.Atoi(f[6])
		if err != nil || mtu < 0 {
			return fmt.Errorf("mtu %q is not a number", f[6])
		}
		p[MTUPath(f[4])] = devcfg.Int(int64(mtu))
		return nil
	case f[0] == "sysctl":
		if len(f) != 3 || f[1] != "-w" {
			return fmt.Errorf("want sysctl -w KEY=VALUE")
		}
		k, v, ok := strings.Cut(f[2], "=")
		if !ok || v == "" {
			return fmt.Errorf("want sysctl -w KEY=VALUE")
		}
		return setSysctl(p, k, v)
	case strings.HasSuffix(f[0], ":") && len(f) >= 2 && strings.HasSuffix(f[1], ":"):
		return parseIPLink(p, f)
	case len(f) >= 3 && f[1] == "=":
		if len(f) > 3 {
			return fmt.Errorf("sysctl %s has a multi-word value, which the linux platform does not manage", f[0])
		}
		return setSysctl(p, f[0], f[2])
	}
	return fmt.Errorf("not an ip link, sysctl or listing line")
}

// parseIPLink reads one `ip -o link show` line: "IDX: NAME[@PEER]: <FLAGS> mtu N ...".
func parseIPLink(p devcfg.Paths, f []string) error {
	if _, err := strconv.Atoi(strings.TrimSuffix(f[0], ":")); err != nil {
		return fmt.Errorf("interface index %q is not a number", f[0])
	}
	name := strings.TrimSuffix(f[1], ":")
	if at := strings.IndexByte(name, '@'); at >= 0 {
		name = name[:at]
	}
	if name == "" {
		return fmt.Errorf("no interface name")
	}
	for i := 2; i+1 < len(f); i++ {
		if f[i] == "mtu" {
			mtu, err := strconv.Atoi(f[i+1])
			if err != nil || mtu < 0 {
				return fmt.Errorf("mtu %q is not a number", f[i+1])
			}
			if name != "lo" {
				p[MTUPath(name)] = devcfg.Int(int64(mtu))
			}
			return nil
		}
	}
	return fmt.Errorf("no mtu")
}

func excerpt(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// setSysctl records a sysctl after checking its key is a plain sysctl(8)
// key: letters, digits and _ . - / only.
func setSysctl(p devcfg.Paths, key, value string) error {
	if key == "" {
		return fmt.Errorf("empty sysctl key")
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' || c == '/') {
			return fmt.Errorf("sysctl key %q has a %q", key, c)
		}
	}
	for _, c := range []byte(value) {
		if c < 0x21 || c > 0x7e {
			return fmt.Errorf("sysctl %s value %q is not printable ASCII", key, value)
		}
	}
	p[SysctlPath(key)] = devcfg.String(value)
	return nil
}
