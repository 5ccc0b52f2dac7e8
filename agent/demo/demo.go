package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/effect"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	renderersall "github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
	"github.com/rocefab/rocefab/validators/probe"
)

// Mode is where the demo's hosts live.
type Mode string

const (
	// ModeAuto builds the network-namespace fabric when the process may
	// (root, namespaces available) and falls back to loopback otherwise.
	ModeAuto Mode = ""
	// ModeNetns requires the network-namespace fabric.
	ModeNetns Mode = "netns"
	// ModeLoopback probes between two endpoints on loopback addresses.
	ModeLoopback Mode = "loopback"
)

// Loopback addresses of the two hosts without namespaces. Binding UDP 4791
// there needs no privilege.
var (
	loopbackHost1 = netip.MustParseAddr("127.0.0.2")
	loopbackHost2 = netip.MustParseAddr("127.0.0.3")
)

// Options configure a demo run.
type Options struct {
	// Out receives the story, as plain text.
	Out io.Writer
	// Mode: ModeAuto (default), ModeNetns or ModeLoopback (--no-netns).
	Mode Mode
	// StateDir keeps the rendered intent, the trust files and the run
	// reports after the demo; empty uses a temporary directory that is
	// removed at the end.
	StateDir string
	// Registries; nil uses every renderer and driver.
	Renderers *renderers.Registry
	Drivers   *drivers.Registry
	// Logger gets diagnostics (never the story); nil logs nothing.
	Logger *zap.Logger
	// OnStep is called as each numbered step begins.
	OnStep func(step int)
}

// Steps of the story, in order.
const (
	StepValidate = iota + 1
	StepPlan
	StepApply
	StepPlanAgain
	StepProbe
	StepInjectDrift
	StepDetectDrift
	StepRemediate
)

var stepTitles = map[int]string{
	StepValidate:    "Validate the intent",
	StepPlan:        "Plan: what apply would change",
	StepApply:       "Apply",
	StepPlanAgain:   "Plan again: nothing left to do",
	StepProbe:       "Probe the fabric with RoCEv2 traffic",
	StepInjectDrift: "Someone changes a switch by hand",
	StepDetectDrift: "Drift detected",
	StepRemediate:   "Remediate: apply again",
}

// Injection is the hand change the demo makes, as drift reports it.
type Injection struct {
	Device   string
	Where    string
	Old, New string
}

// Result is what each step produced, for tests and callers that check
// the story. On error it holds what ran before the failure.
type Result struct {
	Mode Mode
	// ModeReason says why namespaces were not used (loopback only).
	ModeReason string
	// Intent is the rendered intent file (removed at the end unless
	// Options.StateDir is set).
	Intent      string
	Diagnostics intent.Diagnostics
	// Namespaces the demo created; Listeners the simulators' addresses.
	Namespaces []string
	Listeners  []string

	FirstPlan, SecondPlan *compliance.Plan
	Apply, Remediation    *engine.RunReport
	Probe                 *probe.Report
	Injected              Injection
	Drift                 *compliance.Plan
	// FaultProbe is the probe after the drift (network namespaces only).
	FaultProbe *probe.Report
	FinalDrift *compliance.Plan
	FinalProbe *probe.Report
	// Failed is the step that did not play out as expected (0: none).
	Failed  int
	Elapsed time.Duration
}

// StepError names the step that did not play out as expected.
type StepError struct {
	Step int
	Err  error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("demo step %d (%s): %v", e.Step, stepTitles[e.Step], e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// run is one demo: the resources it holds and the story so far.
type run struct {
	opt   Options
	out   io.Writer
	log   *zap.Logger
	res   *Result
	start time.Time
	step  int // the step under way

	workDir string
	tempDir bool
	fleet   *simFleet
	nsFab   *nsFabric
	eps     *hostEndpoints
	eng     *engine.Engine
	store   engine.RunStore
	intent  *intent.Resolved
	ref     compliance.IntentRef
}

// Run plays the demo. Whatever it creates (simulators, namespaces, probe
// endpoints, temporary files) is removed before it returns, also when ctx
// is cancelled. The error names the step that failed.
func Run(ctx context.Context, opt Options) (res *Result, err error) {
	if opt.Out == nil {
		opt.Out = io.Discard
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	if opt.Renderers == nil {
		opt.Renderers = renderersall.Renderers()
	}
	if opt.Drivers == nil {
		opt.Drivers = driversall.Drivers()
	}
	r := &run{opt: opt, out: opt.Out, log: opt.Logger, res: &Result{}, start: time.Now()}
	defer func() {
		if cerr := r.cleanup(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		r.res.Elapsed = time.Since(r.start)
		var se *StepError
		if errors.As(err, &se) {
			r.res.Failed = se.Step
		}
		if err != nil && ctx.Err() != nil {
			where := "while setting up"
			if r.step > 0 {
				where = fmt.Sprintf("during step %d (%s)", r.step, stepTitles[r.step])
			}
			err = fmt.Errorf("demo interrupted %s: %w", where, err)
			fmt.Fprintf(r.out, "\nDemo interrupted; everything it started has been stopped and removed.\n")
		}
	}()
	if err := r.setup(ctx); err != nil {
		return r.res, err
	}
	for _, step := range []func(context.Context) error{
		r.validate, r.plan, r.apply, r.planAgain, r.probe, r.injectDrift, r.detectDrift, r.remediate,
	} {
		if err := ctx.Err(); err != nil {
			return r.res, err
		}
		if err := step(ctx); err != nil {
			return r.res, err
		}
	}
	r.summary()
	return r.res, nil
}

// heading starts step n.
func (r *run) heading(n int) {
	r.step = n
	if r.opt.OnStep != nil {
		r.opt.OnStep(n)
	}
	title := fmt.Sprintf("%d. %s", n, stepTitles[n])
	fmt.Fprintf(r.out, "\n%s\n%s\n", title, strings.Repeat("=", len(title)))
}

func (r *run) say(format string, args ...any) { fmt.Fprintf(r.out, format+"\n", args...) }

func (r *run) fail(step int, format string, args ...any) error {
	return &StepError{Step: step, Err: fmt.Errorf(format, args...)}
}

// failErr turns a cancelled context into the plain context error, so an
// interrupted demo is not reported as a broken step.
func (r *run) failErr(ctx context.Context, step int, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &StepError{Step: step, Err: err}
}

// setup starts the simulators, builds the namespace fabric (or not),
// renders the intent and opens the probe endpoints.
func (r *run) setup(ctx context.Context) error {
	r.say("rocefab demo: the whole story on an embedded fabric, with nothing to set up.")
	if r.opt.StateDir != "" {
		r.workDir = r.opt.StateDir
		if err := os.MkdirAll(r.workDir, 0o700); err != nil {
			return err
		}
	} else {
		if stale := removeStaleWorkDirs(os.TempDir()); len(stale) > 0 {
			r.log.Info("removed work directories of an earlier demo that was killed", zap.Strings("dirs", stale))
		}
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", workDirPrefix, os.Getpid()))
		if err != nil {
			return err
		}
		r.workDir, r.tempDir = dir, true
	}
	r.store = engine.RunStore{Dir: r.workDir}

	fleet, err := startFleet(r.workDir, r.log)
	if err != nil {
		return err
	}
	r.fleet = fleet
	for _, sw := range fleet.switches {
		r.res.Listeners = append(r.res.Listeners, sw.addr)
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	params := intentParams{CABundle: fleet.caBundle, KnownHosts: fleet.knownHosts, Username: simUsername,
		PasswordEnv: simPasswordEnv, PasswordFile: fleet.passwordFile, Addr: fleet.addrs()}
	r.res.Mode, r.res.ModeReason = r.chooseMode()
	if r.res.Mode == ModeNetns {
		params.Netns = &netnsParams{Router: r.nsFab.Router, Host1: r.nsFab.Host1, Host2: r.nsFab.Host2,
			Host1Addr: host1Prefix.Addr(), Host2Addr: host2Prefix.Addr()}
	} else {
		if r.opt.Mode == ModeNetns {
			return fmt.Errorf("network namespaces are required but unavailable: %s", r.res.ModeReason)
		}
		params.Loopback = &loopbackParams{Host1Addr: loopbackHost1, Host2Addr: loopbackHost2}
	}
	data, err := renderIntent(params)
	if err != nil {
		return err
	}
	r.res.Intent = filepath.Join(r.workDir, "fabric.yaml")
	if err := os.WriteFile(r.res.Intent, data, 0o600); err != nil {
		return err
	}
	r.ref = compliance.IntentRef{Fabric: "demo", Paths: []string{r.res.Intent}}
	r.eng = engine.New(r.opt.Renderers, r.opt.Drivers, nil, engine.Options{
		Timeout: 15 * time.Second, Retries: 1, Parallelism: 8,
		Secrets: fleet.secrets, LastApplied: r.store.LastApplied(), Logger: r.log,
	})
	r.describeFabric()
	return ctx.Err()
}

// chooseMode builds the namespace fabric when it may and reports the mode.
func (r *run) chooseMode() (Mode, string) {
	if r.opt.Mode == ModeLoopback {
		return ModeLoopback, "--no-netns was given"
	}
	if os.Geteuid() != 0 {
		return ModeLoopback, "not running as root, and network namespaces need it"
	}
	if stale := removeStale(); len(stale) > 0 {
		r.log.Info("removed namespaces of an earlier demo that was killed", zap.Strings("netns", stale))
	}
	f, err := buildNetns()
	if f != nil {
		r.res.Namespaces = []string{f.Router, f.Host1, f.Host2}
	}
	if err != nil {
		return ModeLoopback, err.Error()
	}
	r.nsFab = f
	return ModeNetns, ""
}

func (r *run) describeFabric() {
	r.say("\nThe fabric (examples/demo, filled in for this run):")
	for _, sw := range r.fleet.switches {
		how := "TLS verified against the simulator's CA"
		if sw.transport == "ssh" {
			how = "SSH host key checked against known_hosts"
		}
		r.say("  %-11s %-10s over %-7s %-16s simulated in-process; %s", sw.name, sw.platform, strings.ToUpper(sw.transport), sw.addr, how)
	}
	if r.res.Mode == ModeNetns {
		f := r.nsFab
		r.say("  %-11s %-10s over %-7s netns %s: a real Linux router, ports swp1-2 at MTU %d, forwarding off", "leaf-linux", "linux", "netlink", f.Router, routerMTU)
		r.say("  %-11s host in netns %s, eth0 %s (MTU %d), cabled to leaf-linux:swp1", "gpu01", f.Host1, host1Prefix, hostMTU)
		r.say("  %-11s host in netns %s, eth0 %s (MTU %d), cabled to leaf-linux:swp2", "gpu02", f.Host2, host2Prefix, hostMTU)
		r.say("  Each host runs a probe responder on UDP %d inside its namespace.", probe.DefaultPort)
	} else {
		r.say("  %-11s probe endpoint on %s (loopback)", "gpu01", loopbackHost1)
		r.say("  %-11s probe endpoint on %s (loopback)", "gpu02", loopbackHost2)
		r.say("")
		r.say("  NOTE: no network namespaces: %s.", r.res.ModeReason)
		r.say("  The probe runs between two endpoints on loopback: its packets never cross")
		r.say("  a switch, so it proves the probe itself, not the fabric. Run the demo as")
		r.say("  root for a real Linux router and two hosts in network namespaces.")
	}
	r.say("")
	r.say("Intent:      %s", r.res.Intent)
	r.say("Trust:       TLS against %s, SSH host keys against %s", filepath.Base(r.fleet.caBundle), filepath.Base(r.fleet.knownHosts))
	r.say("Credentials: by reference (passwordEnv %s, passwordFile %s); never printed", simPasswordEnv, filepath.Base(r.fleet.passwordFile))
	if r.tempDir {
		r.say("Work files:  %s (removed at the end; keep them with --state-dir)", r.workDir)
	} else {
		r.say("Work files:  %s (kept)", r.workDir)
	}
}

// hostsLeftAlone leaves the hosts' NIC settings alone: the demo's hosts are
// veths or loopback, with no RDMA NIC to configure.
var hostsLeftAlone = engine.Selection{SkipHosts: true}

func (r *run) validate(ctx context.Context) error {
	r.heading(StepValidate)
	r.say("$ rocefab validate fabric.yaml")
	res, diags := lint.Validate(r.opt.Renderers, r.res.Intent)
	r.res.Diagnostics = diags
	for _, d := range diags {
		r.say("%s", d.String())
	}
	errs, warns := diags.Count()
	r.say("%d error(s), %d warning(s)", errs, warns)
	if diags.HasErrors() || res == nil {
		return r.fail(StepValidate, "the embedded intent is invalid: %v", diags.Err())
	}
	r.intent = res
	eps, err := openEndpoints(res, r.log)
	if err != nil {
		return r.fail(StepValidate, "opening the hosts' probe endpoints: %w", err)
	}
	r.eps = eps
	if eps.port != probe.DefaultPort {
		r.say("note: UDP %d is busy on this machine (a probe server or another demo); the loopback probe uses UDP %d", probe.DefaultPort, eps.port)
	}
	return nil
}

func (r *run) planOnce(ctx context.Context, step int, kind string) (*compliance.Plan, error) {
	var p *compliance.Plan
	var err error
	if kind == "drift" {
		p, err = r.eng.Drift(ctx, r.intent, r.ref, hostsLeftAlone)
	} else {
		p, err = r.eng.Plan(ctx, r.intent, r.ref, hostsLeftAlone)
	}
	if err != nil {
		return nil, r.failErr(ctx, step, err)
	}
	if err := r.writePlan(p); err != nil {
		return nil, err
	}
	if p.HasFailures() {
		return p, r.fail(step, "%s", failures(p))
	}
	return p, nil
}

// changesShown is how many changes of each device the story prints.
const changesShown = 6

func (r *run) writePlan(p *compliance.Plan) error {
	effect.Annotate(p, r.intent, r.opt.Renderers)
	var b strings.Builder
	// As `rocefab plan` shows it: each platform's own form and port names.
	v := compliance.View{Platform: func(name string) (compliance.PlatformView, bool) {
		e, err := r.opt.Renderers.Lookup(name)
		if err != nil {
			return compliance.PlatformView{}, false
		}
		return compliance.PlatformView{Syntax: e.Attrs.Platform.Syntax, Port: e.Attrs.PortPattern}, true
	}}
	if err := compliance.WriteTextView(&b, p, v); err != nil {
		return err
	}
	_, err := io.WriteString(r.out, condensePlan(b.String(), changesShown))
	return err
}

func failures(p *compliance.Plan) string {
	var parts []string
	for _, d := range p.Devices {
		if d.Error != "" || d.Status == compliance.StatusConflict {
			parts = append(parts, fmt.Sprintf("%s: %s %s", d.Device, d.Status, d.Error))
		}
	}
	return strings.Join(parts, "; ")
}

func (r *run) plan(ctx context.Context) error {
	r.heading(StepPlan)
	r.say("$ rocefab plan fabric.yaml")
	r.say("rocefab renders the intent for each platform, reads what each switch runs and")
	r.say("shows the difference. Nothing is changed yet. (The hosts are probed but their")
	r.say("NIC settings are left alone: they have no RDMA NIC. `rocefab host plan` and")
	r.say("the plan of a real fabric cover PFC, trust and RoCE mode on each NIC.)")
	r.say("")
	p, err := r.planOnce(ctx, StepPlan, "plan")
	r.res.FirstPlan = p
	if err != nil {
		return err
	}
	if !p.HasChanges() {
		return r.fail(StepPlan, "the first plan shows no changes; the fabric should start unconfigured")
	}
	return nil
}

func (r *run) applyPlan(ctx context.Context, step int, p *compliance.Plan) (*engine.RunReport, error) {
	rep, err := r.eng.Apply(ctx, p, engine.ApplyOptions{
		AllowDisruptive: true, StopOnFailure: true, Store: r.store,
		Options: map[string]string{"autoApprove": "true", "allowDisruptive": "true", "demo": "true"},
	})
	if rep != nil {
		r.say("Apply run %s: %s", rep.ID, rep.Result)
		for _, d := range rep.Devices {
			line := fmt.Sprintf("  %-12s %-11s", d.Device, d.Outcome)
			if d.Outcome == engine.OutcomeApplied {
				line += fmt.Sprintf(" %d change(s) in %d ms, read back and verified", d.Changes, d.DurationMS)
			}
			if d.Reason != "" {
				line += " " + d.Reason
			}
			r.say("%s", strings.TrimRight(line, " "))
		}
		r.say("Report: %s", filepath.Join(r.workDir, "runs", rep.ID, "report.json"))
	}
	if err != nil {
		return rep, r.failErr(ctx, step, err)
	}
	if rep.Failed() {
		return rep, r.fail(step, "apply run %s failed", rep.ID)
	}
	return rep, nil
}

func (r *run) apply(ctx context.Context) error {
	r.heading(StepApply)
	r.say("$ rocefab apply --auto-approve --allow-disruptive fabric.yaml")
	r.say("Each switch gets an atomic push of exactly the planned changes, refused if it")
	r.say("changed since the plan, checked by read-back, and rolled back if that differs.")
	r.say("(MTU and PFC changes are traffic-affecting: a real apply asks for --allow-disruptive.)")
	r.say("")
	rep, err := r.applyPlan(ctx, StepApply, r.res.FirstPlan)
	r.res.Apply = rep
	return err
}

func (r *run) planAgain(ctx context.Context) error {
	r.heading(StepPlanAgain)
	r.say("$ rocefab plan fabric.yaml")
	p, err := r.planOnce(ctx, StepPlanAgain, "plan")
	r.res.SecondPlan = p
	if err != nil {
		return err
	}
	if p.HasChanges() {
		return r.fail(StepPlanAgain, "the plan after apply still shows changes")
	}
	r.say("Apply converged: planning again changes nothing.")
	return nil
}

func (r *run) runProbe(ctx context.Context) (*probe.Report, error) {
	rep := r.eps.probeFabric(ctx, r.intent)
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if err := rep.WriteText(r.out); err != nil {
		return rep, err
	}
	return rep, nil
}

func (r *run) probe(ctx context.Context) error {
	r.heading(StepProbe)
	r.say("$ rocefab probe fabric.yaml")
	if r.res.Mode == ModeNetns {
		r.say("gpu01 sends real RoCEv2 packets (BTH over UDP %d, DSCP 26, ECT(0)) through the", r.eps.port)
		r.say("Linux router to gpu02 and judges what arrives: loss, RTT, DSCP/ECN, CNPs and")
		r.say("the path MTU, in both directions.")
	} else {
		r.say("Over loopback (no namespaces): the hosts gpu01 and gpu02 probe each other with")
		r.say("real RoCEv2 packets on UDP %d; this checks the probe, not a switch path.", r.eps.port)
	}
	r.say("")
	rep, err := r.runProbe(ctx)
	r.res.Probe = rep
	if err != nil {
		return err
	}
	if !rep.Pass() {
		return r.fail(StepProbe, "the probe failed on the configured fabric")
	}
	return nil
}

func (r *run) injectDrift(ctx context.Context) error {
	r.heading(StepInjectDrift)
	if r.res.Mode == ModeNetns {
		r.say("$ ip -n %s link set dev swp2 mtu %d", r.nsFab.Router, driftPortMTU)
		r.say("An operator lowers the MTU of leaf-linux swp2 (gpu02's port) to %d by hand,", driftPortMTU)
		r.say("for real, through netlink in the router's namespace.")
		if err := setMTU(r.nsFab.Router, "swp2", driftPortMTU); err != nil {
			return r.fail(StepInjectDrift, "%w", err)
		}
		r.res.Injected = Injection{Device: "leaf-linux"}
		return nil
	}
	sw := r.fleet.byName("leaf-nxos")
	r.say("leaf-nxos# configure terminal ; interface Ethernet1/1 ; mtu %d", driftPortMTU)
	r.say("An operator lowers the MTU of leaf-nxos Ethernet1/1 (gpu01's port) to %d at", driftPortMTU)
	r.say("the console of the simulated switch.")
	if err := sw.ssh.HandChange("interface Ethernet1/1", fmt.Sprintf("mtu %d", driftPortMTU)); err != nil {
		return r.fail(StepInjectDrift, "%w", err)
	}
	r.res.Injected = Injection{Device: "leaf-nxos"}
	return nil
}

func (r *run) detectDrift(ctx context.Context) error {
	r.heading(StepDetectDrift)
	r.say("$ rocefab drift fabric.yaml")
	p, err := r.planOnce(ctx, StepDetectDrift, "drift")
	r.res.Drift = p
	if err != nil {
		return err
	}
	want := r.res.Injected.Device
	var drifted []string
	for _, d := range p.Devices {
		if d.Status == compliance.StatusDrifted {
			drifted = append(drifted, d.Device)
		}
	}
	if len(drifted) != 1 || drifted[0] != want {
		return r.fail(StepDetectDrift, "drifted devices %v, want exactly %s", drifted, want)
	}
	d, _ := p.Device(want)
	if len(d.Changes) != 1 || d.Changes[0].Action != devcfg.Modify || !strings.Contains(devcfg.Value(d.Changes[0].Old).Text(), fmt.Sprint(driftPortMTU)) {
		return r.fail(StepDetectDrift, "%s drift is not exactly the hand change: %d change(s)", want, len(d.Changes))
	}
	c := d.Changes[0]
	r.res.Injected = Injection{Device: want, Where: c.Where(), Old: devcfg.Value(c.Old).Text(), New: devcfg.Value(c.New).Text()}
	r.say("Drift shows exactly the hand change on %s, and nothing else.", want)

	r.say("")
	r.say("$ rocefab probe fabric.yaml")
	if r.res.Mode != ModeNetns {
		r.say("(skipped: over loopback the probe's packets never cross leaf-nxos, so it cannot")
		r.say("see this MTU. On a real fabric, or in the demo as root, it fails with mtu_blackhole.)")
		return nil
	}
	rep, err := r.runProbe(ctx)
	r.res.FaultProbe = rep
	if err != nil {
		return err
	}
	if rep.Pass() {
		return r.fail(StepDetectDrift, "the probe passed across a port at MTU %d", driftPortMTU)
	}
	for _, f := range rep.Findings {
		if f.Code == probe.CodeMTUBlackhole {
			r.say("")
			r.say("The probe names the fault: %s, %s.", f.Code, f.Message)
			return nil
		}
	}
	return r.fail(StepDetectDrift, "the probe failed without an %s finding", probe.CodeMTUBlackhole)
}

func (r *run) remediate(ctx context.Context) error {
	r.heading(StepRemediate)
	r.say("$ rocefab apply --auto-approve --allow-disruptive fabric.yaml")
	p, err := r.eng.Plan(ctx, r.intent, r.ref, hostsLeftAlone)
	if err != nil {
		return r.failErr(ctx, StepRemediate, err)
	}
	if err := r.writePlan(p); err != nil {
		return err
	}
	if p.HasFailures() || !p.HasChanges() {
		return r.fail(StepRemediate, "the remediation plan should hold the drifted change only")
	}
	rep, err := r.applyPlan(ctx, StepRemediate, p)
	r.res.Remediation = rep
	if err != nil {
		return err
	}

	r.say("")
	r.say("$ rocefab drift fabric.yaml")
	d, err := r.planOnce(ctx, StepRemediate, "drift")
	r.res.FinalDrift = d
	if err != nil {
		return err
	}
	if d.Summary.ByStatus[compliance.StatusCompliant] != len(d.Devices) {
		return r.fail(StepRemediate, "not every switch is compliant after remediation: %v", d.Summary.ByStatus)
	}
	r.say("")
	r.say("$ rocefab probe fabric.yaml")
	rep2, err := r.runProbe(ctx)
	r.res.FinalProbe = rep2
	if err != nil {
		return err
	}
	if !rep2.Pass() {
		return r.fail(StepRemediate, "the probe still fails after remediation")
	}
	return nil
}

func (r *run) summary() {
	title := "What just happened"
	r.say("\n%s\n%s", title, strings.Repeat("=", len(title)))
	sims := "four simulated switches (NX-OS and EOS over SSH, SONiC and OpenConfig over gNMI)"
	var text string
	if r.res.Mode == ModeNetns {
		text = fmt.Sprintf("rocefab validated one declarative intent for %s and a real Linux router with two hosts "+
			"in network namespaces, rendered it for each platform, diffed it against what each switch ran, and applied "+
			"the changes atomically, checked by read-back; a second plan found nothing left to do. Real RoCEv2 "+
			"traffic then crossed the router and proved the lossless path. A hand change lowered the MTU of the "+
			"router's port to %d: drift showed exactly that diff, and the probe named the fault (%s). One more "+
			"apply put it right: drift is compliant and the probe passes again.", sims, driftPortMTU, probe.CodeMTUBlackhole)
	} else {
		text = fmt.Sprintf("rocefab validated one declarative intent for %s, rendered it for each platform, diffed it "+
			"against what each switch ran, and applied the changes atomically, checked by read-back; a second plan "+
			"found nothing left to do. The probe exchanged real RoCEv2 packets between two endpoints on loopback (as "+
			"root, it crosses a real Linux router instead). A hand change lowered an MTU on leaf-nxos to %d: drift "+
			"showed exactly that diff, and one more apply put it right.", sims, driftPortMTU)
	}
	text += fmt.Sprintf(" TLS certificates and SSH host keys were verified throughout, the switch password was only "+
		"ever a reference, and it all took %.1fs. Everything the demo started is removed as it exits.", time.Since(r.start).Seconds())
	r.say("%s", wrap(text, 78))
	r.say("")
	r.say("Next:")
	r.say("  rocefab validate examples/basic      the reference intent, one switch of every platform")
	r.say("  rocefab plan examples/basic          the same against your switches (set their addresses)")
	r.say("  sudo examples/lab/up.sh              a two-tier Linux fabric in network namespaces, then")
	r.say("  rocefab plan examples/lab            plan, apply, probe and drift it by hand;")
	r.say("  sudo examples/lab/down.sh            and remove it")
}

// wrap breaks text into lines of at most width characters.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// cleanup removes everything the run created, whatever happened. It takes
// no context: it must run after Ctrl-C too.
func (r *run) cleanup() error {
	var errs []error
	if r.eps != nil {
		r.eps.close()
	}
	if r.nsFab != nil {
		errs = append(errs, r.nsFab.remove())
	}
	if r.fleet != nil {
		r.fleet.stop()
	}
	if r.tempDir {
		if err := os.RemoveAll(r.workDir); err != nil {
			errs = append(errs, fmt.Errorf("removing %s: %w", r.workDir, err))
		}
	}
	return errors.Join(errs...)
}
