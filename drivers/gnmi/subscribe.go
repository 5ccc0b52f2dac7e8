package gnmi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// Mode is how a subscription reports.
type Mode int

const (
	// Once reports every value once, then ends.
	Once Mode = iota
	// Sample reports every value each interval until the context ends.
	Sample
)

// Counter is one reported counter value.
type Counter struct {
	Path  string // canonical path string, origin-prefixed
	Value uint64
	Time  time.Time
}

// Batch is one notification's counters; Err ends the stream.
type Batch struct {
	Counters []Counter
	// Sync is true on the batch that completes the initial report.
	Sync bool
	Err  error
}

// Subscribe streams the counters at or below paths (origin-prefixed path
// strings, optionally "TARGET@path" for a target such as SONiC's
// COUNTERS_DB; all paths of one call share it). Once ends after the initial report; Sample repeats every
// interval until ctx ends. The channel closes at the end; a failure comes
// as a last Batch with Err. Non-numeric leaves are skipped.
func (d *Driver) Subscribe(ctx context.Context, paths []string, mode Mode, interval time.Duration) (<-chan Batch, error) {
	list := &gnmipb.SubscriptionList{Encoding: d.encoding, Mode: gnmipb.SubscriptionList_ONCE}
	if mode == Sample {
		if interval <= 0 {
			return nil, fmt.Errorf("gnmi: sample interval must be positive")
		}
		list.Mode = gnmipb.SubscriptionList_STREAM
	}
	target := ""
	for i, p := range paths {
		t, rest := gnmipath.SplitTarget(p)
		if i > 0 && t != target {
			// One prefix per request, so one target.
			return nil, d.deviceErr("subscribe", p, "", fmt.Errorf("paths name targets %q and %q; subscribe to each on its own", target, t))
		}
		target = t
		pp, err := gnmipath.Parse(rest)
		if err != nil {
			return nil, d.deviceErr("subscribe", p, "", err)
		}
		s := &gnmipb.Subscription{Path: pp}
		if mode == Sample {
			s.Mode = gnmipb.SubscriptionMode_SAMPLE
			s.SampleInterval = uint64(interval.Nanoseconds())
		}
		list.Subscription = append(list.Subscription, s)
	}
	if target != "" {
		list.Prefix = &gnmipb.Path{Target: target}
	}
	var stream gnmipb.GNMI_SubscribeClient
	cctx, cancel := context.WithCancel(ctx)
	err := d.retry(ctx, func(context.Context) error {
		var err error
		// The stream outlives the per-call timeout; only opening it is bounded.
		stream, err = d.client.Subscribe(cctx)
		if err == nil {
			err = stream.Send(&gnmipb.SubscribeRequest{Request: &gnmipb.SubscribeRequest_Subscribe{Subscribe: list}})
		}
		return d.classify("subscribe", "", err)
	})
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan Batch, 16)
	go func() {
		defer close(out)
		defer cancel()
		for {
			resp, err := stream.Recv()
			if err != nil {
				if errors.Is(err, io.EOF) || ctx.Err() != nil {
					return
				}
				sendBatch(ctx, out, Batch{Err: d.classify("subscribe", "", err)})
				return
			}
			var b Batch
			switch r := resp.GetResponse().(type) {
			case *gnmipb.SubscribeResponse_SyncResponse:
				b.Sync = r.SyncResponse
			case *gnmipb.SubscribeResponse_Update:
				b.Counters = notificationCounters(r.Update)
			}
			if !sendBatch(ctx, out, b) {
				return
			}
			if b.Sync && mode == Once {
				return
			}
		}
	}()
	return out, nil
}

func sendBatch(ctx context.Context, out chan<- Batch, b Batch) bool {
	select {
	case out <- b:
		return true
	case <-ctx.Done():
		return false
	}
}

// Counters reads the counters at or below paths once (Subscribe ONCE),
// within the per-call timeout.
func (d *Driver) Counters(ctx context.Context, paths []string) (map[string]uint64, error) {
	cctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
	defer cancel()
	ch, err := d.Subscribe(cctx, paths, Once, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	synced := false
	for b := range ch {
		if b.Err != nil {
			return nil, b.Err
		}
		for _, c := range b.Counters {
			out[c.Path] = c.Value
		}
		synced = synced || b.Sync
	}
	if !synced {
		if cctx.Err() != nil {
			return nil, d.classify("subscribe", "", cctx.Err())
		}
		return nil, d.deviceErr("subscribe", "", "", errors.New("stream ended before the initial report completed"))
	}
	return out, nil
}

// Deltas is after minus before for every counter in both; a counter that
// went down (cleared or wrapped) reports its new value.
func Deltas(before, after map[string]uint64) map[string]uint64 {
	out := make(map[string]uint64, len(after))
	for k, a := range after {
		b, ok := before[k]
		switch {
		case !ok:
			continue
		case a >= b:
			out[k] = a - b
		default:
			out[k] = a
		}
	}
	return out
}

// notificationCounters are the counters of one notification: every
// numeric update, and every numeric leaf of a JSON subtree (SONiC answers
// a port's Queues or Pfcwd that way). Non-numeric leaves are skipped.
func notificationCounters(n *gnmipb.Notification) []Counter {
	ts := time.Unix(0, n.GetTimestamp())
	var out []Counter
	for _, u := range n.GetUpdate() {
		full := gnmipath.Join(n.GetPrefix(), u.GetPath())
		if v, ok := counterValue(u.GetVal()); ok {
			out = append(out, Counter{Path: gnmipath.Format(full), Value: v, Time: ts})
			continue
		}
		for _, c := range counterLeaves(full, u.GetVal()) {
			c.Time = ts
			out = append(out, c)
		}
	}
	return out
}
