package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/drivers/ssh"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/consistency"
)

// fleetHosts puts hosts into the central plan and apply. Hosts in a
// network namespace on this machine (the lab, the demo) and this machine
// itself run in-process; every other host runs `rocefab host plan|apply`
// over SSH through the host JSON contract.
type fleetHosts struct {
	a     *app
	paths []string
	ssh   *ssh.Exec

	mu  sync.Mutex // guards res, loaded once for saved plans
	res *intent.Resolved
}

var _ engine.HostRunner = (*fleetHosts)(nil)

func (a *app) newFleetHosts(res *intent.Resolved, paths []string) *fleetHosts {
	f := &fleetHosts{a: a, res: res, paths: paths}
	f.ssh = a.hostExec(f.intent)
	return f
}

// hostExec runs commands on the intent's hosts over SSH, with host keys
// checked against the intent's known_hosts (or ~/.ssh/known_hosts) and
// credentials by reference.
func (a *app) hostExec(load func() (*intent.Resolved, error)) *ssh.Exec {
	e := &ssh.Exec{AcceptNew: a.flagOnly("ssh-accept-new"), Timeout: a.v.GetDuration("timeout"), Logger: a.log}
	e.Resolve = func(name string) (ssh.ExecTarget, error) {
		res, err := load()
		if err != nil {
			return ssh.ExecTarget{}, err
		}
		if e.KnownHostsFile == "" {
			e.KnownHostsFile = res.Security.KnownHosts
		}
		h := res.Host(name)
		if h == nil {
			return ssh.ExecTarget{}, fmt.Errorf("host %s is not in the intent", name)
		}
		if h.Address.Host == "" {
			return ssh.ExecTarget{}, fmt.Errorf("host %s has no address to reach it over SSH", name)
		}
		creds, err := a.resolveSecret(compliance.Connection{Username: h.Creds.Username, UsernameEnv: h.Creds.UsernameEnv,
			PasswordEnv: h.Creds.PasswordEnv, PasswordFile: h.Creds.PasswordFile})
		if err != nil {
			return ssh.ExecTarget{}, err
		}
		return ssh.ExecTarget{Address: ssh.ExecAddress(h.Address.Host, h.Address.Port), Creds: creds}, nil
	}
	return e
}

func (f *fleetHosts) intent() (*intent.Resolved, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.res != nil {
		return f.res, nil
	}
	res, err := f.a.loadIntent(f.paths)
	if err != nil {
		return nil, fmt.Errorf("hosts need the plan's intent (%s): %w", strings.Join(f.paths, ", "), err)
	}
	f.res = res
	return res, nil
}

// inProcess reports whether the host is reachable without SSH.
func (f *fleetHosts) inProcess(res *intent.Resolved, h *intent.Host) bool {
	if h.Netns != "" {
		return true
	}
	local, err := localHost(res)
	return err == nil && local.Name == h.Name
}

func (f *fleetHosts) run(ctx context.Context, res *intent.Resolved, h *intent.Host, apply bool) (*hostcontract.HostReport, string, error) {
	if f.inProcess(res, h) {
		kind := hostcontract.KindHostPlan
		if apply {
			kind = hostcontract.KindHostApply
		}
		flags := &hostFlags{apply: apply, kind: kind, timeout: 10 * time.Second}
		transport := "local"
		if h.Netns != "" {
			transport = "netns"
		}
		r, err := f.a.runHost(ctx, flags, res, h)
		return r, transport, err
	}
	lim, _ := f.a.intentLimits()
	data, _, err := intent.Bundle(lim, res.Files...)
	if err != nil {
		return nil, "ssh", err
	}
	client := &hostcontract.Client{Runner: f.ssh, Intent: data}
	var r *hostcontract.HostReport
	if apply {
		r, err = client.Apply(ctx, h.Name)
	} else {
		r, err = client.Plan(ctx, h.Name)
	}
	return r, "ssh", err
}

// PlanHost runs host plan and turns its report into a device plan.
func (f *fleetHosts) PlanHost(ctx context.Context, res *intent.Resolved, h *intent.Host) (compliance.DevicePlan, error) {
	dp := compliance.DevicePlan{Device: h.Name, Kind: "host", Platform: "host", Address: h.Address.String(),
		Connection: compliance.Connection{Netns: h.Netns}}
	r, transport, err := f.run(ctx, res, h, false)
	dp.Transport = transport
	if err != nil {
		return dp, err
	}
	if r.Failed() {
		return dp, fmt.Errorf("host plan: %s", hostFailure(r))
	}
	dp.Changes = r.Changes()
	dp.Warnings = unsupportedNote(r)
	dp.Notes = r.Notes
	// What the NIC runs must agree with the switch port it is cabled to;
	// settings it could not read are checked as rendered.
	findings, err := consistency.CheckHost(res, f.a.renderers, h, r.Observed)
	if err != nil {
		return dp, err
	}
	for _, c := range findings {
		dp.Warnings = append(dp.Warnings, "host/switch mismatch: "+c.Message)
	}
	return dp, nil
}

// ApplyHost runs host apply, which is all-or-nothing on the host.
func (f *fleetHosts) ApplyHost(ctx context.Context, res *intent.Resolved, dp compliance.DevicePlan) error {
	if res == nil {
		var err error
		if res, err = f.intent(); err != nil {
			return err
		}
	}
	h := res.Host(dp.Device)
	if h == nil {
		return fmt.Errorf("host %s is no longer in the intent", dp.Device)
	}
	r, _, err := f.run(ctx, res, h, true)
	if err != nil {
		return err
	}
	if r.Failed() {
		return fmt.Errorf("host apply: %s", hostFailure(r))
	}
	return nil
}

func hostFailure(r *hostcontract.HostReport) string {
	if r.Error != "" {
		return r.Error
	}
	var parts []string
	for _, s := range r.Settings {
		if s.Status == hostcontract.StatusFailed || s.Status == hostcontract.StatusRolledBack {
			parts = append(parts, fmt.Sprintf("%s %s %s: %s", s.NIC, s.Name, s.Status, s.Message))
		}
	}
	if r.RolledBack {
		parts = append(parts, "earlier values restored")
	}
	return strings.Join(parts, "; ")
}

// unsupportedNote names the settings the host cannot do, so a plan never
// hides them.
func unsupportedNote(r *hostcontract.HostReport) []string {
	var names []string
	for _, s := range r.Settings {
		if s.Status == hostcontract.StatusUnsupported {
			names = append(names, s.NIC+" "+s.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	return []string{fmt.Sprintf("%d setting(s) unsupported on this device: %s", len(names), strings.Join(names, ", "))}
}
