package sonic

import (
	"strconv"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// CountersTarget is the gNMI target under which SONiC's gNMI server
// (sonic-net/sonic-gnmi) serves COUNTERS_DB, mapping port names to SAI
// object IDs through COUNTERS_PORT_NAME_MAP itself (its virtual paths
// COUNTERS/<port>, COUNTERS/<port>/<field>, COUNTERS/<port>/Queues and
// COUNTERS/<port>/Pfcwd; sonic_data_client/virtual_db.go).
const CountersTarget = "COUNTERS_DB"

// CounterPaths are COUNTERS_DB's SAI counters as sonic-gnmi serves them:
// per-priority PFC frames and pause time as fields of the port
// (SAI_PORT_STAT_PFC_N_RX_PKTS, _TX_PKTS, _RX_PAUSE_DURATION_US,
// _TX_PAUSE_DURATION_US), the lossless queue's packets,
// drops and WRED ECN marks inside the port's Queues value, and its PFC
// watchdog deadlocks inside the port's Pfcwd value, both keyed
// "<port>:<queue>". Queue N carries priority N, as rocefab's TC-to-queue
// map has it.
func CounterPaths(ports []string, prios []int) []observe.CounterPath {
	var out []observe.CounterPath
	for _, p := range ports {
		base := "/COUNTERS/" + observe.EscapePathElem(p)
		for _, prio := range prios {
			n := strconv.Itoa(prio)
			q := observe.EscapePathElem(p + ":" + n)
			out = append(out,
				observe.CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_RX_PKTS", Port: p, Counter: observe.SwitchPFCRx(prio), Target: CountersTarget},
				observe.CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_TX_PKTS", Port: p, Counter: observe.SwitchPFCTx(prio), Target: CountersTarget},
				// Where the ASIC counts pause time; sonic-gnmi skips a
				// field Redis lacks in a subscription.
				observe.CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_RX_PAUSE_DURATION_US", Port: p, Counter: observe.SwitchPFCRxMicros(prio), Target: CountersTarget},
				observe.CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_TX_PAUSE_DURATION_US", Port: p, Counter: observe.SwitchPFCTxMicros(prio), Target: CountersTarget},
				observe.CounterPath{Path: base + "/Queues/" + q + "/SAI_QUEUE_STAT_PACKETS", Port: p, Counter: observe.SwitchQueueTxPackets(prio), Subscribe: base + "/Queues", Target: CountersTarget},
				observe.CounterPath{Path: base + "/Queues/" + q + "/SAI_QUEUE_STAT_DROPPED_PACKETS", Port: p, Counter: observe.SwitchQueueDrops(prio), Subscribe: base + "/Queues", Target: CountersTarget},
				observe.CounterPath{Path: base + "/Queues/" + q + "/SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", Port: p, Counter: observe.SwitchECNMarked(prio), Subscribe: base + "/Queues", Target: CountersTarget},
				observe.CounterPath{Path: base + "/Pfcwd/" + q + "/PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", Port: p, Counter: observe.SwitchPFCWatchdog(prio), Subscribe: base + "/Pfcwd", Target: CountersTarget})
		}
	}
	return out
}
