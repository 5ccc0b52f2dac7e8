package daemon

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
)

// pollSSH reads a switch driven over SSH, which cannot stream, with its
// platform's show commands with JSON output every counters interval, on
// the connection subscribe opened. It returns when a read answers nothing
// (subscribe's caller reconnects with backoff) or ctx ends, and reports
// whether any counter arrived.
func (s *switchStreams) pollSSH(ctx context.Context, sw *intent.Switch, drv drivers.Driver) (bool, error) {
	ports := make([]string, len(sw.Ports))
	for i, pt := range sw.Ports {
		ports[i] = pt.Name
	}
	// The same source `rocefab probe` reads around a run, here with the
	// priorities the detectors watch.
	src, ok := fleet.ShowJSONSource(s.a.deps.Renderers, sw, drv, ports, counterPriorities(sw.Policy))
	if !ok {
		return false, fmt.Errorf("%w; %s (%s) has no JSON counter commands over SSH", errNoTelemetry, sw.Name, sw.Platform)
	}
	t := time.NewTicker(s.a.cfg.CountersInterval)
	defer t.Stop()
	got := false
	for {
		samples, err := src.Read(ctx)
		if ctx.Err() != nil {
			return got, ctx.Err()
		}
		if len(samples) == 0 {
			return got, err
		}
		got = true
		s.a.hub.set(roleSwitch, samples, s.a.now())
		if err != nil {
			s.a.log.Debug("some switch counter commands failed", zap.String("device", sw.Name), zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-t.C:
		}
	}
}
