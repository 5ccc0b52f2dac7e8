package ssh

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// pushEOS types the lines into a configuration session, which changes
// nothing until commit; any failure aborts the session. A confirm window
// commits with `commit timer`, and EOS rolls back unless
// `configure session NAME commit` follows in time. d.mu is held.
func (d *Driver) pushEOS(ctx context.Context, id string, patch devcfg.Patch, window time.Duration) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, patch); err != nil {
		return nil, err
	}
	if err := d.configure(ctx, "configure session "+id, patch.Lines, "", ""); err != nil {
		d.eosForget(ctx, id)
		return nil, err
	}
	commit := "commit"
	var secs int64
	if window > 0 {
		secs = ceilUnits(window, time.Second)
		commit = "commit timer " + hms(secs)
	}
	if _, err := d.send(ctx, "commit", commit); err != nil {
		d.eosForget(ctx, id)
		return nil, err
	}
	if window == 0 {
		return confirmed{id: id}, nil
	}
	d.log.Info("change committed with a commit timer; EOS rolls it back unless confirmed", zap.String("change", id), zap.String("timer", hms(secs)))
	return d.newDevicePending(id, time.Duration(secs)*time.Second, "configure session "+id+" commit", "configure session "+id+" abort"), nil
}

// eosForget removes a failed session so it does not linger on the device;
// the running configuration was never touched.
func (d *Driver) eosForget(ctx context.Context, id string) {
	cctx, cancel := d.cleanupContext(ctx)
	defer cancel()
	if d.conn != nil {
		d.sendQuiet(cctx, "push", "abort")
	}
	if _, err := d.ensure(cctx); err != nil {
		return
	}
	d.sendQuiet(cctx, "push", "no configure session "+id)
}
