package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/agent/daemon/shard"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/secret"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// Errors New returns; callers test them with errors.Is.
var (
	// ErrLocked: another agent holds the state directory.
	ErrLocked = errors.New("state directory is in use by another rocefab agent")
	// ErrNoToken: the HTTP server binds beyond localhost without a token.
	ErrNoToken = errors.New("a bearer token is required when the agent listens beyond localhost")
	// ErrConfig: a setting is invalid.
	ErrConfig = errors.New("agent settings")
	// ErrWeakToken: the bearer token is too easy to guess (it also
	// matches ErrConfig).
	ErrWeakToken = fmt.Errorf("%w: the API token is refused", ErrConfig)
)

// Config is the agent's settings, as the agent: section of the config
// file, flags and ROCEFAB_AGENT_* variables give them (docs/agent.md).
type Config struct {
	// StateDir holds the lock, the history, the git working copy, the last
	// valid intent and the apply reports and snapshots.
	StateDir string
	// Source yields the intent; Refresh is how often it is fetched or
	// re-read (default 1m).
	Source  intentsrc.Source
	Refresh time.Duration

	// Drift checks every Interval plus up to Jitter (default 15m, 1m).
	Drift Schedule
	// Probe runs every Interval plus up to Jitter; 0 turns it off.
	Probe Schedule
	// Mesh runs the probe mesh over every fabric link every Interval plus
	// up to Jitter; 0 turns it off.
	Mesh Schedule
	// Apply is what a new commit may change by itself.
	Apply ApplyPolicy
	// Retention bounds the history.
	Retention history.Retention
	HTTP      HTTPConfig
	// Shard limits the agent to its share of the devices.
	Shard shard.Spec
	// IncludeHosts plans hosts too (needs the engine's host runner).
	IncludeHosts bool
	// CountersInterval is the gNMI SAMPLE interval for switch counters and
	// the poll interval for host counters; 0 turns collection off.
	CountersInterval time.Duration
	// CountersMaxSeries bounds the device counter series /metrics
	// exports; ≤ 0 is DefaultCountersMaxSeries.
	CountersMaxSeries int
	// CountersMaxHeld bounds the device counters held for the lossless
	// detectors (at least CountersMaxSeries); ≤ 0 is
	// DefaultCountersMaxHeld.
	CountersMaxHeld int
	// LosslessTune, when set, adjusts the lossless detectors' settings
	// before each detector is built (tests shorten hold and clear times).
	LosslessTune func(*telemetry.Config)
	// ShutdownTimeout bounds waiting for runs and notifications on stop
	// (default 30s).
	ShutdownTimeout time.Duration
	// IntentLimits bound what the loader reads of each revision (zero
	// fields: intent.DefaultLimits); a revision over them is refused.
	IntentLimits intent.Limits
	// Webhook, when set and Deps.Notifier is nil, is the webhook the agent
	// notifies compliance changes to (its deliveries are counted in
	// rocefab_webhook_notifications_total).
	Webhook *notify.Options
}

// Schedule is a periodic run.
type Schedule struct {
	Interval time.Duration
	Jitter   time.Duration
}

// ApplyPolicy are the guardrails of auto-apply. Disruptive changes are
// never applied by the agent, whatever the policy.
type ApplyPolicy struct {
	// Auto applies each new valid commit after planning it.
	Auto bool
	// MaxDevices refuses an auto-apply that would change more devices
	// (default 5).
	MaxDevices int
}

// HTTPConfig is the API and metrics server.
type HTTPConfig struct {
	// Listen is host:port (default 127.0.0.1:9490); empty host or 0.0.0.0
	// listens on every interface and then needs Token.
	Listen string
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// everything but /healthz and /readyz.
	Token string
	// TLSCert and TLSKey serve HTTPS.
	TLSCert, TLSKey string
	// Timeouts bound what one client may hold (zero fields: the defaults
	// below): slow headers or bodies, slow reads of the answer, and idle
	// keep-alive connections, which are closed after IdleTimeout.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// Defaults of the HTTP server's timeouts. WriteTimeout leaves a scrape of
// a large fleet's metrics or a page of runs time to be written.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 2 * time.Minute
	DefaultIdleTimeout       = 2 * time.Minute
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 64 << 10
)

// Notifier receives compliance changes (notify.Webhook).
type Notifier interface {
	Notify(notify.Event)
	Close(ctx context.Context)
}

// Deps are what the agent works with.
type Deps struct {
	Engine    *engine.Engine
	Renderers *renderers.Registry
	// Notifier receives compliance changes; nil uses Config.Webhook, if set.
	Notifier Notifier
	// Probe may be nil: the probe schedule then does nothing.
	Probe ProbeRunner
	// Mesh may be nil: the mesh schedule then does nothing.
	Mesh MeshRunner
	// HostCounters reads this host's NIC counters; nil leaves them out.
	HostCounters counters.Source
	Logger       *zap.Logger
	Now          func() time.Time
	Version      string
}

func (c *Config) defaults() {
	if c.Refresh <= 0 {
		c.Refresh = time.Minute
	}
	if c.Drift.Interval <= 0 {
		c.Drift.Interval = 15 * time.Minute
	}
	if c.Apply.MaxDevices <= 0 {
		c.Apply.MaxDevices = 5
	}
	if c.HTTP.Listen == "" {
		c.HTTP.Listen = DefaultListen
	}
	if c.Shard.Count == 0 {
		c.Shard = shard.All
	}
	for _, t := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&c.HTTP.ReadHeaderTimeout, DefaultReadHeaderTimeout}, {&c.HTTP.ReadTimeout, DefaultReadTimeout},
		{&c.HTTP.WriteTimeout, DefaultWriteTimeout}, {&c.HTTP.IdleTimeout, DefaultIdleTimeout}} {
		if *t.v <= 0 {
			*t.v = t.def
		}
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 30 * time.Second
	}
}

// DefaultListen is loopback only, so a token is optional by default.
const DefaultListen = "127.0.0.1:9490"

func (c *Config) check() error {
	if c.StateDir == "" {
		return fmt.Errorf("%w: no state directory", ErrConfig)
	}
	if c.Source == nil {
		return fmt.Errorf("%w: no intent source (a folder or a git repository)", ErrConfig)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"drift jitter", c.Drift.Jitter}, {"probe jitter", c.Probe.Jitter}, {"probe interval", c.Probe.Interval},
		{"mesh jitter", c.Mesh.Jitter}, {"mesh interval", c.Mesh.Interval}, {"counters interval", c.CountersInterval}} {
		if d.v < 0 {
			return fmt.Errorf("%w: %s %s is negative", ErrConfig, d.name, d.v)
		}
	}
	if c.Retention.MaxAge < 0 || c.Retention.MaxRuns < 0 {
		return fmt.Errorf("%w: history retention must not be negative", ErrConfig)
	}
	if (c.HTTP.TLSCert == "") != (c.HTTP.TLSKey == "") {
		return fmt.Errorf("%w: set both the TLS certificate and key, or neither", ErrConfig)
	}
	local, err := Loopback(c.HTTP.Listen)
	if err != nil {
		return fmt.Errorf("%w: listen address %q: %v", ErrConfig, c.HTTP.Listen, err)
	}
	if !local && c.HTTP.Token == "" {
		return fmt.Errorf("%w: %s is not a loopback address; set agent.http.token-file or the token variable (see docs/agent.md)", ErrNoToken, c.HTTP.Listen)
	}
	// A token is checked wherever the agent listens: a weak one only looks
	// like protection (one space let the agent bind 0.0.0.0).
	if c.HTTP.Token != "" {
		if err := secret.CheckToken(c.HTTP.Token); err != nil {
			return fmt.Errorf("%w: %w", ErrWeakToken, err)
		}
	}
	return nil
}

// Loopback reports whether a listen address only accepts local clients.
// An empty host, a wildcard or any name but localhost count as remote.
func Loopback(listen string) (bool, error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false, err
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// ResolveSecretRef reads a secret given as a reference: "env:NAME" reads
// the variable, "file:/path" reads the file (trailing newline dropped),
// anything else is the value itself. Errors never include the value.
func ResolveSecretRef(ref string) (string, error) {
	switch {
	case strings.HasPrefix(ref, "env:"):
		name := strings.TrimPrefix(ref, "env:")
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			return "", fmt.Errorf("variable %s is not set", name)
		}
		return v, nil
	case strings.HasPrefix(ref, "file:"):
		path := strings.TrimPrefix(ref, "file:")
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("secret file: %w", err)
		}
		v := strings.TrimRight(string(data), "\r\n")
		if v == "" {
			return "", fmt.Errorf("secret file %s is empty", path)
		}
		return v, nil
	}
	return ref, nil
}
