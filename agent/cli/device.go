package cli

import (
	"context"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
)

// readDevice connects to a planned device as apply does (its transport,
// address, credentials by reference, trust anchors and the unsafe flags
// given) and reads what rocefab owns on it within scope. show and the
// rollback preview use it; they change nothing.
func (a *app) readDevice(ctx context.Context, dp compliance.DevicePlan, scope devcfg.Scope) (*drivers.Running, error) {
	entry, err := a.renderers.Lookup(dp.Platform)
	if err != nil {
		return nil, err
	}
	creds, err := a.resolveSecret(dp.Connection)
	if err != nil {
		return nil, &drivers.DeviceError{Device: dp.Device, Step: "credentials", Err: err}
	}
	timeout := a.v.GetDuration("timeout")
	opt := drivers.Options{
		Device: dp.Device, Address: dp.Address, Platform: entry.Attrs.Platform, Scope: scope,
		Creds: creds, Netns: dp.Connection.Netns, Timeout: timeout, Retries: a.v.GetInt("retries"),
		TLS: drivers.TLSOptions{CAFile: dp.Connection.CABundle, CertFile: dp.Connection.ClientCert,
			KeyFile: dp.Connection.ClientKey, ServerName: dp.Connection.ServerName, Insecure: a.flagOnly("insecure")},
		SSH:    drivers.SSHOptions{KnownHostsFile: dp.Connection.KnownHosts, AcceptNew: a.flagOnly("ssh-accept-new")},
		Logger: a.log.With(zap.String("device", dp.Device), zap.String("platform", dp.Platform)),
		Files:  &drivers.FileCache{},
	}
	octx, cancel := context.WithTimeout(ctx, timeout)
	drv, err := a.drivers.Open(octx, dp.Transport, opt)
	cancel()
	if err != nil {
		return nil, err
	}
	defer drv.Close()
	fctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return drv.Fetch(fctx)
}
