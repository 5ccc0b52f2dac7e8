package gnmisim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"

	"github.com/rocefab/rocefab/devcfg"
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
	// QueueTxPackets counts packets the egress queue sent.
	QueueTxPackets
	// QueueDrops counts packets the egress queue dropped.
	QueueDrops
	// PFCRxMicros and PFCTxMicros count the time a priority was paused
	// (SONiC's SAI_PORT_STAT_PFC_N_RX_PAUSE_DURATION_US), in µs.
	PFCRxMicros
	PFCTxMicros
	numCounters
)

// PerTick is how much each kind of counter gains per tick.
type PerTick [numCounters]uint64

// CounterOptions make the counters move by themselves: every Tick, each
// port's RoCE priorities gain PerTick[counter]. A zero Tick keeps them
// still, so only Jump moves them (exact deltas in tests).
type CounterOptions struct {
	Tick       time.Duration
	PerTick    PerTick
	Priorities []int // default [3]
	// QueueName names queue N in OpenConfig state as the device does
	// (default the number; rocefab's own queues on an openconfig target
	// are ROCEFAB_QN).
	QueueName func(int) string
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
	// rates are per-counter growth set by Rate, each since its moment.
	rates map[counterKey]rate
}

type rate struct {
	perSec float64
	since  time.Time
}

// value wraps at 2^64 as the device's 64-bit counters do.
func (c *counters) value(k counterKey, now time.Time) uint64 {
	v := c.base[k]
	if c.opt.Tick > 0 {
		v += uint64(now.Sub(c.start)/c.opt.Tick) * c.opt.PerTick[k.c]
	}
	if r, ok := c.rates[k]; ok && now.After(r.since) {
		v += uint64(r.perSec * now.Sub(r.since).Seconds())
	}
	return v
}

// fold moves what a counter's rate has added into its base, so the rate
// can change (or the counter be set) from now on without a step.
func (c *counters) fold(k counterKey, now time.Time) {
	r, ok := c.rates[k]
	if !ok {
		return
	}
	if now.After(r.since) {
		c.base[k] += uint64(r.perSec * now.Sub(r.since).Seconds())
	}
	r.since = now
	c.rates[k] = r
}

func (c *counters) setRate(k counterKey, perSec float64, now time.Time) {
	c.fold(k, now)
	if perSec <= 0 {
		delete(c.rates, k)
		return
	}
	c.rates[k] = rate{perSec: perSec, since: now}
}

func (c *counters) set(k counterKey, v uint64, now time.Time) {
	c.fold(k, now)
	c.base[k] += v - c.value(k, now) // modulo 2^64, as the counter
}

// leaves returns every OpenConfig counter as a leaf path → uint64: the
// models' own leaves (openconfig-if-ethernet's MAC pause counters, which
// this simulator keeps as the sum of the priorities' pause frames, and
// openconfig-qos-interfaces' per-queue transmit-pkts, dropped-pkts and
// ecn-marked-pkts). OpenConfig has no per-priority PFC counters, so none
// are served; SONiC's are in COUNTERS_DB (countersDB).
func (c *counters) leaves(ports []string, now time.Time) map[string]uint64 {
	out := map[string]uint64{}
	name := c.opt.QueueName
	if name == nil {
		name = strconv.Itoa
	}
	for _, port := range ports {
		var inSum, outSum uint64
		for _, prio := range c.opt.Priorities {
			inSum += c.value(counterKey{port, prio, PFCRx}, now)
			outSum += c.value(counterKey{port, prio, PFCTx}, now)
			q := fmt.Sprintf("/qos/interfaces/interface[interface-id=%s]/output/queues/queue[name=%s]/state/", escapeKey(port), escapeKey(name(prio)))
			out[q+"transmit-pkts"] = c.value(counterKey{port, prio, QueueTxPackets}, now)
			out[q+"dropped-pkts"] = c.value(counterKey{port, prio, QueueDrops}, now)
			out[q+"ecn-marked-pkts"] = c.value(counterKey{port, prio, ECNMarked}, now)
		}
		ep := fmt.Sprintf("/interfaces/interface[name=%s]/ethernet/state/counters/", escapeKey(port))
		out[ep+"in-mac-pause-frames"] = inSum
		out[ep+"out-mac-pause-frames"] = outSum
	}
	return out
}

// countersDB is COUNTERS_DB as SONiC's gNMI server presents it under
// target COUNTERS_DB (sonic-net/sonic-gnmi, sonic_data_client/virtual_db.go
// and its tests' testdata): per port, the port's SAI fields
// (SAI_PORT_STAT_PFC_N_RX_PKTS, _TX_PKTS), its queues keyed "port:N"
// (SAI_QUEUE_STAT_PACKETS, SAI_QUEUE_STAT_DROPPED_PACKETS,
// SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS; every queue of the port, as
// queue counter polling fills them) and the PFC watchdog's view of its
// lossless queues keyed the same way. Values are strings, as Redis holds
// them.
type countersDBPort struct {
	fields map[string]string
	queues map[string]map[string]string
	pfcwd  map[string]map[string]string
}

const sonicQueuesPerPort = 8

func (c *counters) countersDB(ports []string, now time.Time) map[string]countersDBPort {
	out := map[string]countersDBPort{}
	lossless := map[int]bool{}
	for _, prio := range c.opt.Priorities {
		lossless[prio] = true
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, port := range ports {
		p := countersDBPort{fields: map[string]string{}, queues: map[string]map[string]string{}, pfcwd: map[string]map[string]string{}}
		for prio := 0; prio < sonicQueuesPerPort; prio++ {
			n := strconv.Itoa(prio)
			key := port + ":" + n
			p.fields["SAI_PORT_STAT_PFC_"+n+"_RX_PKTS"] = u(c.value(counterKey{port, prio, PFCRx}, now))
			p.fields["SAI_PORT_STAT_PFC_"+n+"_TX_PKTS"] = u(c.value(counterKey{port, prio, PFCTx}, now))
			p.fields["SAI_PORT_STAT_PFC_"+n+"_RX_PAUSE_DURATION_US"] = u(c.value(counterKey{port, prio, PFCRxMicros}, now))
			p.fields["SAI_PORT_STAT_PFC_"+n+"_TX_PAUSE_DURATION_US"] = u(c.value(counterKey{port, prio, PFCTxMicros}, now))
			// Queue counter polling covers every queue (the CNP queue's
			// drops included); the watchdog only the lossless ones.
			p.queues[key] = map[string]string{
				"SAI_QUEUE_STAT_PACKETS":                 u(c.value(counterKey{port, prio, QueueTxPackets}, now)),
				"SAI_QUEUE_STAT_DROPPED_PACKETS":         u(c.value(counterKey{port, prio, QueueDrops}, now)),
				"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": u(c.value(counterKey{port, prio, ECNMarked}, now)),
			}
			if !lossless[prio] {
				continue
			}
			p.pfcwd[key] = map[string]string{
				"PFC_WD_STATUS":                        "operational",
				"PFC_WD_ACTION":                        "drop",
				"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": u(c.value(counterKey{port, prio, WatchdogStorms}, now)),
				"PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED": u(c.value(counterKey{port, prio, WatchdogStorms}, now)),
			}
		}
		out[port] = p
	}
	return out
}

// countersDBValue answers one COUNTERS_DB path the way sonic-gnmi does:
// COUNTERS/<port> the port's fields as one JSON object,
// COUNTERS/<port>/<field> one field as a string_val, COUNTERS/<port>/Queues
// and COUNTERS/<port>/Pfcwd JSON objects keyed "port:queue". A port the
// switch does not have, or a field it does not hold, is NotFound.
func (c *counters) countersDBValue(ports []string, p *gnmipb.Path, now time.Time) (*gnmipb.TypedValue, error) {
	elems := gnmipath.Elems(p)
	names := make([]string, len(elems))
	for i, e := range elems {
		names[i] = e.GetName()
	}
	if len(names) < 2 || len(names) > 3 || names[0] != "COUNTERS" {
		return nil, status.Errorf(codes.NotFound, "COUNTERS_DB: path %s is not served", gnmipath.Format(p))
	}
	db := c.countersDB(ports, now)
	port, ok := db[names[1]]
	if !ok {
		return nil, status.Errorf(codes.NotFound, " %v not a valid sonic interface", names[1])
	}
	obj := func(v any) (*gnmipb.TypedValue, error) {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%v", err)
		}
		return &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}, nil
	}
	if len(names) == 2 {
		return obj(port.fields)
	}
	switch names[2] {
	case "Queues":
		return obj(port.queues)
	case "Pfcwd":
		return obj(port.pfcwd)
	}
	v, ok := port.fields[names[2]]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "COUNTERS_DB: no field %s on %s", names[2], names[1])
	}
	return &gnmipb.TypedValue{Value: &gnmipb.TypedValue_StringVal{StringVal: v}}, nil
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
