package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/earlier"
	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// deviceFlags are shared by every command that contacts devices. Turning
// verification off is only ever a flag, never an intent field.
type deviceFlags struct {
	insecure     bool
	sshAcceptNew bool
	timeout      time.Duration
	retries      int
	parallelism  int
	stateDir     string
	caBundle     string
	knownHosts   string
	lockWait     time.Duration
}

func addDeviceFlags(cmd *cobra.Command) *deviceFlags {
	f := &deviceFlags{}
	fs := cmd.Flags()
	fs.BoolVar(&f.insecure, "insecure", false, "skip TLS certificate verification (unsafe)")
	fs.BoolVar(&f.sshAcceptNew, "ssh-accept-new", false, "trust unknown SSH host keys on first use and record them (unsafe)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "per-device timeout for each call")
	fs.IntVar(&f.retries, "retries", 2, "retries for transient device errors")
	fs.IntVar(&f.parallelism, "parallelism", 10, "devices handled at once")
	fs.StringVar(&f.stateDir, "state-dir", defaultStateDir(), "where run reports and snapshots are kept")
	fs.StringVar(&f.caBundle, "ca-bundle", "", "CA bundle that verifies gNMI targets, overriding the intent's security.caBundle (CI should set it)")
	fs.StringVar(&f.knownHosts, "known-hosts", "", "known_hosts file for SSH, overriding the intent's security.knownHosts (CI should set it)")
	fs.DurationVar(&f.lockWait, "lock-wait", time.Minute, "how long to wait for a device another run holds before refusing it, naming that run")
	return f
}

// validate refuses values no run could use.
func (f *deviceFlags) validate(a *app) error {
	switch {
	case a.v.GetDuration("timeout") <= 0:
		return usageErr("--timeout %s: use a positive duration", a.v.GetDuration("timeout"))
	case a.v.GetInt("retries") < 0:
		return usageErr("--retries %d: use 0 or more", a.v.GetInt("retries"))
	case a.v.GetInt("parallelism") < 1:
		return usageErr("--parallelism %d: use 1 or more", a.v.GetInt("parallelism"))
	case a.v.GetDuration("lock-wait") < 0:
		return usageErr("--lock-wait %s: use 0 (refuse at once) or more", a.v.GetDuration("lock-wait"))
	}
	return nil
}

// trust is the CA bundle and known_hosts to verify devices with: the flags
// (or ROCEFAB_CA_BUNDLE / ROCEFAB_KNOWN_HOSTS) win over the intent's paths,
// so a pipeline that plans untrusted pull requests pins its own trust
// anchors instead of taking them from the change under review.
func (a *app) trust() (caBundle, knownHosts string) {
	return a.v.GetString("ca-bundle"), a.v.GetString("known-hosts")
}

// pinTrust applies the trust overrides to a resolved intent.
func (a *app) pinTrust(res *intent.Resolved) {
	if res == nil {
		return
	}
	ca, kh := a.trust()
	if ca != "" {
		res.Security.CABundle = ca
	}
	if kh != "" {
		res.Security.KnownHosts = kh
	}
}

// pinPlanTrust applies the trust overrides to a saved plan's devices.
func (a *app) pinPlanTrust(p *compliance.Plan) {
	ca, kh := a.trust()
	for i := range p.Devices {
		if ca != "" {
			p.Devices[i].Connection.CABundle = ca
		}
		if kh != "" {
			p.Devices[i].Connection.KnownHosts = kh
		}
	}
}

func defaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "rocefab")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "rocefab")
	}
	return ".rocefab"
}

// stateDir is where run reports and snapshots live: --state-dir, else
// ROCEFAB_STATE_DIR or the config file (as the agent reads it), else the
// default, so the CLI and the agent find the same runs.
func (a *app) stateDir(f *deviceFlags) string {
	if d := a.v.GetString("state-dir"); d != "" {
		return d
	}
	return f.stateDir
}

// engine builds the fleet engine with the command's flags; viper supplies
// values from ROCEFAB_* variables and the config file too. hosts may be nil.
// intentPaths, when in a git repository, let the engine know what earlier
// revisions of the intent rendered (rocefab's own configuration) where the
// state directory has no record of a device.
func (a *app) engine(f *deviceFlags, hosts engine.HostRunner, intentPaths ...string) *engine.Engine {
	var prior func(string) []*devcfg.Config
	if src, err := earlier.Open(intentPaths, a.renderers, earlier.DefaultDepth, a.log); err != nil {
		a.log.Warn("the intent's git history cannot be read; rocefab's earlier configuration is known from the state directory only", zap.Error(err))
	} else if src != nil {
		prior = src.Earlier
	}
	return engine.New(a.renderers, a.drivers, hosts, engine.Options{
		Earlier:      prior,
		Insecure:     a.flagOnly("insecure"),
		SSHAcceptNew: a.flagOnly("ssh-accept-new"),
		Timeout:      a.v.GetDuration("timeout"),
		Retries:      a.v.GetInt("retries"),
		Parallelism:  a.v.GetInt("parallelism"),
		Progress:     newProgress(a.stderr),
		LastApplied:  engine.RunStore{Dir: a.stateDir(f)}.LastApplied(),
		Secrets:      a.resolveSecret,
		Store:        engine.RunStore{Dir: a.stateDir(f)},
		Logger:       a.log,
	})
}

// fleet reaches devices and hosts with this invocation's settings: the
// timeouts and retries, the unsafe flags given, credentials by reference
// (remembered for redaction) and the intent limits.
func (a *app) fleet() *fleet.Fleet {
	lim, _ := a.intentLimits() // checked in setup
	return &fleet.Fleet{
		Renderers: a.renderers, Drivers: a.drivers, Log: a.log,
		Timeout: a.v.GetDuration("timeout"), Retries: a.v.GetInt("retries"),
		Insecure: a.flagOnly("insecure"), SSHAcceptNew: a.flagOnly("ssh-accept-new"),
		IntentLimits: lim, Secrets: a.resolveSecret, LoadIntent: a.loadIntent,
	}
}

// loadIntent validates intent paths, printing diagnostics on failure.
func (a *app) loadIntent(paths []string) (*intent.Resolved, error) {
	res, diags := a.validate(paths...)
	if diags.HasErrors() {
		printDiagnostics(a, diags)
		return nil, exitWith(ExitFailure)
	}
	a.pinTrust(res)
	for _, d := range diags {
		fmt.Fprintln(a.stderr, d.String())
	}
	return res, nil
}
