package counters

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// Key names one counter: the device (host or switch), its port (an RDMA
// port "mlx5_0/1", a netdev, or a switch interface) and the counter. It
// lives in devcfg/observe, where the platforms' parsers make samples.
type Key = observe.Key

// Sample is one counter reading.
type Sample = observe.Sample

// Source reads a set of counters, e.g. one host's RDMA ports or one
// switch's RoCE ports.
type Source interface {
	// Name is the device the source reads, for error messages.
	Name() string
	Read(ctx context.Context) ([]Sample, error)
}

// Snapshot is every counter read at one moment.
type Snapshot struct {
	Taken  time.Time      `json:"taken"`
	Values map[Key]uint64 `json:"-"`
	Errors []string       `json:"errors,omitempty"`
}

// Sampler reads all its sources into a snapshot.
type Sampler struct {
	Sources []Source
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Snapshot reads every source. A source that fails (wholly or for some
// ports) is recorded in Snapshot.Errors and everything it did read is kept, so one unreachable switch
// does not hide the hosts' counters; the error is non-nil only when every
// source failed.
func (s Sampler) Snapshot(ctx context.Context) (*Snapshot, error) {
	now := s.Now
	if now == nil {
		now = time.Now
	}
	snap := &Snapshot{Taken: now(), Values: map[Key]uint64{}}
	var errs []error
	for _, src := range s.Sources {
		samples, err := src.Read(ctx)
		if err != nil {
			snap.Errors = append(snap.Errors, fmt.Sprintf("%s: %v", src.Name(), err))
			if len(samples) == 0 {
				errs = append(errs, err)
			}
		}
		for _, smp := range samples {
			snap.Values[smp.Key] = smp.Value
		}
	}
	if len(s.Sources) > 0 && len(errs) == len(s.Sources) {
		return snap, fmt.Errorf("read counters: %w", errors.Join(errs...))
	}
	return snap, nil
}

// Kind groups counters by what a rise means.
type Kind string

const (
	// KindCongestion: pause frames, CNPs, ECN marks; expected under load,
	// worth reporting.
	KindCongestion Kind = "congestion"
	// KindError: retransmissions, sequence errors, drops; a lossless
	// fabric should not move them.
	KindError Kind = "error"
	// KindTraffic: byte and packet counts.
	KindTraffic Kind = "traffic"
)

// Change is one counter that moved between two snapshots.
type Change struct {
	Key
	Label  string `json:"label"`
	Kind   Kind   `json:"kind"`
	Before uint64 `json:"before"`
	After  uint64 `json:"after"`
	Delta  uint64 `json:"delta"`
	// Reset is set when the counter went backwards (driver reload, clear
	// counters, wrap); Delta is then the value after the reset.
	Reset bool `json:"reset,omitempty"`
}

// Delta is what moved between two snapshots, sorted by device, port and
// counter. Counters present in only one snapshot are left out.
type Delta struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	Changes []Change  `json:"changes"`
	Errors  []string  `json:"errors,omitempty"`
}

// Diff compares two snapshots.
func Diff(before, after *Snapshot) Delta {
	d := Delta{From: before.Taken, To: after.Taken, Changes: []Change{}}
	d.Errors = append(append(d.Errors, before.Errors...), after.Errors...)
	for k, a := range after.Values {
		b, ok := before.Values[k]
		if !ok || a == b {
			continue
		}
		c := Change{Key: k, Label: Label(k.Counter), Kind: KindOf(k.Counter), Before: b, After: a}
		if a < b {
			c.Reset, c.Delta = true, a
		} else {
			c.Delta = a - b
		}
		d.Changes = append(d.Changes, c)
	}
	sort.Slice(d.Changes, func(i, j int) bool {
		x, y := d.Changes[i].Key, d.Changes[j].Key
		if x.Device != y.Device {
			return x.Device < y.Device
		}
		if x.Port != y.Port {
			return x.Port < y.Port
		}
		return x.Counter < y.Counter
	})
	return d
}

// Notable returns the congestion and error changes, the ones worth a
// sentence.
func (d Delta) Notable() []Change {
	var out []Change
	for _, c := range d.Changes {
		if c.Kind != KindTraffic {
			out = append(out, c)
		}
	}
	return out
}

// Messages are one sentence per notable change, e.g. "priority 3 pause
// frames received rose by 1,204 on leaf2 Ethernet1/5 during the probe".
// during names the interval ("during the probe"); empty leaves it out.
func (d Delta) Messages(during string) []string {
	var out []string
	for _, c := range d.Notable() {
		out = append(out, c.Message(during))
	}
	return out
}

// Message describes one change.
func (c Change) Message(during string) string {
	var b strings.Builder
	b.WriteString(c.Label)
	if c.Reset {
		fmt.Fprintf(&b, " was reset (from %s to %s)", FormatCount(c.Before), FormatCount(c.After))
	} else {
		fmt.Fprintf(&b, " rose by %s", FormatCount(c.Delta))
	}
	fmt.Fprintf(&b, " on %s %s", c.Device, c.Port)
	if during != "" {
		b.WriteString(" " + during)
	}
	return b.String()
}

// FormatCount prints n with thousands separators: 1204 → "1,204".
func FormatCount(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	head := len(s) % 3
	if head > 0 {
		b.WriteString(s[:head])
	}
	for i := head; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
