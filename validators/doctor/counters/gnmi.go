package counters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// CounterPath maps one gNMI leaf to a counter key.
type CounterPath struct {
	Path    string // "origin:/a/b[k=v]/c", as gnmipath reads it
	Port    string
	Counter string // SwitchPFCRx(3), ...
}

// OpenConfigPaths are the PFC and ECN counters of RoCE ports on an
// OpenConfig target: link pause (openconfig-if-ethernet), ECN marks of the
// lossless queue (openconfig-qos), and per-priority pause under
// ethernet/pfc, which OpenConfig itself lacks; the path follows the gnmisim
// augment and is only answered where a platform exposes it.
func OpenConfigPaths(ports []string, prios []int) []CounterPath {
	var out []CounterPath
	for _, p := range ports {
		k := escapeKey(p)
		out = append(out,
			CounterPath{"/interfaces/interface[name=" + k + "]/ethernet/state/counters/in-mac-pause-frames", p, SwitchMACRxPause},
			CounterPath{"/interfaces/interface[name=" + k + "]/ethernet/state/counters/out-mac-pause-frames", p, SwitchMACTxPause})
		for _, prio := range prios {
			pp := fmt.Sprintf("/interfaces/interface[name=%s]/ethernet/pfc/priorities/priority[priority=%d]/state/", k, prio)
			out = append(out,
				CounterPath{pp + "in-pause-frames", p, SwitchPFCRx(prio)},
				CounterPath{pp + "out-pause-frames", p, SwitchPFCTx(prio)},
				CounterPath{pp + "watchdog-storms", p, SwitchPFCWatchdog(prio)},
				CounterPath{fmt.Sprintf("/qos/interfaces/interface[interface-id=%s]/output/queues/queue[name=%d]/state/ecn-marked-pkts", k, prio), p, SwitchECNMarked(prio)})
		}
	}
	return out
}

// SONiCOrigin is the origin under which a SONiC target serves COUNTERS_DB.
const SONiCOrigin = "sonic-counters"

// SONiCPaths are COUNTERS_DB's SAI counters: per-priority PFC frames on the
// port and WRED ECN marks and PFC watchdog deadlocks on the port's queue.
func SONiCPaths(ports []string, prios []int) []CounterPath {
	var out []CounterPath
	for _, p := range ports {
		base := SONiCOrigin + ":/COUNTERS/" + escapeElem(p) + "/"
		for _, prio := range prios {
			n := strconv.Itoa(prio)
			q := SONiCOrigin + ":/COUNTERS/" + escapeElem(p+":"+n) + "/"
			out = append(out,
				CounterPath{base + "SAI_PORT_STAT_PFC_" + n + "_RX_PKTS", p, SwitchPFCRx(prio)},
				CounterPath{base + "SAI_PORT_STAT_PFC_" + n + "_TX_PKTS", p, SwitchPFCTx(prio)},
				CounterPath{q + "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", p, SwitchECNMarked(prio)},
				CounterPath{q + "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED", p, SwitchPFCWatchdog(prio)})
		}
	}
	return out
}

// PathsFor picks the counter paths for a platform (renderer name).
func PathsFor(platform string, ports []string, prios []int) []CounterPath {
	if platform == "sonic" {
		return SONiCPaths(ports, prios)
	}
	return OpenConfigPaths(ports, prios)
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

// Read subscribes and returns every counter the target answered. Paths the
// target does not answer are left out (the platform does not expose them);
// that is an error only when none is answered.
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
	list := &gnmipb.SubscriptionList{Mode: gnmipb.SubscriptionList_ONCE, Encoding: gnmipb.Encoding_JSON_IETF, UpdatesOnly: false}
	if g.SampleInterval > 0 {
		list.Mode = gnmipb.SubscriptionList_STREAM
	}
	for _, cp := range g.Paths {
		p, err := gnmipath.Parse(cp.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: counter path %s: %w", g.Device, cp.Path, err)
		}
		want[gnmipath.Format(p)] = cp
		sub := &gnmipb.Subscription{Path: p}
		if g.SampleInterval > 0 {
			sub.Mode = gnmipb.SubscriptionMode_SAMPLE
			sub.SampleInterval = uint64(g.SampleInterval.Nanoseconds())
		}
		list.Subscription = append(list.Subscription, sub)
	}
	stream, err := g.Client.Subscribe(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: gNMI Subscribe: %w", g.Device, err)
	}
	if err := stream.Send(&gnmipb.SubscribeRequest{Request: &gnmipb.SubscribeRequest_Subscribe{Subscribe: list}}); err != nil {
		return nil, fmt.Errorf("%s: gNMI Subscribe: send request: %w", g.Device, err)
	}
	got := map[Key]uint64{}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: gNMI Subscribe: %w", g.Device, err)
		}
		if resp.GetSyncResponse() {
			break
		}
		n := resp.GetUpdate()
		if n == nil {
			continue
		}
		for _, u := range n.GetUpdate() {
			full := gnmipath.Format(gnmipath.Join(n.GetPrefix(), u.GetPath()))
			cp, ok := want[full]
			if !ok {
				continue
			}
			v, err := counterValue(u.GetVal())
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", g.Device, full, err)
			}
			got[Key{Device: g.Device, Port: cp.Port, Counter: cp.Counter}] = v
		}
	}
	if g.SampleInterval > 0 {
		_ = stream.CloseSend()
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
