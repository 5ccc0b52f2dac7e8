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

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/renderers"
)

// CounterPath maps one gNMI leaf to a counter key; a platform serving
// other leaves than OpenConfig's lists its own
// (renderers.Attributes.CounterPaths).
type CounterPath = observe.CounterPath

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

// PathsFunc lists a platform's counter paths for its RoCE ports and
// lossless priorities.
type PathsFunc = observe.CounterPaths

var (
	pathsMu      sync.RWMutex
	pathsByPlatf = map[string]PathsFunc{
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

// PathsWith picks the counter paths of a registered platform: those it
// lists, else PathsFor's.
func PathsWith(reg *renderers.Registry, platform string, ports []string, prios []int) []CounterPath {
	if e, err := reg.Lookup(platform); err == nil && e.Attrs.CounterPaths != nil {
		return e.Attrs.CounterPaths(ports, prios)
	}
	return PathsFor(platform, ports, prios)
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
