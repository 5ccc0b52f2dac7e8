package showjson

import (
	"errors"

	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// junosPlatform reads Junos: extensive (PFC) and queue statistics per port.
var junosPlatform = &Platform{Name: "junos", commands: func(ports []string) []Command {
	return append(
		perPort(ports, func(p string) string { return "show interfaces " + p + " extensive | display json" }, ParseJunosExtensive),
		perPort(ports, func(p string) string { return "show interfaces queue " + p + " | display json" }, ParseJunosQueue)...)
}}

// Junos's JSON puts every element in an array and every leaf value in
// [{"data": "..."}].
func jlist(m map[string]any, key string) []map[string]any { return rows(m[key]) }

func jleaf(m map[string]any, key string) string {
	for _, e := range jlist(m, key) {
		return label(e["data"])
	}
	return ""
}

func jnum(m map[string]any, key string) (uint64, bool) {
	for _, e := range jlist(m, key) {
		return num(e["data"])
	}
	return 0, false
}

// junosInterfaces are interface-information[].physical-interface[].
func junosInterfaces(root map[string]any) ([]map[string]any, error) {
	info := jlist(root, "interface-information")
	if len(info) == 0 {
		return nil, errors.New(`no "interface-information" in the output`)
	}
	var out []map[string]any
	for _, i := range info {
		out = append(out, jlist(i, "physical-interface")...)
	}
	return out, nil
}

// ParseJunosExtensive reads `show interfaces <port> extensive | display
// json`: per 802.1p priority (ethernet-mac-pfc-statistics, mac-pfc-dot1p),
// PFC frames received (input-mac-pfc-frames) and sent
// (output-mac-pfc-frames), and the link-level pause frames
// (ethernet-mac-statistics input-/output-mac-pause-frames).
func ParseJunosExtensive(out []byte, port string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs, err := junosInterfaces(root)
	if err != nil {
		return nil, err
	}
	var res []counters.Sample
	for _, pi := range ifs {
		p := jleaf(pi, "name")
		if p == "" {
			if port == "" {
				continue
			}
			p = port
		}
		for _, st := range jlist(pi, "ethernet-mac-pfc-statistics") {
			prio, ok := leadingInt(jleaf(st, "mac-pfc-dot1p"))
			if !ok {
				continue
			}
			if n, ok := jnum(st, "input-mac-pfc-frames"); ok {
				res = append(res, sample(p, counters.SwitchPFCRx(prio), n))
			}
			if n, ok := jnum(st, "output-mac-pfc-frames"); ok {
				res = append(res, sample(p, counters.SwitchPFCTx(prio), n))
			}
		}
		for _, st := range jlist(pi, "ethernet-mac-statistics") {
			if n, ok := jnum(st, "input-mac-pause-frames"); ok {
				res = append(res, sample(p, counters.SwitchMACRxPause, n))
			}
			if n, ok := jnum(st, "output-mac-pause-frames"); ok {
				res = append(res, sample(p, counters.SwitchMACTxPause, n))
			}
		}
	}
	return named(res), nil
}

// ParseJunosQueue reads `show interfaces queue <port> | display json`:
// queue-counters[].queue[] by queue-number, transmitted packets
// (queue-counters-trans-packets) and drops (queue-counters-total-drop-
// packets, or the tail drops where no total is given).
func ParseJunosQueue(out []byte, port string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs, err := junosInterfaces(root)
	if err != nil {
		return nil, err
	}
	var res []counters.Sample
	for _, pi := range ifs {
		p := jleaf(pi, "name")
		if p == "" {
			if port == "" {
				continue
			}
			p = port
		}
		for _, qc := range jlist(pi, "queue-counters") {
			for _, q := range jlist(qc, "queue") {
				n, ok := leadingInt(jleaf(q, "queue-number"))
				if !ok {
					continue
				}
				if v, ok := jnum(q, "queue-counters-trans-packets"); ok {
					res = append(res, sample(p, counters.SwitchQueueTxPackets(n), v))
				}
				if v, ok := jnum(q, "queue-counters-total-drop-packets"); ok {
					res = append(res, sample(p, counters.SwitchQueueDrops(n), v))
				} else if v, ok := jnum(q, "queue-counters-tail-drop-packets"); ok {
					res = append(res, sample(p, counters.SwitchQueueDrops(n), v))
				}
			}
		}
	}
	return named(res), nil
}
