package gnmisim

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rocefab/rocefab/renderers/devcfg"
)

// Counter names one kind of moving counter.
type Counter int

const (
	// PFCRx counts PFC pause frames received on a priority.
	PFCRx Counter = iota
	// PFCTx counts PFC pause frames sent on a priority.
	PFCTx
	// ECNMarked counts packets the egress queue marked CE.
	ECNMarked
	// WatchdogStorms counts PFC watchdog storm detections.
	WatchdogStorms
	numCounters
)

// CounterOptions make the counters move by themselves: every Tick, each
// port's RoCE priorities gain PerTick[counter]. A zero Tick keeps them
// still, so only Jump moves them (exact deltas in tests).
type CounterOptions struct {
	Tick       time.Duration
	PerTick    [numCounters]uint64
	Priorities []int // default [3]
}

type counterKey struct {
	port string
	prio int
	c    Counter
}

type counters struct {
	opt   CounterOptions
	start time.Time
	base  map[counterKey]uint64
}

func (c *counters) value(k counterKey, now time.Time) uint64 {
	v := c.base[k]
	if c.opt.Tick > 0 {
		v += uint64(now.Sub(c.start)/c.opt.Tick) * c.opt.PerTick[k.c]
	}
	return v
}

// leaves returns every counter as a leaf path → uint64, for the
// personality's path layout.
func (c *counters) leaves(ports []string, sonic bool, now time.Time) map[string]uint64 {
	out := map[string]uint64{}
	for _, port := range ports {
		var inSum, outSum uint64
		for _, prio := range c.opt.Priorities {
			rx := c.value(counterKey{port, prio, PFCRx}, now)
			tx := c.value(counterKey{port, prio, PFCTx}, now)
			ecn := c.value(counterKey{port, prio, ECNMarked}, now)
			wd := c.value(counterKey{port, prio, WatchdogStorms}, now)
			inSum += rx
			outSum += tx
			pp := fmt.Sprintf("/interfaces/interface[name=%s]/ethernet/pfc/priorities/priority[priority=%d]/state/", escapeKey(port), prio)
			out[pp+"in-pause-frames"] = rx
			out[pp+"out-pause-frames"] = tx
			out[pp+"watchdog-storms"] = wd
			out[fmt.Sprintf("/qos/interfaces/interface[interface-id=%s]/output/queues/queue[name=%d]/state/ecn-marked-pkts", escapeKey(port), prio)] = ecn
			if sonic {
				sp := OriginSONiCCounters + ":/COUNTERS/" + escapeElem(port) + "/"
				out[sp+"SAI_PORT_STAT_PFC_"+strconv.Itoa(prio)+"_RX_PKTS"] = rx
				out[sp+"SAI_PORT_STAT_PFC_"+strconv.Itoa(prio)+"_TX_PKTS"] = tx
				qp := OriginSONiCCounters + ":/COUNTERS/" + escapeElem(port+":"+strconv.Itoa(prio)) + "/"
				out[qp+"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] = ecn
				out[qp+"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"] = wd
			}
		}
		ep := fmt.Sprintf("/interfaces/interface[name=%s]/ethernet/state/counters/", escapeKey(port))
		out[ep+"in-mac-pause-frames"] = inSum
		out[ep+"out-mac-pause-frames"] = outSum
	}
	return out
}

func counterTree(m map[string]uint64) tree {
	t := tree{}
	for k, v := range m {
		t[k] = devcfg.Uint64(v)
	}
	return t
}

func escapeKey(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] == ']' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}
