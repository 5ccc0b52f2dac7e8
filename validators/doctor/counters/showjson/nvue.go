package showjson

import (
	"errors"

	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// nvuePlatform reads Cumulus NVUE: one QoS counter tree per port.
var nvuePlatform = &Platform{Name: "cumulus", commands: func(ports []string) []Command {
	return perPort(ports, func(p string) string { return "nv show interface " + p + " counters qos -o json" }, ParseNVUEQoS)
}}

// findGroup is the first object under key anywhere in v: NVUE prints the
// counter groups at the top of `nv show interface <port> counters qos -o
// json`, and under the interface when asked from higher up the tree.
func findGroup(v any, key string, depth int) map[string]any {
	m := obj(v)
	if m == nil || depth > 6 {
		return nil
	}
	if g := obj(m[key]); g != nil {
		return g
	}
	for _, c := range m {
		if g := findGroup(c, key, depth+1); g != nil {
			return g
		}
	}
	return nil
}

// ParseNVUEQoS reads `nv show interface <port> counters qos -o json`:
// pfc-stats.<switch-priority> rx-pause-frames and tx-pause-frames, and
// egress-queue-stats.<traffic-class> tx-frames, ecn-marked-frames and the
// drops (tx-uc-buffer-discards plus wred-discards). The output does not
// name the port; samples are keyed by the port asked for.
func ParseNVUEQoS(out []byte, port string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	pfc, egress := findGroup(root, "pfc-stats", 0), findGroup(root, "egress-queue-stats", 0)
	if pfc == nil && egress == nil {
		return nil, errors.New(`neither "pfc-stats" nor "egress-queue-stats" in the output`)
	}
	var res []counters.Sample
	for ps, c := range pfc {
		prio, ok := leadingInt(ps)
		if !ok {
			continue
		}
		if n, ok := num(obj(c)["rx-pause-frames"]); ok {
			res = append(res, sample(port, counters.SwitchPFCRx(prio), n))
		}
		if n, ok := num(obj(c)["tx-pause-frames"]); ok {
			res = append(res, sample(port, counters.SwitchPFCTx(prio), n))
		}
	}
	for tc, c := range egress {
		q, ok := leadingInt(tc)
		if !ok {
			continue
		}
		m := obj(c)
		if n, ok := num(m["tx-frames"]); ok {
			res = append(res, sample(port, counters.SwitchQueueTxPackets(q), n))
		}
		if n, ok := num(m["ecn-marked-frames"]); ok {
			res = append(res, sample(port, counters.SwitchECNMarked(q), n))
		}
		buf, okBuf := num(m["tx-uc-buffer-discards"])
		wred, okWRED := num(m["wred-discards"])
		if okBuf || okWRED {
			res = append(res, sample(port, counters.SwitchQueueDrops(q), buf+wred))
		}
	}
	return named(res), nil
}
