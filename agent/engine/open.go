package engine

import (
	"context"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// OpenSwitch connects to a switch as plan does (transport, default port,
// credentials, TLS and host-key settings) for callers that read more than
// its configuration, such as the agent's counter subscriptions. It returns
// the transport too; the caller closes the driver.
func (e *Engine) OpenSwitch(ctx context.Context, r *intent.Resolved, sw *intent.Switch) (drivers.Driver, string, error) {
	dp, _, err := e.switchPlan(r, sw)
	if err != nil {
		return nil, "", err
	}
	drv, err := e.openDriver(ctx, &dp, devcfg.Scope{})
	return drv, dp.Transport, err
}

// switchPlan starts a switch's plan with how to reach it: platform,
// transport, address with the transport's default port, credentials and
// trust settings. Plan and OpenSwitch connect the same way through it.
func (e *Engine) switchPlan(r *intent.Resolved, sw *intent.Switch) (compliance.DevicePlan, *renderers.Entry, error) {
	dp := compliance.DevicePlan{Device: sw.Name, Kind: "switch", Platform: sw.Platform, Connection: connection(r, sw)}
	entry, err := e.renderers.Lookup(sw.Platform)
	if err != nil {
		return dp, nil, err
	}
	dp.Transport = entry.Transport(sw)
	if port, ok := defaultPorts[dp.Transport]; ok && sw.Address.Host != "" {
		dp.Address = sw.Address.WithDefaultPort(port)
	} else {
		dp.Address = sw.Address.String()
	}
	return dp, entry, nil
}
