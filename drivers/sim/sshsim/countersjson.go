package sshsim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The show commands with JSON output that switches without gNMI answer
// with their PFC, watchdog and queue counters, in the shapes their vendors
// document (written from the same references as
// validators/doctor/counters/showjson/sources.go, not from its parsers):
//
//	NX-OS  show queuing interface <if> | json, show queuing pfc-queue
//	       interface <if> detail | json: Cisco Nexus 9000 NX-OS Show
//	       Commands 9.3(x), Q Show Commands (__readonly__ schemas);
//	       allenrobel/nxapi-netbox nxapi_interface_egress_queuing.py;
//	       paregupt/nexus_traffic_monitor parse_pfcqueuedetail.
//	EOS    show interfaces <if> priority-flow-control counters detail |
//	       json, show priority-flow-control counters watchdog | json:
//	       facebook/DNE-TaaC dsf_pfc_health_check.py, pfc_wd_health_check.py;
//	       show qos interfaces ecn counters queue | json, show interfaces
//	       counters queue detail | json: aristanetworks/anta
//	       tests/units/anta_tests/test_interfaces.py.
//	NVUE   nv show interface <if> counters qos -o json: NVIDIA NVUE Command
//	       Reference (pfc-stats, egress-queue-stats columns);
//	       aliaydemir/lldpq-src-edt process_pfc_ecn_data.py.
//	Junos  show interfaces <if> extensive | display json, show interfaces
//	       queue <if> | display json: Juniper show interfaces extensive
//	       (ethernet-mac-pfc-statistics), opendaylight/nic
//	       InterfaceInformationTest.java (queue-counters).
//
// These counters stand still unless a test moves them with Jump, so deltas
// are exact; the text commands (show interface priority-flow-control, show
// pfc counters) keep their own traffic-like movement.

// PrioCounter names one per-priority (per-queue) counter.
type PrioCounter int

const (
	// PFCRxFrames: PFC pause frames received on a priority.
	PFCRxFrames PrioCounter = iota
	// PFCTxFrames: PFC pause frames sent on a priority.
	PFCTxFrames
	// WatchdogStorms: times the PFC watchdog found the queue stuck.
	WatchdogStorms
	// QueueTxPackets: packets the egress queue sent.
	QueueTxPackets
	// QueueDrops: packets the egress queue dropped.
	QueueDrops
	// ECNMarked: packets the egress queue marked CE.
	ECNMarked
)

type prioKey struct {
	port string
	prio int
	c    PrioCounter
}

// Jump adds n to a port's counter of a priority (queue N carries priority
// N), as the JSON show commands report it.
func (s *Sim) Jump(port string, prio int, c PrioCounter, n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lossless[prioKey{port, prio, c}] += n
}

func (s *Sim) prio(port string, prio int, c PrioCounter) uint64 {
	return s.lossless[prioKey{port, prio, c}]
}

// jumpedPorts are the ports with a moved counter, for commands that list
// every port.
func (s *Sim) jumpedPorts(only PrioCounter, any bool) []string {
	seen := map[string]bool{}
	for k, v := range s.lossless {
		if v > 0 && (any || k.c == only) {
			seen[k.port] = true
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	return out
}

func sortedPorts(ports []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ports {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return naturalLess(out[i], out[j]) })
	return out
}

func jsonText(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func str(n uint64) string { return strconv.FormatUint(n, 10) }

var (
	nxosPortRe  = regexp.MustCompile(`^(?i:ethernet)\d+/\d+(/\d+)?$`)
	eosPortRe   = regexp.MustCompile(`^(?i:ethernet|et)\d+(/\d+)*$`)
	junosPortRe = regexp.MustCompile(`^(et|xe|ge)-\d+/\d+/\d+(:\d+)?$`)
	nvuePortRe  = regexp.MustCompile(`^swp\d+(s\d+)?$`)
)

// showJSONIOS answers the NX-OS and EOS JSON counter commands (what is the
// line after "show ").
func (d *iosDevice) showJSONIOS(what string) (string, bool) {
	body, ok := strings.CutSuffix(what, " | json")
	if !ok {
		return "", false
	}
	if d.nxos {
		if p, ok := strings.CutPrefix(body, "queuing interface "); ok && nxosPortRe.MatchString(p) {
			return d.nxosQueuingJSON(canonicalNXOS(p)), true
		}
		if rest, ok := strings.CutPrefix(body, "queuing pfc-queue interface "); ok {
			if p, ok := strings.CutSuffix(rest, " detail"); ok && nxosPortRe.MatchString(p) {
				return d.nxosPFCQueueJSON(canonicalNXOS(p)), true
			}
		}
		return "", false
	}
	switch body {
	case "priority-flow-control counters watchdog":
		return d.eosWatchdogJSON(), true
	case "qos interfaces ecn counters queue":
		return d.eosECNJSON(), true
	case "interfaces counters queue detail":
		return d.eosQueueDetailJSON(), true
	}
	for _, lead := range []string{"interfaces ", "interface "} {
		if rest, ok := strings.CutPrefix(body, lead); ok {
			if p, ok := strings.CutSuffix(rest, " priority-flow-control counters detail"); ok && eosPortRe.MatchString(p) {
				return d.eosPFCDetailJSON(canonicalEOS(p)), true
			}
		}
	}
	return "", false
}

func canonicalNXOS(p string) string { return "Ethernet" + p[len("ethernet"):] }

func canonicalEOS(p string) string {
	if strings.HasPrefix(strings.ToLower(p), "ethernet") {
		return "Ethernet" + p[len("ethernet"):]
	}
	return "Ethernet" + p[len("et"):]
}

// nxosQueuingJSON: an Egress row per port with a QoS-group row per group
// (Tx, "WRED/AFD & Tail Drop" and ECN in packets and bytes, unicast and
// multicast), then an Ingress row with the per-CoS PFC statistics.
func (d *iosDevice) nxosQueuingJSON(port string) string {
	s := d.sim
	var groups []any
	for q := 0; q < 8; q++ {
		entry := func(typ, units string, uc uint64) map[string]any {
			return map[string]any{"eq-stat-type": typ, "eq-stat-units": units, "eq-uc-stat-value": str(uc), "eq-mc-stat-value": "0"}
		}
		tx, drops, ecn := s.prio(port, q, QueueTxPackets), s.prio(port, q, QueueDrops), s.prio(port, q, ECNMarked)
		groups = append(groups, map[string]any{
			"eq-qosgrp": strconv.Itoa(q),
			"TABLE_qosgrp_egress_stats_entry": map[string]any{"ROW_qosgrp_egress_stats_entry": []any{
				entry("Tx", "Pkts", tx), entry("Tx", "Byts", tx*1024),
				entry("WRED/AFD & Tail Drop", "Pkts", drops), entry("WRED/AFD & Tail Drop", "Byts", drops*1024),
				entry("ECN", "Pkts", ecn), entry("ECN", "Byts", ecn*1024),
				entry("Q Depth", "Byts", 0),
			}},
		})
	}
	groups = append(groups, map[string]any{
		"eq-qosgrp": "CONTROL QOS GROUP",
		"TABLE_qosgrp_egress_stats_entry": map[string]any{"ROW_qosgrp_egress_stats_entry": map[string]any{
			"eq-stat-type": "Tx", "eq-stat-units": "Pkts", "eq-uc-stat-value": "0", "eq-mc-stat-value": "0"}},
	})
	var pfc []any
	var rxSum, txSum uint64
	for cos := 0; cos < 8; cos++ {
		rx, tx := s.prio(port, cos, PFCRxFrames), s.prio(port, cos, PFCTxFrames)
		rxSum, txSum = rxSum+rx, txSum+tx
		pfc = append(pfc, map[string]any{"cos": strconv.Itoa(cos), "pfc-qosgrp": strconv.Itoa(cos), "pfc-pg": strconv.Itoa(cos),
			"tx-pause-state": "Inactive", "tx-pause-count": str(tx), "rx-pause-state": "Inactive", "rx-pause-count": str(rx)})
	}
	return jsonText(map[string]any{"TABLE_module": map[string]any{"ROW_module": map[string]any{
		"module": "1",
		"TABLE_queuing_interface": map[string]any{"ROW_queuing_interface": []any{
			map[string]any{"dir": "Egress", "if_name_str": port, "TABLE_qosgrp_egress_stats": map[string]any{"ROW_qosgrp_egress_stats": groups}},
			map[string]any{"dir": "Ingress", "if_name_str": port, "tx-ppp": str(txSum), "rx-ppp": str(rxSum),
				"TABLE_pfc_stats": map[string]any{"ROW_pfc_stats": pfc}},
		}},
	}}})
}

// nxosPFCQueueJSON: the global watchdog settings, then the port's row with
// one QoS-group row per no-drop group (rocefab's is group 3 unless a
// counter moved elsewhere).
func (d *iosDevice) nxosPFCQueueJSON(port string) string {
	s := d.sim
	var groups []any
	for q := 0; q < 8; q++ {
		shut := s.prio(port, q, WatchdogStorms)
		if q != 3 && shut == 0 {
			continue
		}
		groups = append(groups, map[string]any{
			"eq-qosgrp": strconv.Itoa(q) + " ", "eq-qosgrp-state": "Ok", "pfc-configured": "Yes", "pfc-cos": strconv.Itoa(q),
			"TABLE_qosgrp_stats_entry": map[string]any{"ROW_qosgrp_stats_entry": []any{
				map[string]any{"q-stat-type": "Stats", "q-shutdown": str(shut), "q-restored": str(shut), "q-pkt-drained": "0", "q-pkt-dropped": "0"},
			}},
		})
	}
	return jsonText(map[string]any{
		"glb-wd-status": "Enabled", "glb-wd-force-status": "Disabled", "glb-wd-timer": "100", "glb-wd-timer-thresh": "1",
		"glb-auto-restore": "10", "glb-fixed-restore": "0", "glb-int-intf-multi": "0",
		"TABLE_module": map[string]any{"ROW_module": map[string]any{"TABLE_queuing_interface": map[string]any{"ROW_queuing_interface": map[string]any{
			"if_name_str": port + " Interface PFC watchdog: [Enabled]", "wd-status": "Enabled",
			"TABLE_qosgrp_stats": map[string]any{"ROW_qosgrp_stats": groups},
		}}}},
	})
}

func (d *iosDevice) eosPFCDetailJSON(port string) string {
	prios := map[string]any{}
	for p := 0; p < 8; p++ {
		prios[strconv.Itoa(p)] = map[string]any{"rxFrames": d.sim.prio(port, p, PFCRxFrames), "txFrames": d.sim.prio(port, p, PFCTxFrames)}
	}
	return jsonText(map[string]any{"interfaces": map[string]any{port: map[string]any{"priorities": prios}}})
}

// eosPorts are the configured Ethernet ports and any whose counters moved.
func (d *iosDevice) eosPorts() []string {
	var ports []string
	for _, n := range d.ethernetPorts() {
		ports = append(ports, strings.TrimPrefix(n.line, "interface "))
	}
	return sortedPorts(append(ports, d.sim.jumpedPorts(0, true)...))
}

// eosWatchdogJSON lists an interface only once its watchdog has fired.
func (d *iosDevice) eosWatchdogJSON() string {
	ifs := map[string]any{}
	for _, port := range sortedPorts(d.sim.jumpedPorts(WatchdogStorms, false)) {
		qs := map[string]any{}
		for q := 0; q < 8; q++ {
			if n := d.sim.prio(port, q, WatchdogStorms); n > 0 {
				qs[strconv.Itoa(q)] = map[string]any{"stuckCount": n, "recoveryCount": n}
			}
		}
		ifs[port] = map[string]any{"txQueues": qs}
	}
	return jsonText(map[string]any{"interfaces": ifs})
}

// eosECNJSON: ECN counts as strings, "-" on queues without ECN (all but
// the RoCE queue 3 and any queue whose count moved).
func (d *iosDevice) eosECNJSON() string {
	ifs := map[string]any{}
	for _, port := range d.eosPorts() {
		qs := map[string]any{}
		for q := 0; q < 8; q++ {
			n := d.sim.prio(port, q, ECNMarked)
			if q == 3 || n > 0 {
				qs[strconv.Itoa(q)] = str(n)
			} else {
				qs[strconv.Itoa(q)] = "-"
			}
		}
		ifs[port] = map[string]any{"queueCounters": qs}
	}
	return jsonText(map[string]any{"intfQueueCounters": ifs})
}

func (d *iosDevice) eosQueueDetailJSON() string {
	ifs := map[string]any{}
	for _, port := range d.eosPorts() {
		uc, mc := map[string]any{}, map[string]any{}
		for q := 0; q < 8; q++ {
			tc := "TC" + strconv.Itoa(q)
			uc[tc] = map[string]any{"dropPrecedences": map[string]any{"DP0": map[string]any{"droppedPackets": d.sim.prio(port, q, QueueDrops)}}}
			mc[tc] = map[string]any{"dropPrecedences": map[string]any{"DP0": map[string]any{"droppedPackets": 0}}}
		}
		ifs[port] = map[string]any{"ucastQueues": map[string]any{"trafficClasses": uc}, "mcastQueues": map[string]any{"trafficClasses": mc}}
	}
	return jsonText(map[string]any{"egressQueueCounters": map[string]any{"interfaces": ifs}})
}

// showJSONNVUE answers nv show interface <if> counters qos -o json.
func (d *nvueDevice) showJSONNVUE(f []string) (string, bool) {
	if len(f) != 8 || f[0] != "nv" || f[1] != "show" || f[2] != "interface" || f[4] != "counters" || f[5] != "qos" || f[6] != "-o" || f[7] != "json" {
		return "", false
	}
	port := f[3]
	if !nvuePortRe.MatchString(port) {
		return "Error: The requested item does not exist.", true
	}
	s := d.sim
	egress, pfc, ingress := map[string]any{}, map[string]any{}, map[string]any{}
	for p := 0; p < 8; p++ {
		k := strconv.Itoa(p)
		tx := s.prio(port, p, QueueTxPackets)
		egress[k] = map[string]any{"tx-frames": tx, "tx-bytes": tx * 1024, "ecn-marked-frames": s.prio(port, p, ECNMarked),
			"tx-uc-buffer-discards": s.prio(port, p, QueueDrops), "wred-discards": 0}
		pfc[k] = map[string]any{"rx-pause-frames": s.prio(port, p, PFCRxFrames), "rx-pause-duration": 0,
			"tx-pause-frames": s.prio(port, p, PFCTxFrames), "tx-pause-duration": 0}
		ingress[k] = map[string]any{"rx-frames": 0, "rx-buffer-discards": 0, "rx-shared-buffer-discards": 0}
	}
	return jsonText(map[string]any{"egress-queue-stats": egress, "ingress-buffer-stats": ingress, "pfc-stats": pfc}), true
}

// Junos's JSON: every element an array, every leaf [{"data": value}].
func jd(v string) []any { return []any{map[string]any{"data": v}} }

func junosEnvelope(port string, extra map[string]any) string {
	pi := map[string]any{"name": jd(port), "admin-status": []any{map[string]any{"data": "up", "attributes": map[string]any{"junos:format": "Enabled"}}},
		"oper-status": jd("up")}
	for k, v := range extra {
		pi[k] = v
	}
	return jsonText(map[string]any{"interface-information": []any{map[string]any{
		"attributes":         map[string]any{"xmlns": "http://xml.juniper.net/junos/23.4R1/junos-interface", "junos:style": "normal"},
		"physical-interface": []any{pi},
	}}})
}

// showJSONJunos answers show interfaces <if> extensive | display json and
// show interfaces queue <if> | display json.
func (d *junosDevice) showJSONJunos(line string) (string, bool) {
	body, ok := strings.CutSuffix(line, " | display json")
	if !ok {
		return "", false
	}
	s := d.sim
	if p, ok := strings.CutPrefix(body, "show interfaces queue "); ok {
		if !junosPortRe.MatchString(p) {
			return "error: device " + p + " not found", true
		}
		var qs []any
		for q := 0; q < 8; q++ {
			tx := s.prio(p, q, QueueTxPackets)
			drops := s.prio(p, q, QueueDrops)
			qs = append(qs, map[string]any{"queue-number": jd(strconv.Itoa(q)), "forwarding-class-name": jd(fmt.Sprintf("fc%d", q)),
				"queue-counters-queued-packets": jd(str(tx + drops)), "queue-counters-trans-packets": jd(str(tx)),
				"queue-counters-tail-drop-packets-na": jd("Not Available"), "queue-counters-total-drop-packets": jd(str(drops))})
		}
		return junosEnvelope(p, map[string]any{"queue-counters": []any{map[string]any{
			"attributes":            map[string]any{"junos:style": "detail"},
			"interface-cos-summary": []any{map[string]any{"intf-cos-queue-type": jd("Egress queues"), "intf-cos-num-queues-in-use": jd("8")}},
			"queue":                 qs,
		}}}), true
	}
	if rest, ok := strings.CutPrefix(body, "show interfaces "); ok {
		if p, ok := strings.CutSuffix(rest, " extensive"); ok {
			if !junosPortRe.MatchString(p) {
				return "error: device " + p + " not found", true
			}
			var pfc []any
			for prio := 0; prio < 8; prio++ {
				pfc = append(pfc, map[string]any{"attributes": map[string]any{"junos:style": "verbose"}, "mac-pfc-dot1p": jd(strconv.Itoa(prio)),
					"input-mac-pfc-frames": jd(str(s.prio(p, prio, PFCRxFrames))), "output-mac-pfc-frames": jd(str(s.prio(p, prio, PFCTxFrames)))})
			}
			return junosEnvelope(p, map[string]any{
				"ethernet-mac-statistics": []any{map[string]any{"attributes": map[string]any{"junos:style": "verbose"},
					"input-mac-pause-frames": jd("0"), "output-mac-pause-frames": jd("0")}},
				"ethernet-mac-pfc-statistics": pfc,
			}), true
		}
	}
	return "", false
}
