package cumulus

import (
	"errors"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ShowCounters reads Cumulus NVUE: one QoS counter tree per port.
func ShowCounters(ports []string) []observe.CounterCommand {
	return observe.PerPort(ports, func(p string) string { return "nv show interface " + p + " counters qos -o json" }, ParseNVUEQoS)
}

// findGroup is the first object under key anywhere in v: NVUE prints the
// counter groups at the top of `nv show interface <port> counters qos -o
// json`, and under the interface when asked from higher up the tree.
func findGroup(v any, key string, depth int) map[string]any {
	m := observe.Obj(v)
	if m == nil || depth > 6 {
		return nil
	}
	if g := observe.Obj(m[key]); g != nil {
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
func ParseNVUEQoS(out []byte, port string) ([]observe.Sample, error) {
	root, err := observe.DecodeShowObject(out)
	if err != nil {
		return nil, err
	}
	pfc, egress := findGroup(root, "pfc-stats", 0), findGroup(root, "egress-queue-stats", 0)
	if pfc == nil && egress == nil {
		return nil, errors.New(`neither "pfc-stats" nor "egress-queue-stats" in the output`)
	}
	var res []observe.Sample
	for ps, c := range pfc {
		prio, ok := observe.LeadingInt(ps)
		if !ok {
			continue
		}
		if n, ok := observe.Num(observe.Obj(c)["rx-pause-frames"]); ok {
			res = append(res, observe.NewSample(port, observe.SwitchPFCRx(prio), n))
		}
		if n, ok := observe.Num(observe.Obj(c)["tx-pause-frames"]); ok {
			res = append(res, observe.NewSample(port, observe.SwitchPFCTx(prio), n))
		}
	}
	for tc, c := range egress {
		q, ok := observe.LeadingInt(tc)
		if !ok {
			continue
		}
		m := observe.Obj(c)
		if n, ok := observe.Num(m["tx-frames"]); ok {
			res = append(res, observe.NewSample(port, observe.SwitchQueueTxPackets(q), n))
		}
		if n, ok := observe.Num(m["ecn-marked-frames"]); ok {
			res = append(res, observe.NewSample(port, observe.SwitchECNMarked(q), n))
		}
		buf, okBuf := observe.Num(m["tx-uc-buffer-discards"])
		wred, okWRED := observe.Num(m["wred-discards"])
		if okBuf || okWRED {
			res = append(res, observe.NewSample(port, observe.SwitchQueueDrops(q), buf+wred))
		}
	}
	return observe.NamedPorts(res), nil
}

// Where each command and JSON shape comes from. The testdata/counters fixtures are
// written in those shapes with rocefab's own numbers. The shared corpus
// holds no switch counter output yet, so the fuzz targets are seeded from
// the fixtures.
var ShowCounterSources = map[string]string{
	"nv show interface counters qos": "NVIDIA NVUE Command Reference, Show Commands, `nv show interface <interface-id> counters qos " +
		"pfc-stats|egress-queue-stats` (Cumulus Linux 5.5 and later; 5.4 and earlier `qos counters`), CumulusNetworks/docs " +
		"content/nvue-reference; aliaydemir/lldpq-src-edt lldpq/process_pfc_ecn_data.py and its tests (-o json keys pfc-stats.<prio> " +
		"rx-pause-frames/tx-pause-frames, egress-queue-stats.<tc> tx-frames/ecn-marked-frames/tx-uc-buffer-discards/wred-discards)",
}
