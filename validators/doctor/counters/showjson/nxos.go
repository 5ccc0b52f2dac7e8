package showjson

import (
	"errors"
	"strings"

	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// nxosPlatform reads NX-OS: per port, show queuing and its PFC watchdog.
var nxosPlatform = &Platform{Name: "nxos", commands: func(ports []string) []Command {
	return append(
		perPort(ports, func(p string) string { return "show queuing interface " + p + " | json" }, ParseNXOSQueuing),
		perPort(ports, func(p string) string { return "show queuing pfc-queue interface " + p + " detail | json" }, ParseNXOSPFCQueue)...)
}}

// nxosInterfaces are the queuing interface rows, under TABLE_module (as
// NX-OS prints them) or at the top.
func nxosInterfaces(root map[string]any) []map[string]any {
	var out []map[string]any
	for _, mod := range table(root, "module") {
		out = append(out, table(mod, "queuing_interface")...)
	}
	return append(out, table(root, "queuing_interface")...)
}

// nxosPort is the interface a row names: "Ethernet1/5", or the first word
// of "Ethernet1/5 Interface PFC watchdog ..." in pfc-queue output.
func nxosPort(row map[string]any, fallback string) string {
	if f := strings.Fields(label(row["if_name_str"])); len(f) > 0 {
		return f[0]
	}
	return fallback
}

// ParseNXOSQueuing reads `show queuing interface <port> | json`: per QoS
// group (queue), the egress Tx, Dropped (or "WRED/AFD & Tail Drop") and
// ECN packet counts summed over unicast, OOBFC unicast and multicast; per
// CoS, the PFC pause frames received and sent.
func ParseNXOSQueuing(out []byte, port string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs := nxosInterfaces(root)
	if len(ifs) == 0 {
		return nil, errors.New("no TABLE_queuing_interface in the output")
	}
	var res []counters.Sample
	for _, qi := range ifs {
		p := nxosPort(qi, port)
		for _, g := range table(qi, "qosgrp_egress_stats") {
			q, ok := leadingInt(label(g["eq-qosgrp"]))
			if !ok {
				continue // CONTROL and SPAN groups
			}
			var tx, drops, ecn uint64
			var haveTx, haveDrops, haveECN bool
			for _, e := range table(g, "qosgrp_egress_stats_entry") {
				if label(e["eq-stat-units"]) != "Pkts" {
					continue
				}
				var total uint64
				for _, k := range []string{"eq-uc-stat-value", "eq-oobfc-uc-stat-value", "eq-mc-stat-value"} {
					if v, ok := num(e[k]); ok {
						total += v
					}
				}
				switch label(e["eq-stat-type"]) {
				case "Tx":
					tx, haveTx = tx+total, true
				case "Dropped", "WRED/AFD & Tail Drop":
					drops, haveDrops = drops+total, true
				case "ECN":
					ecn, haveECN = ecn+total, true
				}
			}
			if haveTx {
				res = append(res, sample(p, counters.SwitchQueueTxPackets(q), tx))
			}
			if haveDrops {
				res = append(res, sample(p, counters.SwitchQueueDrops(q), drops))
			}
			if haveECN {
				res = append(res, sample(p, counters.SwitchECNMarked(q), ecn))
			}
		}
		for _, ps := range table(qi, "pfc_stats") {
			cos, ok := leadingInt(label(ps["cos"]))
			if !ok {
				continue
			}
			if v, ok := num(ps["rx-pause-count"]); ok {
				res = append(res, sample(p, counters.SwitchPFCRx(cos), v))
			}
			if v, ok := num(ps["tx-pause-count"]); ok {
				res = append(res, sample(p, counters.SwitchPFCTx(cos), v))
			}
		}
	}
	return named(res), nil
}

// ParseNXOSPFCQueue reads `show queuing pfc-queue interface <port> detail |
// json`: per QoS group, how many times the PFC watchdog shut the queue
// (q-shutdown, the largest over the group's stat entries).
func ParseNXOSPFCQueue(out []byte, port string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs := nxosInterfaces(root)
	if len(ifs) == 0 {
		return nil, errors.New("no TABLE_queuing_interface in the output")
	}
	var res []counters.Sample
	for _, qi := range ifs {
		p := nxosPort(qi, port)
		for _, g := range table(qi, "qosgrp_stats") {
			q, ok := leadingInt(label(g["eq-qosgrp"]))
			if !ok {
				continue
			}
			var shut uint64
			seen := false
			for _, e := range table(g, "qosgrp_stats_entry") {
				if v, ok := num(e["q-shutdown"]); ok {
					seen = true
					shut = max(shut, v)
				}
			}
			if seen {
				res = append(res, sample(p, counters.SwitchPFCWatchdog(q), shut))
			}
		}
	}
	return named(res), nil
}
