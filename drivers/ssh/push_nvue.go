package ssh

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// pushNVUE stages `nv set`/`nv unset` lines in a pending revision and
// applies it; a failure detaches the revision, so nothing is applied. A
// confirm window uses `nv config apply --confirm <N>s`, which NVUE rolls
// back unless `nv config apply --confirm-yes` follows. d.mu is held.
func (d *Driver) pushNVUE(ctx context.Context, id string, patch devcfg.Patch, window time.Duration) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, patch); err != nil {
		return nil, err
	}
	detach := func() {
		cctx, cancel := d.cleanupContext(ctx)
		defer cancel()
		if _, err := d.ensure(cctx); err == nil {
			d.sendQuiet(cctx, "push", "nv config detach")
		}
	}
	// Start from a clean pending revision: nobody's half-staged edits.
	if _, err := d.send(ctx, "push", "nv config detach"); err != nil {
		return nil, err
	}
	if err := d.configure(ctx, "", patch.Lines, "", ""); err != nil {
		detach()
		return nil, err
	}
	apply := "nv config apply -y"
	var secs int64
	if window > 0 {
		secs = ceilUnits(window, time.Second)
		apply = fmt.Sprintf("nv config apply --confirm %ds -y", secs)
	}
	if _, err := d.send(ctx, "commit", apply); err != nil {
		detach()
		return nil, err
	}
	if window == 0 {
		return confirmed{id: id}, nil
	}
	d.log.Info("change applied with --confirm; NVUE rolls it back unless confirmed", zap.String("change", id), zap.Int64("seconds", secs))
	return d.newDevicePending(id, time.Duration(secs)*time.Second, "nv config apply --confirm-yes", "nv config apply --confirm-no"), nil
}
