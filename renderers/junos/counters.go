package junos

import (
	"errors"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ShowCounters reads Junos: extensive (PFC) and queue statistics per port.
func ShowCounters(ports []string) []observe.CounterCommand {
	return append(
		observe.PerPort(ports, func(p string) string { return "show interfaces " + p + " extensive | display json" }, ParseJunosExtensive),
		observe.PerPort(ports, func(p string) string { return "show interfaces queue " + p + " | display json" }, ParseJunosQueue)...)
}

// Junos's JSON puts every element in an array and every leaf value in
// [{"data": "..."}].
func jlist(m map[string]any, key string) []map[string]any { return observe.Rows(m[key]) }

func jleaf(m map[string]any, key string) string {
	for _, e := range jlist(m, key) {
		return observe.Label(e["data"])
	}
	return ""
}

func jnum(m map[string]any, key string) (uint64, bool) {
	for _, e := range jlist(m, key) {
		return observe.Num(e["data"])
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
func ParseJunosExtensive(out []byte, port string) ([]observe.Sample, error) {
	root, err := observe.DecodeShowObject(out)
	if err != nil {
		return nil, err
	}
	ifs, err := junosInterfaces(root)
	if err != nil {
		return nil, err
	}
	var res []observe.Sample
	for _, pi := range ifs {
		p := jleaf(pi, "name")
		if p == "" {
			if port == "" {
				continue
			}
			p = port
		}
		for _, st := range jlist(pi, "ethernet-mac-pfc-statistics") {
			prio, ok := observe.LeadingInt(jleaf(st, "mac-pfc-dot1p"))
			if !ok {
				continue
			}
			if n, ok := jnum(st, "input-mac-pfc-frames"); ok {
				res = append(res, observe.NewSample(p, observe.SwitchPFCRx(prio), n))
			}
			if n, ok := jnum(st, "output-mac-pfc-frames"); ok {
				res = append(res, observe.NewSample(p, observe.SwitchPFCTx(prio), n))
			}
		}
		for _, st := range jlist(pi, "ethernet-mac-statistics") {
			if n, ok := jnum(st, "input-mac-pause-frames"); ok {
				res = append(res, observe.NewSample(p, observe.SwitchMACRxPause, n))
			}
			if n, ok := jnum(st, "output-mac-pause-frames"); ok {
				res = append(res, observe.NewSample(p, observe.SwitchMACTxPause, n))
			}
		}
	}
	return observe.NamedPorts(res), nil
}

// ParseJunosQueue reads `show interfaces queue <port> | display json`:
// queue-counters[].queue[] by queue-number, transmitted packets
// (queue-counters-trans-packets) and drops (queue-counters-total-drop-
// packets, or the tail drops where no total is given).
func ParseJunosQueue(out []byte, port string) ([]observe.Sample, error) {
	root, err := observe.DecodeShowObject(out)
	if err != nil {
		return nil, err
	}
	ifs, err := junosInterfaces(root)
	if err != nil {
		return nil, err
	}
	var res []observe.Sample
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
				n, ok := observe.LeadingInt(jleaf(q, "queue-number"))
				if !ok {
					continue
				}
				if v, ok := jnum(q, "queue-counters-trans-packets"); ok {
					res = append(res, observe.NewSample(p, observe.SwitchQueueTxPackets(n), v))
				}
				if v, ok := jnum(q, "queue-counters-total-drop-packets"); ok {
					res = append(res, observe.NewSample(p, observe.SwitchQueueDrops(n), v))
				} else if v, ok := jnum(q, "queue-counters-tail-drop-packets"); ok {
					res = append(res, observe.NewSample(p, observe.SwitchQueueDrops(n), v))
				}
			}
		}
	}
	return observe.NamedPorts(res), nil
}

// Where each command and JSON shape comes from. The testdata/counters fixtures are
// written in those shapes with rocefab's own numbers. The shared corpus
// holds no switch counter output yet, so the fuzz targets are seeded from
// the fixtures.
var ShowCounterSources = map[string]string{
	"show interfaces extensive": "Juniper, show interfaces extensive (https://www.juniper.net/documentation/us/en/software/junos/" +
		"interfaces-ethernet-switches/topics/ref/command/show-interfaces-extensive.html), \"MAC Priority Flow Control Statistics\"; " +
		"Junos 22.4 XML of a QFX et- port: ethernet-mac-pfc-statistics <mac-pfc-dot1p> <input-mac-pfc-frames> <output-mac-pfc-frames>, " +
		"ethernet-mac-statistics <input-mac-pause-frames> <output-mac-pause-frames>; `| display json` wraps elements in arrays and leaves in [{\"data\": ...}]",
	"show interfaces queue": "opendaylight/nic InterfaceInformationTest.java (Junos 17.2 `show interfaces queue | display json` of a QFX: " +
		"interface-information[].physical-interface[].queue-counters[].queue[] queue-number, queue-counters-trans-packets, " +
		"queue-counters-total-drop-packets, queue-counters-tail-drop-packets-na); Juniper, show interfaces queue " +
		"(https://www.juniper.net/documentation/us/en/software/junos/cos/topics/ref/command/show-interfaces-queue.html)",
}
