package drivers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
)

// Driver talks to one device.
type Driver interface {
	// Fetch reads the running configuration.
	Fetch(ctx context.Context) (*Running, error)
	// Push applies a patch atomically. With a confirm window the change
	// stays pending until Confirm; without Confirm or Rollback it rolls
	// back by itself when the window ends (on the device where the platform
	// can, from rocefab otherwise). A zero window commits at once; the
	// returned Pending may still hold what undoes the change exactly (a
	// checkpoint, a snapshot of the touched region): Confirm drops it once
	// the caller read the device back, Rollback undoes the change, and a
	// later Push or Close keeps the change and drops it.
	Push(ctx context.Context, patch devcfg.Patch, opt PushOptions) (Pending, error)
	Close() error
}

// Running is what Fetch returns.
type Running struct {
	// Config is the whole parsed running configuration.
	Config *devcfg.Config
	// Owned is the part rocefab owns, normalised: what the diff compares.
	Owned *devcfg.Config
	// Fingerprint hashes Owned; saved plans record it.
	Fingerprint string
}

// NewRunning filters and normalises a parsed config into a Running.
func NewRunning(cfg *devcfg.Config, platform devcfg.Platform, scope devcfg.Scope) *Running {
	owned := cfg.Filter(scope)
	if platform.Normalise != nil {
		owned = platform.Normalise(owned)
	}
	return &Running{Config: cfg, Owned: owned, Fingerprint: owned.Fingerprint()}
}

// PushOptions control one push.
type PushOptions struct {
	// ConfirmWindow keeps the commit pending until confirmed; zero commits.
	ConfirmWindow time.Duration
	// RunID names the run: drivers name what they leave on the device
	// (checkpoints, sessions, locks, commit comments) after it, so another
	// runner, or the next run, can tell whose it is.
	RunID string
	// Expect is the fingerprint of the owned configuration the patch was
	// planned against. Where the device offers a lock, the driver reads the
	// device again once it holds the lock and refuses with ErrStale if the
	// owned configuration changed meanwhile: nobody can slip a change in
	// between the check and the commit. Empty skips the check.
	Expect string
	// Changes are the changes the patch was built from; a driver that
	// writes the whole configuration (NX-OS configure replace) builds it
	// from them. Nil: the driver pushes the patch as it is.
	Changes []devcfg.Change
}

// Cleaner is a driver that can remove what an interrupted run left on the
// device: its lock, checkpoint, configuration session, staged edits or
// files. With pendingConfirm (the run died while its change waited for
// confirmation) that change is rolled back if the device still holds it,
// since nobody is left to confirm it. Nothing of other runs is touched.
type Cleaner interface {
	Cleanup(ctx context.Context, runID string, pendingConfirm bool) error
}

// Pending is a pushed change waiting for Confirm or Rollback.
type Pending interface {
	ID() string
	Confirm(ctx context.Context) error
	Rollback(ctx context.Context) error
}

// Reverting is a Pending the device itself rolls back unless confirmed in
// time (a gNMI confirmed commit): a confirmation that failed or went
// unanswered is settled by reading the device back, never assumed.
type Reverting interface {
	Reverts() bool
}

// Credentials are resolved secrets. They are never logged: String hides
// the password.
type Credentials struct {
	Username string
	Password string
}

// String prints the username only.
func (c Credentials) String() string { return "user=" + c.Username + " password=<redacted>" }

// GoString hides the password from %#v too.
func (c Credentials) GoString() string { return c.String() }

// TLSOptions for gNMI.
type TLSOptions struct {
	CAFile     string
	CertFile   string
	KeyFile    string
	ServerName string
	// Insecure skips certificate verification; only by explicit CLI flag.
	Insecure bool
	// Plaintext disables TLS entirely; only for local simulators in tests.
	Plaintext bool
}

// SSHOptions for SSH.
type SSHOptions struct {
	KnownHostsFile string
	// AcceptNew trusts an unknown host key on first use and records it;
	// only by explicit CLI flag.
	AcceptNew bool
	// IdentityFile is a private key for public-key authentication, tried
	// before the password.
	IdentityFile string
}

// Options configure one driver instance.
type Options struct {
	Device   string
	Address  string // host:port
	Platform devcfg.Platform
	Scope    devcfg.Scope
	Creds    Credentials
	TLS      TLSOptions
	SSH      SSHOptions
	// SingleOriginModels are gNMI models whose servers take one origin per
	// SetRequest (the registry gathers them from every platform).
	SingleOriginModels []string
	// Netns is the network namespace of a netlink-managed device.
	Netns string
	// Timeout bounds every call to the device.
	Timeout time.Duration
	// Retries is how many times a transient error is retried, with backoff
	// starting at Backoff and doubling.
	Retries int
	Backoff time.Duration
	// Logger already names the device: the engine adds the device and
	// platform fields, so drivers add only their own.
	Logger *zap.Logger
	// Files shares what drivers parse from trust files (CA bundles,
	// known_hosts) across the devices of one engine; nil parses them on
	// every connection.
	Files *FileCache
}

// WithDefaults fills zero values.
func (o Options) WithDefaults() Options {
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Backoff == 0 {
		o.Backoff = 200 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o
}

// Constructor opens a driver.
type Constructor func(ctx context.Context, opt Options) (Driver, error)

// Registry maps transports to constructors.
type Registry struct {
	byTransport map[string]Constructor
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byTransport: map[string]Constructor{}} }

// Register adds a transport; registering one twice is an error.
func (r *Registry) Register(transport string, c Constructor) error {
	if _, dup := r.byTransport[transport]; dup {
		return fmt.Errorf("drivers: transport %q registered twice", transport)
	}
	r.byTransport[transport] = c
	return nil
}

// Open opens a driver for the transport.
func (r *Registry) Open(ctx context.Context, transport string, opt Options) (Driver, error) {
	c, ok := r.byTransport[transport]
	if !ok {
		var known []string
		for k := range r.byTransport {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownTransport, transport, strings.Join(known, ", "))
	}
	return c(ctx, opt.WithDefaults())
}

// Sentinel errors; drivers wrap them with the device and step.
var (
	ErrUnknownTransport = errors.New("unknown transport")
	ErrAuth             = errors.New("authentication failed")
	ErrUnreachable      = errors.New("device unreachable")
	ErrRejected         = errors.New("device rejected the change")
	ErrUnsupported      = errors.New("unsupported on this device")
	ErrTransient        = errors.New("transient error")
	ErrTrust            = errors.New("device identity not trusted")
	// ErrCommitUnknown: the commit (or confirm) was sent and its answer
	// was lost (dropped connection, timeout). The device may or may not
	// run the change; only reading it back tells. A Pending returned with
	// it confirms or rolls back the change if it did take effect.
	ErrCommitUnknown = errors.New("commit sent, outcome unknown")
	// ErrLocked: another run holds the device (its lock on the device or in
	// the state directory); the error names the holder.
	ErrLocked = errors.New("device locked by another run")
	// ErrStale: the owned configuration changed between the plan and the
	// moment the driver held the device lock; nothing was pushed.
	ErrStale = errors.New("device changed since the plan was made")
)

// CommitUnknown reports whether err says a commit may have taken effect
// unseen.
func CommitUnknown(err error) bool { return errors.Is(err, ErrCommitUnknown) }

// DeviceError names the device, the step and the device's own message.
type DeviceError struct {
	Device string
	Step   string // fetch, push, confirm, rollback, connect
	Line   string // the rejected command, if any
	Msg    string // the device's own message
	Err    error
}

func (e *DeviceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Device, e.Step)
	if e.Line != "" {
		fmt.Fprintf(&b, ": line %q", e.Line)
	}
	if e.Msg != "" {
		fmt.Fprintf(&b, ": device said %q", e.Msg)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

func (e *DeviceError) Unwrap() error { return e.Err }

// Retry calls fn until it succeeds, fails with a non-transient error, the
// context ends, or the retries are used up. Backoff doubles each time.
func Retry(ctx context.Context, retries int, backoff time.Duration, fn func(context.Context) error) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = fn(ctx)
		if err == nil || !errors.Is(err, ErrTransient) || attempt >= retries {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(backoff << attempt):
		}
	}
}

// FileCache keeps what was parsed from a file, so the drivers of a fleet
// parse a CA bundle or known_hosts file once rather than once per device
// (with one known_hosts line per switch that is quadratic in the fleet).
// The file is still read on every Load and parsed again whenever its bytes
// differ, so a key recorded on first use or an entry removed by hand counts
// at once, whatever the file system's time resolution. The zero value is
// ready; it is safe for concurrent use.
type FileCache struct {
	mu      sync.Mutex
	entries map[fileKey]fileEntry
}

type fileKey struct{ kind, path string }

type fileEntry struct {
	data []byte
	val  any
	err  error
}

// Load returns what parse made of path, parsing it only when the cache has
// nothing for this kind and path or the file's content changed since. kind
// keeps different parsers of one file apart. A nil cache always parses.
func (c *FileCache) Load(kind, path string, parse func(path string) (any, error)) (any, error) {
	if c == nil {
		return parse(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return parse(path) // parse reports the missing or unreadable file
	}
	key := fileKey{kind, path}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && bytes.Equal(e.data, data) {
		return e.val, e.err
	}
	val, err := parse(path)
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[fileKey]fileEntry{}
	}
	c.entries[key] = fileEntry{data: data, val: val, err: err}
	c.mu.Unlock()
	return val, err
}
