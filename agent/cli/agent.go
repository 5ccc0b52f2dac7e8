package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/agent/daemon/probewire"
	"github.com/rocefab/rocefab/agent/daemon/shard"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/earlier"
	"github.com/rocefab/rocefab/internal/secret"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// agentSetting is one setting of the agent: section. Its flag, its key in
// the config file and its ROCEFAB_ variable are derived from one row, so
// docs/agent.md and the code cannot disagree (agent_settings_test.go).
type agentSetting struct {
	key   string // under agent:, e.g. "git.url"
	flag  string
	def   any // string, bool, int, time.Duration or []string
	usage string
	// secret values are shown redacted by --print-settings.
	secret bool
}

// Env is the variable that sets the value.
func (s agentSetting) Env() string {
	return "ROCEFAB_AGENT_" + strings.NewReplacer(".", "_", "-", "_").Replace(strings.ToUpper(s.key))
}

var agentSettings = []agentSetting{
	{key: "intent.paths", flag: "intent", def: []string{}, usage: "intent files or folders: a local folder, or paths inside the git repository (default: the repository root)"},
	{key: "intent.refresh", flag: "refresh", def: time.Minute, usage: "how often the git repository is fetched or the folder re-read"},
	{key: "git.url", flag: "git-url", def: "", usage: "git repository of the intent (https://, ssh://, git@host:path); empty reads a local folder"},
	{key: "git.branch", flag: "git-branch", def: "", usage: "branch to follow (default main)"},
	{key: "git.tag", flag: "git-tag", def: "", usage: "tag to follow instead of a branch"},
	{key: "git.username", flag: "git-username", def: "git", usage: "HTTPS user name sent with the token"},
	{key: "git.token-env", flag: "git-token-env", def: "", usage: "variable holding an HTTPS token (never logged)"},
	{key: "git.token-file", flag: "git-token-file", def: "", usage: "file holding an HTTPS token (never logged)"},
	{key: "git.ssh-key-file", flag: "git-ssh-key", def: "", usage: "SSH private key for ssh:// and git@ URLs"},
	{key: "git.ssh-key-passphrase-env", flag: "git-ssh-key-passphrase-env", def: "", usage: "variable holding the SSH key's passphrase"},
	{key: "git.known-hosts", flag: "git-known-hosts", def: []string{}, usage: "known_hosts files that verify the git server (default $SSH_KNOWN_HOSTS or ~/.ssh/known_hosts)"},
	{key: "git.insecure-ignore-host-key", flag: "git-insecure-ignore-host-key", def: false, usage: "accept any SSH host key from the git server (unsafe)"},
	{key: "git.ca-bundle", flag: "git-ca-bundle", def: "", usage: "extra CA certificates (PEM) for an HTTPS git server"},
	{key: "drift.interval", flag: "drift-interval", def: 15 * time.Minute, usage: "drift check interval"},
	{key: "drift.jitter", flag: "drift-jitter", def: time.Minute, usage: "random extra delay before each drift check"},
	{key: "probe.interval", flag: "probe-interval", def: time.Duration(0), usage: "probe run interval; 0 turns the probe schedule off"},
	{key: "probe.jitter", flag: "probe-jitter", def: time.Minute, usage: "random extra delay before each probe run"},
	{key: "probe.parallel", flag: "probe-parallel", def: 4, usage: "sending hosts probed at once"},
	{key: "mesh.interval", flag: "mesh-interval", def: time.Duration(0), usage: "probe mesh run interval (every fabric link, faults localized); 0 turns the mesh schedule off"},
	{key: "mesh.jitter", flag: "mesh-jitter", def: time.Minute, usage: "random extra delay before each mesh run"},
	{key: "mesh.flows-per-link", flag: "mesh-flows-per-link", def: mesh.DefaultFlowsPerLink, usage: "probe flows each fabric link carries in each direction in a mesh run"},
	{key: "mesh.spread", flag: "mesh-spread", def: mesh.DefaultInterval, usage: "the time a mesh run spreads its flows over"},
	{key: "mesh.host-pps", flag: "mesh-host-pps", def: mesh.DefaultHostPPS, usage: "probe packets per second a host sends and receives at most in a mesh run"},
	{key: "mesh.hop-timeout", flag: "mesh-hop-timeout", def: 300 * time.Millisecond, usage: "how long a router hop may take to answer a mesh trace"},
	{key: "hosts.include", flag: "include-hosts", def: true, usage: "check hosts' NIC settings too (in-process for this machine and lab namespaces, over SSH otherwise)"},
	{key: "apply.auto", flag: "auto-apply", def: false, usage: "apply each new valid commit (hitless changes only, within max-devices)"},
	{key: "apply.max-devices", flag: "max-devices", def: 5, usage: "most devices an automatic apply may change; more refuses the apply"},
	{key: "history.max-age", flag: "history-max-age", def: 30 * 24 * time.Hour, usage: "drop runs older than this; 0 keeps them"},
	{key: "history.max-runs", flag: "history-max-runs", def: 10000, usage: "keep at most this many runs; 0 keeps them all"},
	{key: "http.listen", flag: "listen", def: daemon.DefaultListen, usage: "address of the health, metrics and API server; beyond localhost a token is required"},
	{key: "http.token-file", flag: "token-file", def: "", usage: "file holding the bearer token the API and /metrics require"},
	{key: "http.token-env", flag: "token-env", def: "ROCEFAB_AGENT_TOKEN", usage: "variable holding the bearer token (used when set)"},
	{key: "http.tls-cert", flag: "tls-cert", def: "", usage: "serve HTTPS with this certificate (PEM)"},
	{key: "http.tls-key", flag: "tls-key", def: "", usage: "private key of --tls-cert"},
	{key: "notify.webhook-url", flag: "webhook-url", def: "", usage: "webhook for compliance changes and fabric links that turn bad or recover: a URL, env:VARIABLE or file:PATH (a secret; never logged)", secret: true},
	{key: "notify.format", flag: "webhook-format", def: "generic", usage: "webhook body: generic (JSON) or slack ({\"text\": ...})"},
	{key: "notify.attempts", flag: "webhook-attempts", def: 5, usage: "tries per notification"},
	{key: "notify.backoff", flag: "webhook-backoff", def: time.Second, usage: "first wait between tries, doubling up to a minute"},
	{key: "notify.timeout", flag: "webhook-timeout", def: 10 * time.Second, usage: "timeout of one try"},
	{key: "shard", flag: "shard", def: "0/1", usage: "own only shard i of N (rendezvous hash of device names); i may be a pod name ending in -<ordinal>"},
	{key: "counters.interval", flag: "counters-interval", def: 30 * time.Second, usage: "gNMI SAMPLE interval of switch PFC/ECN counters and poll interval of host counters; 0 turns collection off"},
	{key: "counters.host", flag: "host-counters", def: false, usage: "also collect this host's RDMA NIC counters (sysfs and ethtool)"},
	{key: "counters.host-name", flag: "host-counters-name", def: "", usage: "name of this host in the counter labels (default the hostname)"},
	{key: "counters.sysfs-root", flag: "sysfs-root", def: "/sys", usage: "sysfs root for the host counters"},
	{key: "counters.max-series", flag: "counters-max-series", def: daemon.DefaultCountersMaxSeries, usage: "most device counter series /metrics exports; beyond it only the key series (RoCE, no-drop and CNP priorities, link pause, host counters) are exported, the detectors still see all"},
	{key: "counters.max-held", flag: "counters-max-held", def: daemon.DefaultCountersMaxHeld, usage: "most device counters held for the lossless detectors (at least max-series); beyond it new ones are refused and counted in rocefab_telemetry_series_dropped_total"},
	{key: "shutdown-timeout", flag: "shutdown-timeout", def: 30 * time.Second, usage: "how long stopping waits for runs and notifications"},
}

func newAgentCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent [PATH...]",
		Short: "Run the agent: follow the intent in git, check drift, probe, serve metrics",
		Long: `agent runs until it is stopped (SIGTERM or SIGINT). It follows the intent in a
git repository (--git-url) or a local folder (PATH or --intent), plans each new
valid commit (or, with --auto-apply, applies its hitless changes to at most
--max-devices devices), checks drift, runs the probe and the probe mesh (the
health of every fabric link) on schedules, keeps the runs in a history under
--state-dir, collects PFC and ECN counters, posts compliance changes and links
that turn bad or recover to a webhook, and serves /healthz, /readyz, /metrics and
/api/v1. Settings come from flags, ROCEFAB_AGENT_* variables and the agent:
section of --config (docs/agent.md). One agent runs per state directory.`,
	}
	fs := cmd.Flags()
	for _, s := range agentSettings {
		switch d := s.def.(type) {
		case string:
			fs.String(s.flag, d, s.usage)
		case bool:
			fs.Bool(s.flag, d, s.usage)
		case int:
			fs.Int(s.flag, d, s.usage)
		case time.Duration:
			fs.Duration(s.flag, d, s.usage)
		case []string:
			fs.StringSlice(s.flag, d, s.usage)
		}
	}
	printSettings := fs.Bool("print-settings", false, "print the effective settings (secrets redacted) and exit")
	df := addDeviceFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		for _, s := range agentSettings {
			if err := a.v.BindPFlag("agent."+s.key, cmd.Flags().Lookup(s.flag)); err != nil {
				return err
			}
		}
		if len(args) > 0 {
			a.v.Set("agent.intent.paths", args)
		}
		if *printSettings {
			return a.printAgentSettings()
		}
		if err := df.validate(a); err != nil {
			return err
		}
		cfg, deps, err := a.agentSetup(df)
		if err != nil {
			return err
		}
		ag, err := daemon.New(cfg, deps)
		if errors.Is(err, daemon.ErrConfig) || errors.Is(err, daemon.ErrNoToken) || errors.Is(err, notify.ErrConfig) {
			return usageErr("%v", err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "rocefab agent: serving on %s (state %s, %s, shard %s)\n", ag.Addr(), cfg.StateDir, cfg.Source, cfg.Shard)
		return ag.Run(cmd.Context())
	}
	return cmd
}

// agentString reads a setting through viper (flag > variable > file > default).
func (a *app) agentString(key string) string { return a.v.GetString("agent." + key) }

// agentSetup turns the settings into the daemon's configuration.
func (a *app) agentSetup(df *deviceFlags) (daemon.Config, daemon.Deps, error) {
	v := a.v
	get := func(k string) string { return a.agentString(k) }
	dur := func(k string) time.Duration { return v.GetDuration("agent." + k) }
	stateDir := v.GetString("state-dir")
	if stateDir == "" {
		stateDir = df.stateDir
	}
	spec, err := shard.Parse(get("shard"))
	if err != nil {
		return daemon.Config{}, daemon.Deps{}, usageErr("--shard: %v", err)
	}
	src, err := a.agentSource(stateDir)
	if err != nil {
		return daemon.Config{}, daemon.Deps{}, err
	}
	token, err := agentToken(get("http.token-file"), get("http.token-env"))
	if err != nil {
		return daemon.Config{}, daemon.Deps{}, usageErr("%v", err)
	}
	a.secrets.Add(token)
	cfg := daemon.Config{
		StateDir: stateDir, Source: src, Refresh: dur("intent.refresh"),
		Drift:     daemon.Schedule{Interval: dur("drift.interval"), Jitter: dur("drift.jitter")},
		Probe:     daemon.Schedule{Interval: dur("probe.interval"), Jitter: dur("probe.jitter")},
		Mesh:      daemon.Schedule{Interval: dur("mesh.interval"), Jitter: dur("mesh.jitter")},
		Apply:     daemon.ApplyPolicy{Auto: v.GetBool("agent.apply.auto"), MaxDevices: v.GetInt("agent.apply.max-devices")},
		Retention: history.Retention{MaxAge: dur("history.max-age"), MaxRuns: v.GetInt("agent.history.max-runs")},
		HTTP: daemon.HTTPConfig{Listen: get("http.listen"), Token: token,
			TLSCert: get("http.tls-cert"), TLSKey: get("http.tls-key")},
		Shard: spec, CountersInterval: dur("counters.interval"),
		CountersMaxSeries: v.GetInt("agent.counters.max-series"), CountersMaxHeld: v.GetInt("agent.counters.max-held"),
		ShutdownTimeout: dur("shutdown-timeout"),
	}
	cfg.IncludeHosts = v.GetBool("agent.hosts.include")
	cfg.IntentLimits, _ = a.intentLimits()
	// The agent shares the CLI's history: run reports, device records and
	// what rocefab applied last live in the same state directory.
	store := engine.RunStore{Dir: stateDir}
	// What earlier commits of the intent rendered is rocefab's own too, for
	// devices this state directory has no record of.
	intentPaths := func() []string {
		paths := v.GetStringSlice("agent.intent.paths")
		if a.agentString("git.url") == "" {
			return paths
		}
		if len(paths) == 0 {
			paths = []string{"."}
		}
		out := make([]string, len(paths))
		for i, p := range paths {
			out[i] = filepath.Join(stateDir, "git", p)
		}
		return out
	}
	eng := engine.New(a.renderers, a.drivers, a.fleet().Hosts(nil, nil), engine.Options{
		Insecure: a.flagOnly("insecure"), SSHAcceptNew: a.flagOnly("ssh-accept-new"),
		Timeout: v.GetDuration("timeout"), Retries: v.GetInt("retries"), Parallelism: v.GetInt("parallelism"),
		LastApplied: store.LastApplied(), Store: store,
		Earlier: earlier.Lazy(intentPaths, a.renderers, earlier.DefaultDepth, a.log),
		Secrets: a.resolveSecret, Logger: a.log,
	})
	deps := daemon.Deps{Engine: eng, Renderers: a.renderers, Logger: a.log, Version: Version(),
		Probe: probewire.FleetProbe(a.fleet(), v.GetInt("agent.probe.parallel"))}
	plan := mesh.PlanConfig{FlowsPerLink: v.GetInt("agent.mesh.flows-per-link"), Interval: dur("mesh.spread"), HostPPS: v.GetInt("agent.mesh.host-pps")}
	switch {
	case plan.FlowsPerLink < 1:
		return cfg, deps, usageErr("--mesh-flows-per-link %d: use 1 or more", plan.FlowsPerLink)
	case plan.Interval <= 0:
		return cfg, deps, usageErr("--mesh-spread %s: use a positive duration", plan.Interval)
	case plan.HostPPS < 1:
		return cfg, deps, usageErr("--mesh-host-pps %d: use 1 or more", plan.HostPPS)
	case dur("mesh.hop-timeout") <= 0:
		return cfg, deps, usageErr("--mesh-hop-timeout %s: use a positive duration", dur("mesh.hop-timeout"))
	}
	deps.Mesh = probewire.FleetMesh(a.fleet(), mesh.Options{Plan: plan, HopTimeout: dur("mesh.hop-timeout")})
	if ref := get("notify.webhook-url"); ref != "" {
		url, err := daemon.ResolveSecretRef(ref)
		if err != nil {
			return cfg, deps, usageErr("webhook URL: %v", err)
		}
		a.secrets.Add(url)
		cfg.Webhook = &notify.Options{URL: url, Format: notify.Format(get("notify.format")),
			Attempts: v.GetInt("agent.notify.attempts"), Backoff: dur("notify.backoff"), Timeout: dur("notify.timeout")}
	}
	if v.GetBool("agent.counters.host") && cfg.CountersInterval > 0 {
		deps.HostCounters = a.fleet().HostCounterSource(get("counters.host-name"), get("counters.sysfs-root"))
	}
	return cfg, deps, nil
}

// agentSource is the git repository or the local folder.
func (a *app) agentSource(stateDir string) (intentsrc.Source, error) {
	v := a.v
	paths := v.GetStringSlice("agent.intent.paths")
	url := a.agentString("git.url")
	if url == "" {
		if len(paths) == 0 {
			return nil, usageErr("no intent: give a folder (rocefab agent PATH, --intent) or a repository (--git-url)")
		}
		lim, _ := a.intentLimits() // checked in setup
		return intentsrc.Folder{Paths: paths, Limits: lim}, nil
	}
	auth := intentsrc.GitAuth{Username: a.agentString("git.username"), SSHKeyFile: a.agentString("git.ssh-key-file"),
		KnownHosts: v.GetStringSlice("agent.git.known-hosts"), InsecureIgnoreHostKey: a.flagOnly("git-insecure-ignore-host-key")}
	var err error
	if auth.Token, err = secretFrom(a.agentString("git.token-file"), a.agentString("git.token-env"), "git token"); err != nil {
		return nil, usageErr("%v", err)
	}
	if env := a.agentString("git.ssh-key-passphrase-env"); env != "" {
		if auth.SSHKeyPassphrase, err = secretFrom("", env, "SSH key passphrase"); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	a.secrets.Add(auth.Token, auth.SSHKeyPassphrase, intentsrc.URLPassword(url))
	var ca []byte
	if f := a.agentString("git.ca-bundle"); f != "" {
		if ca, err = os.ReadFile(f); err != nil {
			return nil, usageErr("git CA bundle: %v", err)
		}
	}
	g, err := intentsrc.NewGit(intentsrc.GitOptions{URL: url, Branch: a.agentString("git.branch"), Tag: a.agentString("git.tag"),
		Paths: paths, Dir: filepath.Join(stateDir, "git"), Auth: auth, CABundle: ca, Logger: a.log})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return g, nil
}

// secretFrom reads a secret from a file or a named variable; both empty
// is no secret.
func secretFrom(file, env, what string) (string, error) {
	if file != "" {
		return daemon.ResolveSecretRef("file:" + file)
	}
	if env != "" {
		v, err := daemon.ResolveSecretRef("env:" + env)
		if err != nil {
			return "", fmt.Errorf("%s: %v", what, err)
		}
		return v, nil
	}
	return "", nil
}

// agentToken: the file if given, else the variable if it is set.
func agentToken(file, env string) (string, error) {
	if file != "" {
		v, err := daemon.ResolveSecretRef("file:" + file)
		if err != nil {
			return "", fmt.Errorf("API token: %v", err)
		}
		return v, nil
	}
	if env != "" {
		return os.Getenv(env), nil
	}
	return "", nil
}

// printAgentSettings writes every agent setting's effective value as
// JSON, secrets redacted, so operators can check what the flags, the
// variables and the file add up to.
func (a *app) printAgentSettings() error {
	out := map[string]any{}
	for _, s := range agentSettings {
		if slices.Contains(unsafeFlags, s.flag) {
			continue // flag-only, printed below
		}
		var val any
		switch s.def.(type) {
		case bool:
			val = a.v.GetBool("agent." + s.key)
		case int:
			val = a.v.GetInt("agent." + s.key)
		case time.Duration:
			val = a.v.GetDuration("agent." + s.key).String()
		case []string:
			val = a.v.GetStringSlice("agent." + s.key)
		default:
			str := a.v.GetString("agent." + s.key)
			if s.secret && str != "" && !strings.HasPrefix(str, "env:") && !strings.HasPrefix(str, "file:") {
				str = secret.Mask
			}
			// A URL may carry a password (https://user:PW@host/...).
			val = intentsrc.Redact(str)
		}
		out["agent."+s.key] = val
	}
	for _, k := range []string{"state-dir", "timeout", "retries", "parallelism", "ca-bundle", "known-hosts"} {
		out[k] = a.v.GetString(k)
	}
	for _, k := range unsafeFlags {
		out[k] = a.flagOnly(k)
	}
	enc := json.NewEncoder(a.stdout) // maps encode with sorted keys
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
