package daemon

import (
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/devcfg"
)

func complianceStatus(s string) compliance.Status { return compliance.Status(s) }

// updateStates records each device's state from a drift check, updates
// its metrics and notifies the devices whose state changed. A device seen
// for the first time notifies only if it is not compliant, so a fresh
// agent does not announce a compliant fleet device by device. Devices
// absent from the check (left the intent or the shard) are forgotten.
func (a *Agent) updateStates(run *history.Run, p *compliance.Plan) {
	now := a.now().UTC()
	var changes []notify.DeviceChange
	persist := map[string]*history.DeviceState{}
	seen := map[string]bool{}
	a.mu.Lock()
	for _, d := range p.Devices {
		if d.Device == "(hosts)" {
			continue
		}
		seen[d.Device] = true
		prev, known := a.states[d.Device]
		worst, breaking, first := worstChange(d)
		st := history.DeviceState{Device: d.Device, Platform: d.Platform, State: string(d.Status), Since: prev.Since,
			Checked: now, RunID: run.ID, Error: d.Error, Effect: string(worst)}
		changed := !known || prev.State != st.State
		// A drift that turns breaking is news although the state stays.
		escalated := known && !changed && worst.Rank() > devcfg.Effect(prev.Effect).Rank()
		if changed {
			st.Since = now
		}
		if (changed && (known || d.Status != compliance.StatusCompliant)) || escalated {
			changes = append(changes, notify.DeviceChange{Device: d.Device, Platform: d.Platform, From: prev.State,
				To: st.State, Changes: len(d.Changes), Breaking: breaking, Severity: changeSeverity(d.Status, worst), Worst: first, Error: d.Error})
		}
		if known && prev.Platform != d.Platform {
			a.metrics.dropDevice(d.Device, prev.Platform)
		}
		a.states[d.Device] = st
		persist[d.Device] = &st
		a.metrics.setDevice(d.Device, d.Platform, d.Status)
	}
	for name, st := range a.states {
		if !seen[name] {
			delete(a.states, name)
			persist[name] = nil
			a.metrics.dropDevice(name, st.Platform)
		}
	}
	a.mu.Unlock()
	a.setStateCounts()
	if err := a.db.PutStates(persist); err != nil {
		a.log.Error("recording device states", zap.Error(err))
	}
	if len(changes) == 0 {
		return
	}
	ev := notify.Event{Fabric: run.Fabric, Shard: shardLabel(a), RunID: run.ID, RunKind: string(run.Kind),
		Commit: run.Commit, Time: now, Changes: changes}
	ev.Finish()
	for _, c := range ev.Changes {
		a.log.Info("device compliance changed", zap.String("device", c.Device), zap.String("from", c.From), zap.String("to", c.To),
			zap.String("severity", c.Severity))
	}
	if a.deps.Notifier != nil {
		a.deps.Notifier.Notify(ev)
	}
}

// worstChange is a device's worst lossless effect, how many differences
// break the class, and the first of the worst as the report prints it.
func worstChange(d compliance.DevicePlan) (devcfg.Effect, int, string) {
	var worst devcfg.Effect
	breaking, first := 0, ""
	for _, c := range d.Changes {
		if c.Effect == devcfg.EffectBreaks {
			breaking++
		}
		if c.Effect.Rank() > worst.Rank() || (worst == "" && c.Effect != "") {
			worst = c.Effect
			first = c.Where()
			if c.Action == devcfg.Modify {
				first = c.Where() + ": " + c.Old + " -> " + c.New
			}
		}
	}
	return worst, breaking, first
}

// changeSeverity: drift that breaks the lossless class is critical; drift
// that degrades it, and a device that cannot be checked, a warning.
func changeSeverity(s compliance.Status, worst devcfg.Effect) string {
	switch {
	case s == compliance.StatusDrifted && worst == devcfg.EffectBreaks:
		return notify.SeverityCritical
	case s == compliance.StatusDrifted, s == compliance.StatusError, s == compliance.StatusUnreachable, s == compliance.StatusConflict:
		return notify.SeverityWarning
	}
	return notify.SeverityInfo
}

func shardLabel(a *Agent) string {
	if a.cfg.Shard.Count <= 1 {
		return ""
	}
	return a.cfg.Shard.String()
}

// setStateCounts refreshes the per-state device counts.
func (a *Agent) setStateCounts() {
	counts := map[compliance.Status]int{}
	a.mu.RLock()
	for _, st := range a.states {
		counts[complianceStatus(st.State)]++
	}
	a.mu.RUnlock()
	for _, s := range deviceStates {
		a.metrics.devicesByState.WithLabelValues(string(s)).Set(float64(counts[s]))
	}
	a.metrics.drifted.Set(float64(counts[compliance.StatusDrifted]))
}
