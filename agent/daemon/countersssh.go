package daemon

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters/showjson"
)

// pollSSH reads a switch driven over SSH, which cannot stream, with its
// platform's show commands with JSON output every counters interval, on
// the connection subscribe opened. It returns when a read answers nothing
// (subscribe's caller reconnects with backoff) or ctx ends, and reports
// whether any counter arrived.
func (s *switchStreams) pollSSH(ctx context.Context, sw *intent.Switch, drv drivers.Driver) (bool, error) {
	sh, ok := drv.(showjson.Shower)
	p, known := showjson.For(s.a.deps.Renderers, sw.Platform)
	if !ok || !known {
		return false, fmt.Errorf("%w; %s (%s) has no JSON counter commands over SSH", errNoTelemetry, sw.Name, sw.Platform)
	}
	ports := make([]string, len(sw.Ports))
	for i, pt := range sw.Ports {
		ports[i] = pt.Name
	}
	src := showjson.Source{Device: sw.Name, Shell: sh, Platform: p, Ports: ports, Prios: counterPriorities(sw.Policy)}
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
