package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// Engine plans, applies, checks drift and rolls back. It holds no global
// state, so the daemon can shard work across engines.
type Engine struct {
	renderers *renderers.Registry
	drivers   *drivers.Registry
	hosts     HostRunner
	opt       Options
	log       *zap.Logger
	// files: CA bundles and known_hosts are parsed once per engine, not
	// once per device.
	files drivers.FileCache

	progressMu sync.Mutex
}

// Options configure an engine.
type Options struct {
	// Insecure skips TLS verification (--insecure); SSHAcceptNew trusts
	// unknown SSH host keys on first use (--ssh-accept-new).
	Insecure     bool
	SSHAcceptNew bool
	// Timeout bounds each device call; Retries applies to transient errors.
	Timeout time.Duration
	Retries int
	// Parallelism bounds concurrent devices (default 10).
	Parallelism int
	// Secrets resolves credential references; default: environment and files.
	Secrets func(compliance.Connection) (drivers.Credentials, error)
	// LastApplied returns the owned config rocefab last applied to a device
	// (nil if none), so its own earlier singleton values are not reported
	// as conflicts. RunStore.LastApplied provides it.
	LastApplied func(device string) *devcfg.Config
	// Earlier returns what earlier revisions of the intent rendered for a
	// device, newest first: rocefab's own configuration as every runner
	// with the intent repository knows it, for a state directory that has
	// no record of the device (IntentHistory provides it).
	Earlier func(device string) []*devcfg.Config
	// Store is the state directory's run store: drift runs are recorded in
	// it, plans and drifts say when a run was interrupted on a device, and
	// applies write there unless ApplyOptions.Store says otherwise.
	Store RunStore
	// Progress reports fleet progress; nil reports nothing.
	Progress Progress
	Logger   *zap.Logger
	// Now is the clock (tests pin it).
	Now func() time.Time
}

// HostRunner plans and applies a host's NIC settings through the host JSON
// contract (locally or over SSH).
type HostRunner interface {
	PlanHost(ctx context.Context, r *intent.Resolved, h *intent.Host) (compliance.DevicePlan, error)
	// ApplyHost applies a host's part of r; r is nil when applying a saved
	// plan, and the runner then loads the plan's intent itself.
	ApplyHost(ctx context.Context, r *intent.Resolved, dp compliance.DevicePlan) error
}

// Progress receives fleet progress, for a bar on a TTY or plain lines.
type Progress interface {
	Start(op string, total int)
	Done(device string, failed bool)
	Finish()
}

// New returns an engine. hosts may be nil: hosts are then left out of
// plans with a note.
func New(r *renderers.Registry, d *drivers.Registry, hosts HostRunner, opt Options) *Engine {
	if opt.Parallelism <= 0 {
		opt.Parallelism = 10
	}
	if opt.Timeout == 0 {
		opt.Timeout = 30 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	if opt.Secrets == nil {
		opt.Secrets = ResolveSecret
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Engine{renderers: r, drivers: d, hosts: hosts, opt: opt, log: opt.Logger}
}

// Errors the engine returns; callers test them with errors.Is.
var (
	ErrStalePlan  = errors.New("device changed since the plan was made")
	ErrConflict   = errors.New("owned by other config")
	ErrDisruptive = errors.New("traffic-affecting changes need --allow-disruptive")
)

// ResolveSecret reads a password from the environment or a file. The value
// is never logged.
func ResolveSecret(c compliance.Connection) (drivers.Credentials, error) {
	creds := drivers.Credentials{Username: c.Username}
	if c.UsernameEnv != "" {
		creds.Username = os.Getenv(c.UsernameEnv)
		if creds.Username == "" {
			return creds, fmt.Errorf("username variable %s is not set", c.UsernameEnv)
		}
	}
	switch {
	case c.PasswordEnv != "":
		v, ok := os.LookupEnv(c.PasswordEnv)
		if !ok {
			return creds, fmt.Errorf("password variable %s is not set", c.PasswordEnv)
		}
		creds.Password = v
	case c.PasswordFile != "":
		data, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return creds, fmt.Errorf("password file: %w", err)
		}
		creds.Password = strings.TrimRight(string(data), "\r\n")
	}
	return creds, nil
}

// connection turns a switch's intent into references apply can reuse.
func connection(r *intent.Resolved, sw *intent.Switch) compliance.Connection {
	return compliance.Connection{
		Username: sw.Creds.Username, UsernameEnv: sw.Creds.UsernameEnv,
		PasswordEnv: sw.Creds.PasswordEnv, PasswordFile: sw.Creds.PasswordFile,
		CABundle: r.Security.CABundle, KnownHosts: r.Security.KnownHosts,
		ClientCert: sw.TLS.ClientCert, ClientKey: sw.TLS.ClientKey, ServerName: sw.TLS.ServerName,
		Netns: sw.Netns,
	}
}

// defaultPorts are used when the intent gives no port.
var defaultPorts = map[string]int{"ssh": 22, "gnmi": 57400}

// openDriver opens a driver for a planned device.
func (e *Engine) openDriver(ctx context.Context, dp *compliance.DevicePlan, scope devcfg.Scope) (drivers.Driver, error) {
	entry, err := e.renderers.Lookup(dp.Platform)
	if err != nil {
		return nil, err
	}
	creds, err := e.opt.Secrets(dp.Connection)
	if err != nil {
		return nil, &drivers.DeviceError{Device: dp.Device, Step: "credentials", Err: err}
	}
	// The driver keeps its own copy of the scope: the caller may still
	// change the desired one after the driver is open (a platform's Fit
	// re-scopes it), and slices.DeleteFunc zeroes a shared backing array.
	opt := drivers.Options{
		Device: dp.Device, Address: dp.Address, Platform: entry.Attrs.Platform, Scope: scope.Clone(),
		Creds: creds, Netns: dp.Connection.Netns, Timeout: e.opt.Timeout, Retries: e.opt.Retries,
		SingleOriginModels: e.renderers.SingleOriginModels(),
		TLS: drivers.TLSOptions{CAFile: dp.Connection.CABundle, CertFile: dp.Connection.ClientCert,
			KeyFile: dp.Connection.ClientKey, ServerName: dp.Connection.ServerName, Insecure: e.opt.Insecure},
		SSH:    drivers.SSHOptions{KnownHostsFile: dp.Connection.KnownHosts, AcceptNew: e.opt.SSHAcceptNew},
		Logger: e.log.With(zap.String("device", dp.Device), zap.String("platform", dp.Platform)),
		Files:  &e.files,
	}
	ctx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	defer cancel()
	return e.drivers.Open(ctx, dp.Transport, opt)
}

func (e *Engine) syntax(platform string) devcfg.Syntax {
	entry, err := e.renderers.Lookup(platform)
	if err != nil {
		return devcfg.Syntax{}
	}
	return entry.Attrs.Platform.Syntax
}

// unreachable reports whether err means the device could not be reached.
func unreachable(err error) bool {
	return errors.Is(err, drivers.ErrUnreachable) || errors.Is(err, context.DeadlineExceeded)
}
