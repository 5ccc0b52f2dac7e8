package telemetry

import (
	"errors"
	"fmt"
	"time"
)

// Config holds every threshold. Start from DefaultConfig; docs/telemetry.md
// gives the reasoning behind each default.
type Config struct {
	// Interval is how often devices are sampled.
	Interval time.Duration
	// MaxGap: an interval longer than this between two samples of a port
	// still gives its average rates, but does not count towards a
	// sustained condition (a long gap is not evidence of "for 30 s").
	MaxGap time.Duration
	// DefaultSpeed is the port speed in bits/s assumed where the intent
	// gives none; it bounds packet counters and scales the pause-frame
	// estimate.
	DefaultSpeed float64

	Storm         StormConfig
	Propagation   PropagationConfig
	Drops         DropConfig
	ECNWithoutCNP ECNConfig
	CNPIgnored    CNPIgnoredConfig
	WrongQueue    WrongQueueConfig
	Retransmits   RetransmitConfig
}

// Hold is how long a condition must last before it is a finding (For)
// and how long it must be absent before the finding clears (Clear).
type Hold struct {
	For   time.Duration
	Clear time.Duration
}

// StormConfig: pfc_storm.
type StormConfig struct {
	Hold
	// PausedFraction of an interval a lossless queue must be paused to be
	// storming. SONiC's PFC watchdog on NVIDIA switches took pause
	// blocking more than 80 % of its detection window as a storm (later
	// 99 %, sonic-swss #3036).
	PausedFraction float64
	// ClearFraction: a storming queue stays storming until it is paused
	// less than this (hysteresis).
	ClearFraction float64
}

// PropagationConfig: pause_propagation.
type PropagationConfig struct {
	Hold
	// PausedFraction makes a paused port a hop of a spreading pause.
	PausedFraction float64
	// ClearFraction keeps a hop while a spread is already reported.
	ClearFraction float64
	// MinHops is the number of paused links, from the source outward,
	// that make a spread (2: the pause crossed a switch).
	MinHops int
}

// DropConfig: lossless_drop and cnp_drop.
type DropConfig struct {
	Hold
	// MinDrops in one interval; a lossless class should drop nothing.
	MinDrops uint64
}

// ECNConfig: ecn_without_cnp.
type ECNConfig struct {
	Hold
	// MinCE CE-marked packets in one interval with no CNP sent.
	MinCE uint64
}

// CNPIgnoredConfig: cnp_ignored.
type CNPIgnoredConfig struct {
	Hold
	// MinIgnored CNPs ignored in one interval, and at least Share of all
	// CNPs received.
	MinIgnored uint64
	Share      float64
}

// WrongQueueConfig: wrong_queue.
type WrongQueueConfig struct {
	Hold
	// MinRate of RoCE, in packets/s, before the queues are judged: below
	// it other traffic on a lossy queue hides whether RoCE is there.
	// RoCE is on the wrong queue when less than Share of it is counted on
	// the RoCE priority and a lossy one carries at least Share of the
	// rest.
	MinRate float64
	Share   float64
}

// RetransmitConfig: retransmits.
type RetransmitConfig struct {
	Hold
	// MinEvents of out_of_sequence, packet_seq_err and
	// local_ack_timeout_err together in one interval. For makes one-off
	// events (a peer process that died, a burst of timeouts that straddles
	// two samples) not count.
	MinEvents uint64
}

// DefaultConfig is the documented default.
func DefaultConfig() Config {
	return Config{
		Interval:     10 * time.Second,
		MaxGap:       35 * time.Second,
		DefaultSpeed: 400e9,
		Storm:        StormConfig{Hold: Hold{For: 30 * time.Second, Clear: time.Minute}, PausedFraction: 0.8, ClearFraction: 0.5},
		Propagation: PropagationConfig{Hold: Hold{For: 30 * time.Second, Clear: time.Minute},
			PausedFraction: 0.2, ClearFraction: 0.1, MinHops: 2},
		Drops:         DropConfig{Hold: Hold{Clear: 10 * time.Minute}, MinDrops: 1},
		ECNWithoutCNP: ECNConfig{Hold: Hold{For: 20 * time.Second, Clear: 5 * time.Minute}, MinCE: 1000},
		CNPIgnored:    CNPIgnoredConfig{Hold: Hold{For: 20 * time.Second, Clear: 5 * time.Minute}, MinIgnored: 100, Share: 0.5},
		WrongQueue:    WrongQueueConfig{Hold: Hold{For: 20 * time.Second, Clear: 5 * time.Minute}, MinRate: 100_000, Share: 0.5},
		Retransmits:   RetransmitConfig{Hold: Hold{For: 30 * time.Second, Clear: 10 * time.Minute}, MinEvents: 1},
	}
}

// ErrConfig is wrapped by every Validate error.
var ErrConfig = errors.New("telemetry config")

// Validate reports the first threshold out of range.
func (c Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, field, fmt.Sprintf(format, args...))
	}
	if c.Interval <= 0 {
		return bad("interval", "must be positive, got %v", c.Interval)
	}
	if c.MaxGap < c.Interval {
		return bad("maxGap", "%v is shorter than the interval %v", c.MaxGap, c.Interval)
	}
	if c.DefaultSpeed <= 0 {
		return bad("defaultSpeed", "must be positive, got %g", c.DefaultSpeed)
	}
	frac := func(field string, hi, lo float64) error {
		if !(hi > 0 && hi <= 1) {
			return bad(field+".pausedFraction", "must be in (0, 1], got %g", hi)
		}
		if !(lo > 0 && lo <= hi) {
			return bad(field+".clearFraction", "must be in (0, pausedFraction], got %g", lo)
		}
		return nil
	}
	if err := frac("storm", c.Storm.PausedFraction, c.Storm.ClearFraction); err != nil {
		return err
	}
	if err := frac("propagation", c.Propagation.PausedFraction, c.Propagation.ClearFraction); err != nil {
		return err
	}
	if c.Propagation.MinHops < 1 {
		return bad("propagation.minHops", "must be at least 1, got %d", c.Propagation.MinHops)
	}
	if !(c.WrongQueue.MinRate > 0) {
		return bad("wrongQueue.minRate", "must be positive, got %g", c.WrongQueue.MinRate)
	}
	for _, s := range []struct {
		name  string
		share float64
	}{{"cnpIgnored.share", c.CNPIgnored.Share}, {"wrongQueue.share", c.WrongQueue.Share}} {
		if !(s.share > 0 && s.share <= 1) {
			return bad(s.name, "must be in (0, 1], got %g", s.share)
		}
	}
	for _, m := range []struct {
		name string
		v    uint64
	}{{"drops.minDrops", c.Drops.MinDrops}, {"ecnWithoutCnp.minCE", c.ECNWithoutCNP.MinCE},
		{"cnpIgnored.minIgnored", c.CNPIgnored.MinIgnored},
		{"retransmits.minEvents", c.Retransmits.MinEvents}} {
		if m.v == 0 {
			return bad(m.name, "must be at least 1")
		}
	}
	for _, h := range []struct {
		name string
		h    Hold
	}{{"storm", c.Storm.Hold}, {"propagation", c.Propagation.Hold}, {"drops", c.Drops.Hold},
		{"ecnWithoutCnp", c.ECNWithoutCNP.Hold}, {"cnpIgnored", c.CNPIgnored.Hold},
		{"wrongQueue", c.WrongQueue.Hold}, {"retransmits", c.Retransmits.Hold}} {
		if h.h.For < 0 || h.h.Clear <= 0 {
			return bad(h.name, "for must be ≥ 0 and clear > 0, got %v and %v", h.h.For, h.h.Clear)
		}
	}
	return nil
}

// hold is the Hold of a finding code.
func (c Config) hold(code Code) Hold {
	switch code {
	case CodePFCStorm:
		return c.Storm.Hold
	case CodePausePropagation:
		return c.Propagation.Hold
	case CodeLosslessDrop, CodeCNPDrop:
		return c.Drops.Hold
	case CodeECNWithoutCNP:
		return c.ECNWithoutCNP.Hold
	case CodeCNPIgnored:
		return c.CNPIgnored.Hold
	case CodeWrongQueue:
		return c.WrongQueue.Hold
	case CodeRetransmits:
		return c.Retransmits.Hold
	}
	return Hold{Clear: time.Minute}
}
