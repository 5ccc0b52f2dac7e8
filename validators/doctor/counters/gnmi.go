package counters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// CounterPath maps one gNMI leaf to a counter key.
type CounterPath struct {
	Path    string // the leaf, "origin:/a/b[k=v]/c" as gnmipath reads it
	Port    string
	Counter string // SwitchPFCRx(3), ...
	// Subscribe is the path to ask for when the target serves the leaf
	// only inside a larger JSON value (SONiC's Queues and Pfcwd), and
	// Target the gNMI target of the request (SONiC's COUNTERS_DB). Both
	// empty: ask for Path itself.
	Subscribe string
	Target    string
}

// Request is the path string to subscribe to, with its target
// ("COUNTERS_DB@/COUNTERS/Ethernet0/Queues").
func (c CounterPath) Request() string {
	p := c.Subscribe
	if p == "" {
		p = c.Path
	}
	return gnmipath.WithTarget(c.Target, p)
}

// OpenConfigQueuePrefix is how rocefab names the queues it configures on
// an OpenConfig target (renderers/openconfig QueuePrefix); a test keeps
// the two equal.
const OpenConfigQueuePrefix = "ROCEFAB_Q"

// OpenConfigPaths are the counters of RoCE ports that the public
// OpenConfig models define: link-level pause (openconfig-if-ethernet,
// ethernet/state/counters in-mac-pause-frames and out-mac-pause-frames)
// and, per lossless queue, transmitted, dropped and ECN-marked packets
// (openconfig-qos-interfaces, output/queues/queue/state transmit-pkts,
// dropped-pkts, ecn-marked-pkts). OpenConfig has no per-priority PFC
// counter: per-priority pause is read where the platform serves it
// natively (SONiC's COUNTERS_DB) and is reported unavailable elsewhere.
// queueName names queue N as the target does: rocefab's own names on the
// openconfig platform, the number elsewhere.
func OpenConfigPaths(ports []string, prios []int, queueName func(int) string) []CounterPath {
	if queueName == nil {
		queueName = strconv.Itoa
	}
	var out []CounterPath
	for _, p := range ports {
		k := escapeKey(p)
		out = append(out,
			CounterPath{Path: "/interfaces/interface[name=" + k + "]/ethernet/state/counters/in-mac-pause-frames", Port: p, Counter: SwitchMACRxPause},
			CounterPath{Path: "/interfaces/interface[name=" + k + "]/ethernet/state/counters/out-mac-pause-frames", Port: p, Counter: SwitchMACTxPause})
		for _, prio := range prios {
			q := fmt.Sprintf("/qos/interfaces/interface[interface-id=%s]/output/queues/queue[name=%s]/state/", k, escapeKey(queueName(prio)))
			out = append(out,
				CounterPath{Path: q + "transmit-pkts", Port: p, Counter: SwitchQueueTxPackets(prio)},
				CounterPath{Path: q + "dropped-pkts", Port: p, Counter: SwitchQueueDrops(prio)},
				CounterPath{Path: q + "ecn-marked-pkts", Port: p, Counter: SwitchECNMarked(prio)})
		}
	}
	return out
}

// SONiCTarget is the gNMI target under which SONiC's gNMI server
// (sonic-net/sonic-gnmi) serves COUNTERS_DB, mapping port names to SAI
// object IDs through COUNTERS_PORT_NAME_MAP itself (its virtual paths
// COUNTERS/<port>, COUNTERS/<port>/<field>, COUNTERS/<port>/Queues and
// COUNTERS/<port>/Pfcwd; sonic_data_client/virtual_db.go).
const SONiCTarget = "COUNTERS_DB"

// SONiCPaths are COUNTERS_DB's SAI counters as sonic-gnmi serves them:
// per-priority PFC frames and pause time as fields of the port
// (SAI_PORT_STAT_PFC_N_RX_PKTS, _TX_PKTS, _RX_PAUSE_DURATION_US,
// _TX_PAUSE_DURATION_US), the lossless queue's packets,
// drops and WRED ECN marks inside the port's Queues value, and its PFC
// watchdog deadlocks inside the port's Pfcwd value, both keyed
// "<port>:<queue>". Queue N carries priority N, as rocefab's TC-to-queue
// map has it.
func SONiCPaths(ports []string, prios []int) []CounterPath {
	var out []CounterPath
	for _, p := range ports {
		base := "/COUNTERS/" + escapeElem(p)
		for _, prio := range prios {
			n := strconv.Itoa(prio)
			q := escapeElem(p + ":" + n)
			out = append(out,
				CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_RX_PKTS", Port: p, Counter: SwitchPFCRx(prio), Target: SONiCTarget},
				CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_TX_PKTS", Port: p, Counter: SwitchPFCTx(prio), Target: SONiCTarget},
				// Where the ASIC counts pause time; sonic-gnmi skips a
				// field Redis lacks in a subscription.
				CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_RX_PAUSE_DURATION_US", Port: p, Counter: SwitchPFCRxMicros(prio), Target: SONiCTarget},
				CounterPath{Path: base + "/SAI_PORT_STAT_PFC_" + n + "_TX_PAUSE_DURATION_US", Port: p, Counter: SwitchPFCTxMicros(prio), Target: SONiCTarget},
				CounterPath{Path: base + "/Queues/" + q + "/SAI_QUEUE_STAT_PACKETS", Port: p, Counter: SwitchQueueTxPackets(prio), Subscribe: base + "/Queues", Target: SONiCTarget},
				CounterPath{Path: base + "/Queues/" + q + "/SAI_QUEUE_STAT_DROPPED_PACKETS", Port: p, Counter: SwitchQueueDrops(prio), Subscribe: base + "/Queues", Target: SONiCTarget},
				CounterPath{Path: base + "/Queues/" + q + "/SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", Port: p, Counter: SwitchECNMarked(prio), Subscribe: base + "/Queues", Target: SONiCTarget},
				CounterPath{Path: base + "/Pfcwd/" + q + "/PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", Port: p, Counter: SwitchPFCWatchdog(prio), Subscribe: base + "/Pfcwd", Target: SONiCTarget})
		}
	}
	return out
}

// PathsFunc lists a platform's counter paths for its RoCE ports and
// lossless priorities.
type PathsFunc func(ports []string, prios []int) []CounterPath

var (
	pathsMu      sync.RWMutex
	pathsByPlatf = map[string]PathsFunc{
		"sonic": SONiCPaths,
		"openconfig": func(ports []string, prios []int) []CounterPath {
			return OpenConfigPaths(ports, prios, func(q int) string { return OpenConfigQueuePrefix + strconv.Itoa(q) })
		},
	}
)

// RegisterPaths sets the counter paths of a platform (renderer name) that
// serves others than OpenConfig's; a platform registered twice is an
// error.
func RegisterPaths(platform string, fn PathsFunc) error {
	pathsMu.Lock()
	defer pathsMu.Unlock()
	if _, dup := pathsByPlatf[platform]; dup {
		return fmt.Errorf("counter paths of platform %q registered twice", platform)
	}
	pathsByPlatf[platform] = fn
	return nil
}

// PathsFor picks the counter paths for a platform (renderer name):
// OpenConfig's, with queues named by number, unless it registered its own.
func PathsFor(platform string, ports []string, prios []int) []CounterPath {
	pathsMu.RLock()
	fn := pathsByPlatf[platform]
	pathsMu.RUnlock()
	if fn != nil {
		return fn(ports, prios)
	}
	return OpenConfigPaths(ports, prios, nil)
}

// Requests are the distinct subscription paths of cps, grouped by target
// (one gNMI request names one target), targets in order.
func Requests(cps []CounterPath) (targets []string, byTarget map[string][]string) {
	byTarget = map[string][]string{}
	seen := map[string]bool{}
	for _, cp := range cps {
		r := cp.Request()
		if seen[r] {
			continue
		}
		seen[r] = true
		if _, ok := byTarget[cp.Target]; !ok {
			targets = append(targets, cp.Target)
		}
		byTarget[cp.Target] = append(byTarget[cp.Target], r)
	}
	return targets, byTarget
}

// GNMISource reads switch counters with one gNMI Subscribe: ONCE by
// default, or STREAM with SAMPLE subscriptions when SampleInterval is set,
// in which case the first complete sync is the snapshot. The caller owns
// the connection (TLS, credentials), normally through the gNMI driver.
type GNMISource struct {
	Device string
	Client gnmipb.GNMIClient
	Paths  []CounterPath
	// SampleInterval > 0 subscribes in STREAM/SAMPLE mode.
	SampleInterval time.Duration
	// Timeout bounds one read; default 10s.
	Timeout time.Duration
}

// Name is the switch name.
func (g GNMISource) Name() string { return g.Device }

// Read subscribes (once per gNMI target) and returns every counter the
// target answered. Paths the target does not answer are left out (the
// platform does not expose them); that is an error only when none is
// answered.
func (g GNMISource) Read(ctx context.Context) ([]Sample, error) {
	if len(g.Paths) == 0 {
		return nil, nil
	}
	timeout := g.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	want := map[string]CounterPath{}
	for _, cp := range g.Paths {
		p, err := gnmipath.Parse(cp.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: counter path %s: %w", g.Device, cp.Path, err)
		}
		want[gnmipath.Format(p)] = cp
	}
	got := map[Key]uint64{}
	targets, byTarget := Requests(g.Paths)
	for _, target := range targets {
		if err := g.subscribe(ctx, target, byTarget[target], want, got); err != nil {
			return nil, err
		}
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("%s: gNMI Subscribe answered none of the %d counter paths (the platform may not expose PFC/ECN counters there)", g.Device, len(g.Paths))
	}
	out := make([]Sample, 0, len(got))
	for k, v := range got {
		out = append(out, Sample{Key: k, Value: v})
	}
	return out, nil
}

// subscribe reads one target's requests until the initial sync.
func (g GNMISource) subscribe(ctx context.Context, target string, requests []string, want map[string]CounterPath, got map[Key]uint64) error {
	list := &gnmipb.SubscriptionList{Mode: gnmipb.SubscriptionList_ONCE, Encoding: gnmipb.Encoding_JSON_IETF, UpdatesOnly: false}
	if target != "" {
		list.Prefix = &gnmipb.Path{Target: target}
	}
	if g.SampleInterval > 0 {
		list.Mode = gnmipb.SubscriptionList_STREAM
	}
	for _, r := range requests {
		_, rest := gnmipath.SplitTarget(r)
		p, err := gnmipath.Parse(rest)
		if err != nil {
			return fmt.Errorf("%s: counter path %s: %w", g.Device, r, err)
		}
		sub := &gnmipb.Subscription{Path: p}
		if g.SampleInterval > 0 {
			sub.Mode = gnmipb.SubscriptionMode_SAMPLE
			sub.SampleInterval = uint64(g.SampleInterval.Nanoseconds())
		}
		list.Subscription = append(list.Subscription, sub)
	}
	stream, err := g.Client.Subscribe(ctx)
	if err != nil {
		return fmt.Errorf("%s: gNMI Subscribe: %w", g.Device, err)
	}
	if err := stream.Send(&gnmipb.SubscribeRequest{Request: &gnmipb.SubscribeRequest_Subscribe{Subscribe: list}}); err != nil {
		return fmt.Errorf("%s: gNMI Subscribe: send request: %w", g.Device, err)
	}
	keep := func(path string, v uint64) {
		if cp, ok := want[path]; ok {
			got[Key{Device: g.Device, Port: cp.Port, Counter: cp.Counter}] = v
		}
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: gNMI Subscribe: %w", g.Device, err)
		}
		if resp.GetSyncResponse() {
			break
		}
		n := resp.GetUpdate()
		if n == nil {
			continue
		}
		for _, u := range n.GetUpdate() {
			full := gnmipath.Join(n.GetPrefix(), u.GetPath())
			val := u.GetVal()
			if raw := jsonObject(val); raw != nil {
				// A subtree in one value (SONiC's Queues, Pfcwd).
				for p, v := range gnmipath.NumericLeaves(full, raw) {
					keep(p, v)
				}
				continue
			}
			if _, ok := want[gnmipath.Format(full)]; !ok {
				continue
			}
			v, err := counterValue(val)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", g.Device, gnmipath.Format(full), err)
			}
			keep(gnmipath.Format(full), v)
		}
	}
	if g.SampleInterval > 0 {
		_ = stream.CloseSend()
	}
	return nil
}

// jsonObject is the value's JSON when it holds an object, else nil.
func jsonObject(tv *gnmipb.TypedValue) []byte {
	raw := tv.GetJsonIetfVal()
	if raw == nil {
		raw = tv.GetJsonVal()
	}
	if t := strings.TrimSpace(string(raw)); strings.HasPrefix(t, "{") {
		return raw
	}
	return nil
}

// counterValue reads a counter64 in any encoding a target may use:
// uint_val, int_val, or JSON/JSON_IETF (RFC 7951 sends uint64 as a string).
func counterValue(tv *gnmipb.TypedValue) (uint64, error) {
	switch v := tv.GetValue().(type) {
	case *gnmipb.TypedValue_UintVal:
		return v.UintVal, nil
	case *gnmipb.TypedValue_IntVal:
		if v.IntVal < 0 {
			return 0, fmt.Errorf("negative counter %d", v.IntVal)
		}
		return uint64(v.IntVal), nil
	case *gnmipb.TypedValue_StringVal:
		return strconv.ParseUint(strings.TrimSpace(v.StringVal), 10, 64)
	case *gnmipb.TypedValue_JsonIetfVal:
		return jsonCounter(v.JsonIetfVal)
	case *gnmipb.TypedValue_JsonVal:
		return jsonCounter(v.JsonVal)
	}
	return 0, fmt.Errorf("counter value of unexpected type %T", tv.GetValue())
}

func jsonCounter(b []byte) (uint64, error) {
	var raw any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return 0, fmt.Errorf("counter JSON %q: %w", b, err)
	}
	switch x := raw.(type) {
	case string:
		return strconv.ParseUint(x, 10, 64)
	case json.Number:
		return strconv.ParseUint(x.String(), 10, 64)
	}
	return 0, fmt.Errorf("counter JSON %q is not a number", b)
}

func escapeKey(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `]`, `\]`)
	return r.Replace(s)
}

func escapeElem(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `/`, `\/`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}
