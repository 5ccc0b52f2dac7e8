package nxos

import (
	"errors"
	"strings"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ShowCounters reads NX-OS: per port, show queuing and its PFC watchdog.
func ShowCounters(ports []string) []observe.CounterCommand {
	return append(
		observe.PerPort(ports, func(p string) string { return "show queuing interface " + p + " | json" }, ParseNXOSQueuing),
		observe.PerPort(ports, func(p string) string { return "show queuing pfc-queue interface " + p + " detail | json" }, ParseNXOSPFCQueue)...)
}

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
	if f := strings.Fields(observe.Label(row["if_name_str"])); len(f) > 0 {
		return f[0]
	}
	return fallback
}

// ParseNXOSQueuing reads `show queuing interface <port> | json`: per QoS
// group (queue), the egress Tx, Dropped (or "WRED/AFD & Tail Drop") and
// ECN packet counts summed over unicast, OOBFC unicast and multicast; per
// CoS, the PFC pause frames received and sent.
func ParseNXOSQueuing(out []byte, port string) ([]observe.Sample, error) {
	root, err := observe.DecodeShowObject(out)
	if err != nil {
		return nil, err
	}
	ifs := nxosInterfaces(root)
	if len(ifs) == 0 {
		return nil, errors.New("no TABLE_queuing_interface in the output")
	}
	var res []observe.Sample
	for _, qi := range ifs {
		p := nxosPort(qi, port)
		for _, g := range table(qi, "qosgrp_egress_stats") {
			q, ok := observe.LeadingInt(observe.Label(g["eq-qosgrp"]))
			if !ok {
				continue // CONTROL and SPAN groups
			}
			var tx, drops, ecn uint64
			var haveTx, haveDrops, haveECN bool
			for _, e := range table(g, "qosgrp_egress_stats_entry") {
				if observe.Label(e["eq-stat-units"]) != "Pkts" {
					continue
				}
				var total uint64
				for _, k := range []string{"eq-uc-stat-value", "eq-oobfc-uc-stat-value", "eq-mc-stat-value"} {
					if v, ok := observe.Num(e[k]); ok {
						total += v
					}
				}
				switch observe.Label(e["eq-stat-type"]) {
				case "Tx":
					tx, haveTx = tx+total, true
				case "Dropped", "WRED/AFD & Tail Drop":
					drops, haveDrops = drops+total, true
				case "ECN":
					ecn, haveECN = ecn+total, true
				}
			}
			if haveTx {
				res = append(res, observe.NewSample(p, observe.SwitchQueueTxPackets(q), tx))
			}
			if haveDrops {
				res = append(res, observe.NewSample(p, observe.SwitchQueueDrops(q), drops))
			}
			if haveECN {
				res = append(res, observe.NewSample(p, observe.SwitchECNMarked(q), ecn))
			}
		}
		for _, ps := range table(qi, "pfc_stats") {
			cos, ok := observe.LeadingInt(observe.Label(ps["cos"]))
			if !ok {
				continue
			}
			if v, ok := observe.Num(ps["rx-pause-count"]); ok {
				res = append(res, observe.NewSample(p, observe.SwitchPFCRx(cos), v))
			}
			if v, ok := observe.Num(ps["tx-pause-count"]); ok {
				res = append(res, observe.NewSample(p, observe.SwitchPFCTx(cos), v))
			}
		}
	}
	return observe.NamedPorts(res), nil
}

// ParseNXOSPFCQueue reads `show queuing pfc-queue interface <port> detail |
// json`: per QoS group, how many times the PFC watchdog shut the queue
// (q-shutdown, the largest over the group's stat entries).
func ParseNXOSPFCQueue(out []byte, port string) ([]observe.Sample, error) {
	root, err := observe.DecodeShowObject(out)
	if err != nil {
		return nil, err
	}
	ifs := nxosInterfaces(root)
	if len(ifs) == 0 {
		return nil, errors.New("no TABLE_queuing_interface in the output")
	}
	var res []observe.Sample
	for _, qi := range ifs {
		p := nxosPort(qi, port)
		for _, g := range table(qi, "qosgrp_stats") {
			q, ok := observe.LeadingInt(observe.Label(g["eq-qosgrp"]))
			if !ok {
				continue
			}
			var shut uint64
			seen := false
			for _, e := range table(g, "qosgrp_stats_entry") {
				if v, ok := observe.Num(e["q-shutdown"]); ok {
					seen = true
					shut = max(shut, v)
				}
			}
			if seen {
				res = append(res, observe.NewSample(p, observe.SwitchPFCWatchdog(q), shut))
			}
		}
	}
	return observe.NamedPorts(res), nil
}

// table is NX-OS's TABLE_<name>.ROW_<name> under m.
func table(m map[string]any, name string) []map[string]any {
	return observe.Rows(observe.Obj(m["TABLE_"+name])["ROW_"+name])
}

// Where each command and JSON shape comes from. The testdata/counters fixtures are
// written in those shapes with rocefab's own numbers. The shared corpus
// holds no switch counter output yet, so the fuzz targets are seeded from
// the fixtures.
var ShowCounterSources = map[string]string{
	"show queuing interface": "Cisco Nexus 9000 Series NX-OS Show Commands 9.3(x), Q Show Commands (b_N9K_Show_Commands_93x_chapter_010000.html): " +
		"`show queuing` __readonly__ schema, TABLE_queuing_interface <dir> <if_name_str>, TABLE_qosgrp_egress_stats <eq-qosgrp> " +
		"TABLE_qosgrp_egress_stats_entry <eq-stat-type> <eq-stat-units> <eq-uc-stat-value> <eq-oobfc-uc-stat-value> <eq-mc-stat-value>, " +
		"TABLE_pfc_stats <cos> <pfc-qosgrp> <tx-pause-count> <rx-pause-count>; allenrobel/nxapi-netbox lib/nxapi/nxapi_interface_egress_queuing.py " +
		"(TABLE_module/ROW_module wrapper, eq-stat-type values Tx, ECN, \"WRED/AFD & Tail Drop\", units Pkts/Byts, CONTROL and SPAN QOS GROUP rows)",
	"show queuing pfc-queue": "Cisco Nexus 9000 Series NX-OS Show Commands 9.3(x), Q Show Commands: `show queuing pfc-queue [interface] [detail]` " +
		"__readonly__ schema (TABLE_queuing_interface <if_name_str>, TABLE_qosgrp_stats <eq-qosgrp>, TABLE_qosgrp_stats_entry <q-stat-type> " +
		"<q-shutdown> <q-restored> <q-pkt-dropped>); paregupt/nexus_traffic_monitor telegraf/nexus_traffic_monitor_high_frequency.py " +
		"parse_pfcqueuedetail (the JSON over SSH is the body itself, if_name_str \"Ethernet1/1/1 Interface PFC watchdog ...\", eq-qosgrp \"3 \")",
}
