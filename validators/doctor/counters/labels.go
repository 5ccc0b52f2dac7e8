package counters

import (
	"fmt"
	"regexp"
	"strings"
)

// Counter name prefixes. Host RDMA counters keep their sysfs directory
// ("hw_counters/np_cnp_sent"), NIC driver statistics are "ethtool/<name>",
// and switch counters use the names below whatever the platform calls them.
const (
	PrefixHW      = "hw_counters/"
	PrefixPort    = "counters/"
	PrefixEthtool = "ethtool/"
)

// SwitchPFCRx and friends name switch counters; prio/queue is the number.
func SwitchPFCRx(prio int) string       { return fmt.Sprintf("pfc%d/rx-pause", prio) }
func SwitchPFCTx(prio int) string       { return fmt.Sprintf("pfc%d/tx-pause", prio) }
func SwitchPFCWatchdog(prio int) string { return fmt.Sprintf("pfc%d/watchdog-storms", prio) }
func SwitchECNMarked(queue int) string  { return fmt.Sprintf("queue%d/ecn-marked", queue) }

// Switch 802.3x (link-level) pause counters.
const (
	SwitchMACRxPause = "mac/rx-pause"
	SwitchMACTxPause = "mac/tx-pause"
)

type rule struct {
	re    *regexp.Regexp
	kind  Kind
	label func(m []string) string
}

func fixed(s string) func([]string) string { return func([]string) string { return s } }

var rules = []rule{
	// Switch counters.
	{regexp.MustCompile(`^pfc(\d)/rx-pause$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause frames received" }},
	{regexp.MustCompile(`^pfc(\d)/tx-pause$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause frames sent" }},
	{regexp.MustCompile(`^pfc(\d)/rx-pause-us$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause time received (µs)" }},
	{regexp.MustCompile(`^pfc(\d)/tx-pause-us$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause time sent (µs)" }},
	{regexp.MustCompile(`^pfc(\d)/watchdog-storms$`), KindError, func(m []string) string { return "priority " + m[1] + " PFC watchdog storms" }},
	{regexp.MustCompile(`^queue(\d)/ecn-marked$`), KindCongestion, func(m []string) string { return "queue " + m[1] + " ECN-marked packets" }},
	{regexp.MustCompile(`^queue(\d)/drops$`), KindError, func(m []string) string { return "queue " + m[1] + " dropped packets" }},
	{regexp.MustCompile(`^queue(\d)/tx-packets$`), KindTraffic, func(m []string) string { return "queue " + m[1] + " packets sent" }},
	{regexp.MustCompile(`^pg(\d)/drops$`), KindError, func(m []string) string { return "priority group " + m[1] + " dropped packets" }},
	{regexp.MustCompile(`^mac/rx-pause$`), KindCongestion, fixed("link-level (802.3x) pause frames received")},
	{regexp.MustCompile(`^mac/tx-pause$`), KindCongestion, fixed("link-level (802.3x) pause frames sent")},

	// mlx5 ethtool statistics (ETHTOOL_GSTATS).
	{regexp.MustCompile(`^ethtool/rx_prio(\d)_pause$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause frames received" }},
	{regexp.MustCompile(`^ethtool/tx_prio(\d)_pause$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause frames sent" }},
	{regexp.MustCompile(`^ethtool/rx_prio(\d)_pause_duration$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause time received (µs)" }},
	{regexp.MustCompile(`^ethtool/tx_prio(\d)_pause_duration$`), KindCongestion, func(m []string) string { return "priority " + m[1] + " pause time sent (µs)" }},
	{regexp.MustCompile(`^ethtool/rx_prio(\d)_discards$`), KindError, func(m []string) string { return "priority " + m[1] + " packets discarded on receive" }},
	// The port buffer's congestion counters (Linux commit "net/mlx5e: Add
	// port buffer's congestion counters", 2019): drops for lack of receive
	// buffer and for congestion, and ECN marks the NIC itself applied.
	{regexp.MustCompile(`^ethtool/rx_prio(\d)_buf_discard$`), KindError, func(m []string) string {
		return "priority " + m[1] + " packets discarded for lack of receive buffer (rx_prio" + m[1] + "_buf_discard)"
	}},
	{regexp.MustCompile(`^ethtool/rx_prio(\d)_cong_discard$`), KindError, func(m []string) string {
		return "priority " + m[1] + " packets discarded by receive congestion (rx_prio" + m[1] + "_cong_discard)"
	}},
	{regexp.MustCompile(`^ethtool/rx_prio(\d)_marked$`), KindCongestion, func(m []string) string {
		return "priority " + m[1] + " packets ECN-marked by the NIC (rx_prio" + m[1] + "_marked)"
	}},
	{regexp.MustCompile(`^ethtool/rx_ecn_mark$`), KindCongestion, fixed("CE-marked packets received (rx_ecn_mark)")},
	{regexp.MustCompile(`^ethtool/(rx|tx)_prio(\d)_(bytes|packets)$`), KindTraffic, func(m []string) string { return "priority " + m[2] + " " + m[3] + " " + dir(m[1]) }},
	{regexp.MustCompile(`^ethtool/rx_pause_ctrl_phy$`), KindCongestion, fixed("link-level (802.3x) pause frames received")},
	{regexp.MustCompile(`^ethtool/tx_pause_ctrl_phy$`), KindCongestion, fixed("link-level (802.3x) pause frames sent")},
	{regexp.MustCompile(`^ethtool/rx_discards_phy$`), KindError, fixed("packets discarded by the NIC for lack of buffer (rx_discards_phy)")},
	{regexp.MustCompile(`^ethtool/tx_discards_phy$`), KindError, fixed("packets discarded on transmit (tx_discards_phy)")},
	{regexp.MustCompile(`^ethtool/rx_out_of_buffer$`), KindError, fixed("receive queue out-of-buffer drops")},
	{regexp.MustCompile(`^ethtool/tx_pause_storm_warning_events$`), KindError, fixed("pause storm warnings")},
	{regexp.MustCompile(`^ethtool/tx_pause_storm_error_events$`), KindError, fixed("pause storm errors (NIC stopped sending pause)")},
	{regexp.MustCompile(`^ethtool/rx_(crc_errors|symbol_err)_phy$`), KindError, func(m []string) string { return "physical-layer " + strings.ReplaceAll(m[1], "_", " ") }},

	// RDMA hw_counters (mlx5).
	{regexp.MustCompile(`^hw_counters/np_cnp_sent$`), KindCongestion, fixed("CNPs sent (np_cnp_sent)")},
	{regexp.MustCompile(`^hw_counters/rp_cnp_handled$`), KindCongestion, fixed("CNPs handled by the sender (rp_cnp_handled)")},
	{regexp.MustCompile(`^hw_counters/rp_cnp_ignored$`), KindCongestion, fixed("CNPs ignored (rp_cnp_ignored)")},
	{regexp.MustCompile(`^hw_counters/np_ecn_marked_roce_packets$`), KindCongestion, fixed("ECN-marked RoCE packets received (np_ecn_marked_roce_packets)")},
	{regexp.MustCompile(`^hw_counters/out_of_sequence$`), KindError, fixed("out-of-sequence packets (out_of_sequence)")},
	{regexp.MustCompile(`^hw_counters/packet_seq_err$`), KindError, fixed("packet sequence errors (packet_seq_err)")},
	{regexp.MustCompile(`^hw_counters/local_ack_timeout_err$`), KindError, fixed("ACK timeouts and retransmissions (local_ack_timeout_err)")},
	{regexp.MustCompile(`^hw_counters/roce_adp_retrans(_to)?$`), KindError, fixed("adaptive retransmissions (roce_adp_retrans)")},
	{regexp.MustCompile(`^hw_counters/roce_slow_restart\w*$`), KindError, fixed("RoCE slow restarts")},
	{regexp.MustCompile(`^hw_counters/(implied_nak_seq_err|duplicate_request|rnr_nak_retry_err|resp_remote_access_errors|req_remote_access_errors|resp_local_length_error|req_cqe_error|resp_cqe_error)$`), KindError, func(m []string) string { return strings.ReplaceAll(m[1], "_", " ") + " (" + m[1] + ")" }},
	{regexp.MustCompile(`^hw_counters/out_of_buffer$`), KindError, fixed("receive WQE shortage drops (out_of_buffer)")},
	{regexp.MustCompile(`^hw_counters/rx_icrc_encapsulated$`), KindError, fixed("packets with a bad ICRC (rx_icrc_encapsulated)")},
	{regexp.MustCompile(`^counters/port_(xmit|rcv)_(data|packets)$`), KindTraffic, func(m []string) string {
		return "RDMA " + m[2] + " " + map[string]string{"xmit": "sent", "rcv": "received"}[m[1]]
	}},
	{regexp.MustCompile(`^counters/(port_rcv_errors|port_xmit_discards|symbol_error|link_downed|link_error_recovery|port_rcv_remote_physical_errors|local_link_integrity_errors|excessive_buffer_overrun_errors)$`), KindError, func(m []string) string { return strings.ReplaceAll(m[1], "_", " ") + " (" + m[1] + ")" }},
}

func dir(rxtx string) string {
	if rxtx == "rx" {
		return "received"
	}
	return "sent"
}

// Label is the plain-language name of a counter.
func Label(counter string) string {
	for _, r := range rules {
		if m := r.re.FindStringSubmatch(counter); m != nil {
			return r.label(m)
		}
	}
	// Unknown counters keep their name without the source prefix.
	for _, p := range []string{PrefixHW, PrefixPort, PrefixEthtool} {
		if s, ok := strings.CutPrefix(counter, p); ok {
			return s
		}
	}
	return counter
}

// KindOf says what a rise of the counter means; unknown counters count as
// traffic so they never raise a warning on their own.
func KindOf(counter string) Kind {
	for _, r := range rules {
		if r.re.MatchString(counter) {
			return r.kind
		}
	}
	return KindTraffic
}

// ethtoolKeep selects the NIC statistics worth a snapshot: per-priority
// pause, discards (buffer and congestion drops included), ECN marks and
// traffic, the RDMA share of the traffic (the RoCE-on-the-wrong-queue
// detector compares it with the per-priority packets), link pause, PHY
// errors and pause storms.
var ethtoolKeep = regexp.MustCompile(`^(rx|tx)_prio\d_(pause|pause_duration|pause_transition|discards|bytes|packets)$|` +
	`^(rx|tx)_vport_rdma_unicast_(packets|bytes)$|` +
	`^rx_prio\d_(buf_discard|cong_discard|marked)$|^rx_ecn_mark$|` +
	`^(rx|tx)_pause_ctrl_phy$|^(rx|tx)_discards_phy$|^rx_out_of_buffer$|^tx_pause_storm_(warning|error)_events$|` +
	`^rx_(crc_errors|symbol_err)_phy$`)

// Lossless reports whether a counter belongs to the lossless class's
// health: pause, discards and ECN marks per priority, and the RoCE
// congestion and retransmission counters. These are the ones a probe
// report lists even when they did not move.
func Lossless(counter string) bool { return losslessRe.MatchString(counter) }

var losslessRe = regexp.MustCompile(`^ethtool/((rx|tx)_prio\d_pause(_duration)?|rx_prio\d_(discards|buf_discard|cong_discard|marked)|rx_ecn_mark)$|` +
	`^hw_counters/(np_ecn_marked_roce_packets|np_cnp_sent|rp_cnp_handled|rp_cnp_ignored|out_of_sequence|packet_seq_err|local_ack_timeout_err)$`)

// KeepEthtool reports whether a driver statistic belongs in a snapshot.
func KeepEthtool(name string) bool { return ethtoolKeep.MatchString(name) }

// SwitchPFCRxMicros and SwitchPFCTxMicros name the time a priority was
// paused, in microseconds, where the switch counts it.
func SwitchPFCRxMicros(prio int) string { return fmt.Sprintf("pfc%d/rx-pause-us", prio) }
func SwitchPFCTxMicros(prio int) string { return fmt.Sprintf("pfc%d/tx-pause-us", prio) }

// SwitchQueueDrops and SwitchQueueTxPackets name an egress queue's drops
// and transmitted packets; SwitchPGDrops an ingress priority group's drops.
func SwitchQueueDrops(queue int) string     { return fmt.Sprintf("queue%d/drops", queue) }
func SwitchQueueTxPackets(queue int) string { return fmt.Sprintf("queue%d/tx-packets", queue) }
func SwitchPGDrops(pg int) string           { return fmt.Sprintf("pg%d/drops", pg) }
