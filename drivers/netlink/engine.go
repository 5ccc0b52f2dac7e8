package netlink

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
)

// step is one managed setting: how to read it, write it, and record it.
// Values are canonical strings, so the engine can restore any setting to
// exactly what it read.
type step struct {
	setting hostcontract.Setting
	read    func(ctx context.Context) (string, error)
	write   func(ctx context.Context, value string) error
	// matches reports whether the current value satisfies the wanted one;
	// nil means equal strings.
	matches func(current, want string) bool
	// observe records a value into the observed NIC settings.
	observe func(n *devcfg.NICSettings, value string)
	// explain, when set, says why a read-back differs from what was written.
	explain func(got string) string
}

func (s *step) ok(current string) bool {
	if s.matches != nil {
		return s.matches(current, s.setting.Want)
	}
	return current == s.setting.Want
}

// restoreTimeout bounds a rollback that runs after the caller's context
// ended: a cancelled apply must still restore what it changed.
const restoreTimeout = 30 * time.Second

// readAll reads every step's current value and classifies it; errs holds
// each step's read error.
func readAll(ctx context.Context, steps []*step) (out []hostcontract.Setting, errs []error) {
	out = make([]hostcontract.Setting, len(steps))
	errs = make([]error, len(steps))
	for i, s := range steps {
		cur, err := s.read(ctx)
		st := s.setting
		switch {
		case err != nil && errors.Is(err, drivers.ErrUnsupported):
			st.Status, st.Message = hostcontract.StatusUnsupported, unsupportedMsg(err)
		case err != nil:
			st.Status, st.Message = hostcontract.StatusFailed, "read: "+err.Error()
		case s.ok(cur):
			st.Status, st.Current = hostcontract.StatusOK, cur
		default:
			st.Status, st.Current = hostcontract.StatusPending, cur
		}
		out[i], errs[i] = st, err
	}
	return out, errs
}

// applyAll reads every current value first, then writes the pending ones
// in order and reads each back. When a write or read-back fails it restores
// the earlier values of everything it changed, in reverse order, and
// returns the error: a host is never left half-configured.
func applyAll(ctx context.Context, log *zap.Logger, steps []*step) ([]hostcontract.Setting, bool, error) {
	settings, readErrs := readAll(ctx, steps)
	for i, st := range settings {
		if st.Status == hostcontract.StatusFailed {
			skipPending(settings)
			return settings, false, fmt.Errorf("%s %s: cannot read the current value, nothing was changed: %w", st.NIC, st.Name, readErrs[i])
		}
	}
	var changed []int
	fail := func(i int, err error) ([]hostcontract.Setting, bool, error) {
		s := steps[i]
		settings[i].Status, settings[i].Message = hostcontract.StatusFailed, err.Error()
		log.Warn("host setting failed, restoring earlier values", zap.String("nic", s.setting.NIC), zap.String("setting", s.setting.Name), zap.Error(err))
		restore(ctx, log, steps, settings, changed)
		skipPending(settings)
		return settings, true, fmt.Errorf("%s %s: %w", s.setting.NIC, s.setting.Name, err)
	}
	for i, s := range steps {
		if settings[i].Status != hostcontract.StatusPending {
			continue
		}
		err := ctx.Err()
		if err == nil {
			err = s.write(ctx, s.setting.Want)
		}
		if err != nil && errors.Is(err, drivers.ErrUnsupported) {
			settings[i].Status, settings[i].Message = hostcontract.StatusUnsupported, unsupportedMsg(err)
			continue
		}
		if ctx.Err() == nil {
			// Even a failed write may have changed part of the setting (an
			// APP entry added, its old one not yet removed): restore it too.
			changed = append(changed, i)
		}
		if err != nil {
			return fail(i, err)
		}
		settings[i].Status = hostcontract.StatusChanged
	}
	// Read back after every write: some settings follow from others (mlx5
	// takes DSCP trust from the DSCP APP entries).
	for _, i := range changed {
		s := steps[i]
		got, err := s.read(ctx)
		if err == nil && !s.ok(got) {
			err = fmt.Errorf("wrote %q but it reads back %q", s.setting.Want, got)
			if s.explain != nil {
				err = fmt.Errorf("%w: %s", err, s.explain(got))
			}
		}
		if err != nil {
			return fail(i, err)
		}
	}
	return settings, false, nil
}

// restore writes back the values read before apply, newest change first.
func restore(ctx context.Context, log *zap.Logger, steps []*step, settings []hostcontract.Setting, changed []int) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
	defer cancel()
	for j := len(changed) - 1; j >= 0; j-- {
		i := changed[j]
		prev := settings[i].Current
		failedHere := settings[i].Status == hostcontract.StatusFailed
		if failedHere {
			if cur, err := steps[i].read(rctx); err == nil && cur == prev {
				continue // the failed write changed nothing
			}
		}
		if err := steps[i].write(rctx, prev); err != nil {
			log.Error("restore failed", zap.String("nic", steps[i].setting.NIC), zap.String("setting", steps[i].setting.Name), zap.Error(err))
			settings[i].Status = hostcontract.StatusFailed
			settings[i].Message = joinMsg(settings[i].Message, fmt.Sprintf("restoring %q failed: %v", prev, err))
			continue
		}
		if failedHere {
			settings[i].Message = joinMsg(settings[i].Message, fmt.Sprintf("restored %q", prev))
			continue
		}
		settings[i].Status = hostcontract.StatusRolledBack
		settings[i].Message = fmt.Sprintf("restored %q because a later setting failed", prev)
	}
}

// unsupportedMsg drops the sentinel's words, which the status already says.
func unsupportedMsg(err error) string {
	return strings.TrimPrefix(err.Error(), drivers.ErrUnsupported.Error()+": ")
}

func skipPending(settings []hostcontract.Setting) {
	for i := range settings {
		if settings[i].Status == hostcontract.StatusPending {
			settings[i].Status = hostcontract.StatusSkipped
			settings[i].Message = "not applied: an earlier setting failed"
		}
	}
}

func joinMsg(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// observed builds the settings the host has now, from what was read (plan)
// or applied (apply). Unreadable settings are left out.
func observed(host string, desired *devcfg.HostSettings, steps []*step, settings []hostcontract.Setting) *devcfg.HostSettings {
	out := &devcfg.HostSettings{Host: host}
	index := map[string]int{}
	for _, n := range desired.NICs {
		index[n.Netdev] = len(out.NICs)
		out.NICs = append(out.NICs, devcfg.NICSettings{Netdev: n.Netdev, RDMADevice: n.RDMADevice, RDMAPort: n.RDMAPort, VLANNetdev: n.VLANNetdev, VLAN: n.VLAN})
	}
	for i, s := range steps {
		if s.observe == nil {
			continue
		}
		var v string
		switch settings[i].Status {
		case hostcontract.StatusOK, hostcontract.StatusPending, hostcontract.StatusRolledBack, hostcontract.StatusSkipped:
			v = settings[i].Current
		case hostcontract.StatusChanged:
			v = s.setting.Want
		default:
			continue
		}
		if k, ok := index[s.setting.NIC]; ok {
			s.observe(&out.NICs[k], v)
		}
	}
	return out
}
