package fleet

import (
	"context"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
)

// ReadDevice connects to a planned device as apply does (its transport,
// address, credentials by reference, trust anchors and the unsafe flags
// given) and reads what rocefab owns on it within scope. It changes
// nothing.
func (f *Fleet) ReadDevice(ctx context.Context, dp compliance.DevicePlan, scope devcfg.Scope) (*drivers.Running, error) {
	entry, err := f.Renderers.Lookup(dp.Platform)
	if err != nil {
		return nil, err
	}
	creds, err := f.Secrets(dp.Connection)
	if err != nil {
		return nil, &drivers.DeviceError{Device: dp.Device, Step: "credentials", Err: err}
	}
	opt := drivers.Options{
		Device: dp.Device, Address: dp.Address, Platform: entry.Attrs.Platform, Scope: scope,
		Creds: creds, Netns: dp.Connection.Netns, Timeout: f.Timeout, Retries: f.Retries,
		SingleOriginModels: f.Renderers.SingleOriginModels(),
		TLS: drivers.TLSOptions{CAFile: dp.Connection.CABundle, CertFile: dp.Connection.ClientCert,
			KeyFile: dp.Connection.ClientKey, ServerName: dp.Connection.ServerName, Insecure: f.Insecure},
		SSH:    drivers.SSHOptions{KnownHostsFile: dp.Connection.KnownHosts, AcceptNew: f.SSHAcceptNew},
		Logger: f.log().With(zap.String("device", dp.Device), zap.String("platform", dp.Platform)),
		Files:  &drivers.FileCache{},
	}
	octx, cancel := context.WithTimeout(ctx, f.Timeout)
	drv, err := f.Drivers.Open(octx, dp.Transport, opt)
	cancel()
	if err != nil {
		return nil, err
	}
	defer drv.Close()
	fctx, cancel := context.WithTimeout(ctx, f.Timeout)
	defer cancel()
	return drv.Fetch(fctx)
}
