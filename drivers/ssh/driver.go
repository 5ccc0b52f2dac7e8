package ssh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/opoptions"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/platform"
	"github.com/scrapli/scrapligo/response"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/internal/secret"
)

// Transport is the name this driver registers.
const Transport = "ssh"

// Register adds the SSH transport.
func Register(r *drivers.Registry) error { return r.Register(Transport, New) }

// Driver talks to one CLI switch over SSH. Calls are serialised: one shell
// per device, reopened when it drops.
type Driver struct {
	opt     drivers.Options
	log     *zap.Logger
	dialect *devcfg.Dialect
	def     any // scrapligo platform: embedded name or YAML
	showCmd string
	errs    []string // error strings that fail a command
	host    string
	port    int
	keys    hostKeyPolicy

	mu      sync.Mutex
	conn    *conn
	pending map[*localPending]struct{}
	// held are changes committed at once whose restore point the driver
	// keeps until Confirm; a later push or Close confirms them.
	held   map[*heldPending]struct{}
	closed bool
}

// conn is one open scrapligo session.
type conn struct {
	nd *network.Driver
	tr *clientTransport
}

var (
	_ drivers.Driver  = (*Driver)(nil)
	_ drivers.Cleaner = (*Driver)(nil)
)

// New opens the SSH session, verifying the host key. It matches
// drivers.Constructor.
func New(ctx context.Context, opt drivers.Options) (drivers.Driver, error) {
	opt = opt.WithDefaults()
	d := &Driver{
		opt:     opt,
		log:     opt.Logger.Named("ssh"),
		pending: map[*localPending]struct{}{},
		held:    map[*heldPending]struct{}{},
	}
	d.dialect = opt.Platform.Dialect
	if d.dialect == nil || d.dialect.Push == nil {
		return nil, d.fail("connect", "", "", fmt.Errorf("%w: commit style %q cannot be pushed over SSH", drivers.ErrUnsupported, opt.Platform.Commit))
	}
	def, err := platformDefinition(opt.Platform)
	if err != nil {
		return nil, d.fail("connect", "", "", err)
	}
	d.def = def
	d.showCmd = showRunningCommand(opt.Platform)
	host, port, err := splitAddress(opt.Address)
	if err != nil {
		return nil, d.fail("connect", "", "", err)
	}
	d.host, d.port = host, port
	file := opt.SSH.KnownHostsFile
	if file == "" {
		if file, err = defaultKnownHosts(); err != nil {
			return nil, d.fail("connect", "", "", fmt.Errorf("%w: %v", drivers.ErrTrust, err))
		}
	}
	d.keys = hostKeyPolicy{file: file, acceptNew: opt.SSH.AcceptNew, log: d.log, files: opt.Files}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.ensure(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

func splitAddress(addr string) (string, int, error) {
	if addr == "" {
		return "", 0, errors.New("no address")
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		// No port: SSH's default.
		return addr, 22, nil
	}
	port, err := strconv.Atoi(p)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port in address %q", addr)
	}
	return host, port, nil
}

// fail builds the error users see: device, step, line, device message.
// A device may echo the password (a rejected line, a login banner): it is
// redacted from all of them.
func (d *Driver) fail(step, line, msg string, err error) error {
	pw := d.opt.Creds.Password
	return &drivers.DeviceError{Device: d.opt.Device, Step: step, Line: secret.Redact(line, pw), Msg: secret.Redact(msg, pw), Err: secret.Error(err, pw)}
}

// ensure returns the open session, dialling (with retries for transient
// failures) if there is none. d.mu must be held.
func (d *Driver) ensure(ctx context.Context) (*conn, error) {
	if d.closed {
		return nil, d.fail("connect", "", "", errors.New("driver closed"))
	}
	if d.conn != nil && d.conn.tr.IsAlive() {
		return d.conn, nil
	}
	d.drop()
	var c *conn
	err := drivers.Retry(ctx, d.opt.Retries, d.opt.Backoff, func(ctx context.Context) error {
		var err error
		c, err = d.dial(ctx)
		if err != nil {
			d.log.Debug("connect failed", zap.Error(err))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	d.conn = c
	return c, nil
}

// dial opens one session: TCP, SSH with host-key checking, a shell, and
// the platform's on-open steps (privilege, paging off).
func (d *Driver) dial(ctx context.Context) (*conn, error) {
	hostKeyCB, algos, err := d.keys.callback(net.JoinHostPort(d.host, strconv.Itoa(d.port)))
	if err != nil {
		return nil, d.fail("connect", "", "", classifyConnect(err))
	}
	auth, err := d.authMethods()
	if err != nil {
		return nil, d.fail("connect", "", "", err)
	}
	tr := &clientTransport{
		addr:    net.JoinHostPort(d.host, strconv.Itoa(d.port)),
		dialCtx: ctx,
		timeout: d.opt.Timeout,
		cfg: &gossh.ClientConfig{
			User:              d.opt.Creds.Username,
			Auth:              auth,
			HostKeyCallback:   hostKeyCB,
			HostKeyAlgorithms: algos,
			Timeout:           d.opt.Timeout,
		},
	}
	lg, err := scrapliLogger(d.log.Named("scrapligo"), d.opt.Creds.Password)
	if err != nil {
		return nil, d.fail("connect", "", "", err)
	}
	p, err := platform.NewPlatform(d.def, d.host,
		options.WithCustomTransport(tr),
		options.WithPort(d.port),
		options.WithAuthUsername(d.opt.Creds.Username),
		// The enable password, if the device asks for one, is the login
		// password; scrapligo types it without logging it.
		options.WithAuthSecondary(d.opt.Creds.Password),
		options.WithTimeoutOps(d.opt.Timeout),
		options.WithTimeoutSocket(d.opt.Timeout),
		options.WithTermWidth(511),
		options.WithLogger(lg),
	)
	if err != nil {
		return nil, d.fail("connect", "", "", err)
	}
	nd, err := p.GetNetworkDriver()
	if err != nil {
		return nil, d.fail("connect", "", "", err)
	}
	tr.prompt = nd.Channel.PromptPattern
	c := &conn{nd: nd, tr: tr}
	if err := d.withContext(ctx, c, nd.Open); err != nil {
		_ = tr.Close()
		return nil, d.fail("connect", "", "", classifyConnect(err))
	}
	d.errs = dedupe(append(append(append([]string(nil), nd.FailedWhenContains...), d.opt.Platform.CLIErrors...), d.dialect.Errors...))
	d.log.Debug("connected", zap.String("address", tr.addr))
	return c, nil
}

func (d *Driver) authMethods() ([]gossh.AuthMethod, error) {
	var methods []gossh.AuthMethod
	if d.opt.SSH.IdentityFile != "" {
		pem, err := os.ReadFile(d.opt.SSH.IdentityFile)
		if err != nil {
			return nil, fmt.Errorf("%w: reading identity file: %v", drivers.ErrAuth, err)
		}
		signer, err := gossh.ParsePrivateKey(pem)
		if err != nil {
			return nil, fmt.Errorf("%w: identity file %s: %v (passphrase-protected keys are not supported)", drivers.ErrAuth, d.opt.SSH.IdentityFile, err)
		}
		methods = append(methods, gossh.PublicKeys(signer))
	}
	if pw := d.opt.Creds.Password; pw != "" {
		methods = append(methods, gossh.Password(pw), gossh.KeyboardInteractive(
			func(_, _ string, questions []string, _ []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i := range answers {
					answers[i] = pw
				}
				return answers, nil
			}))
	}
	return methods, nil
}

// withContext runs a blocking scrapligo call and aborts it by closing the
// connection when the context ends first.
func (d *Driver) withContext(ctx context.Context, c *conn, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = c.tr.Close()
		<-done
		return ctx.Err()
	}
}

// drop forgets a dead or abandoned session. d.mu must be held.
func (d *Driver) drop() {
	if d.conn == nil {
		return
	}
	_ = d.conn.tr.Close()
	_ = d.conn.nd.Channel.Close()
	d.conn = nil
}

// send types one line and waits for the prompt. A line whose output holds
// an error string fails with ErrRejected, naming the line and the device's
// message; a lost connection fails with ErrUnreachable.
func (d *Driver) send(ctx context.Context, step, line string) (string, error) {
	return d.sendChecked(ctx, step, line, d.errs)
}

// sendFresh types one line as a sequence of its own, on a fresh session
// if the old one dropped (confirm, rollback and cleanup steps).
func (d *Driver) sendFresh(ctx context.Context, step, line string) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	_, err := d.send(ctx, step, line)
	return err
}

// sendQuiet types a line whose failure is only logged (cleanup steps).
func (d *Driver) sendQuiet(ctx context.Context, step, line string) {
	if _, err := d.sendChecked(ctx, step, line, d.errs); err != nil {
		d.log.Debug("cleanup command failed", zap.String("line", line), zap.Error(err))
	}
}

// sendChecked never reconnects by itself: a session lost in the middle of a
// sequence must abort it, not continue in a fresh shell in the wrong mode.
// Sequences start with d.ensure.
func (d *Driver) sendChecked(ctx context.Context, step, line string, errs []string) (string, error) {
	c := d.conn
	if c == nil {
		return "", d.fail(step, line, "", fmt.Errorf("%w (%w): connection lost", drivers.ErrUnreachable, drivers.ErrTransient))
	}
	var r *response.Response
	err := d.withContext(ctx, c, func() error {
		var err error
		r, err = c.nd.Driver.SendCommand(line, opoptions.WithTimeoutOps(d.opt.Timeout))
		return err
	})
	if err != nil {
		d.drop()
		return "", d.fail(step, line, "", classifyOp(err))
	}
	if e := failure(r.Result, errs); e != "" {
		return r.Result, d.fail(step, line, deviceMessage(r.Result, errs), drivers.ErrRejected)
	}
	return r.Result, nil
}

// Fetch reads and parses the running configuration.
func (d *Driver) Fetch(ctx context.Context) (*drivers.Running, error) {
	if d.opt.Platform.Parse == nil {
		return nil, d.fail("fetch", "", "", fmt.Errorf("%w: platform %q has no parser", drivers.ErrUnsupported, d.opt.Platform.Name))
	}
	raw, err := d.showRunning(ctx)
	if err != nil {
		return nil, err
	}
	return d.parseRunning(raw, d.showCmd)
}

// parseRunning parses what the running-config command printed. An answer
// that is an error message, or that parses to no configuration at all, is
// an error: read as an empty configuration it would make every owned line
// look missing.
func (d *Driver) parseRunning(raw, cmd string) (*drivers.Running, error) {
	if msg := errorAnswer(raw); msg != "" {
		return nil, d.fail("fetch", cmd, msg, fmt.Errorf("%w: the device answered the running-config command with an error", drivers.ErrRejected))
	}
	cfg, err := d.opt.Platform.Parse([]byte(raw))
	if err != nil {
		return nil, d.fail("fetch", cmd, "", fmt.Errorf("parsing the running configuration: %w", err))
	}
	if emptyConfig(cfg) {
		return nil, d.fail("fetch", cmd, devcfg.FirstLine(raw), fmt.Errorf("%w: the device returned no configuration", drivers.ErrRejected))
	}
	cfg.Device, cfg.Platform = d.opt.Device, d.opt.Platform.Name
	return drivers.NewRunning(cfg, d.opt.Platform, d.opt.Scope), nil
}

// emptyConfig: nothing parsed. A switch always has some configuration (a
// hostname, its ports).
func emptyConfig(c *devcfg.Config) bool {
	switch c.Shape {
	case devcfg.ShapeTree:
		return c.Tree.Len() == 0
	case devcfg.ShapePaths:
		return len(c.Paths) == 0
	}
	return false
}

// errorLead are first lines no running configuration starts with: the
// marks CLIs put on a refused command (IOS-style "%", "error:" and
// "syntax error", "Error:", a shell's "command not found").
var errorLead = regexp.MustCompile(`(?i)^(% |%$|error[: ]|syntax error|unknown command|invalid (command|input)|permission denied|-bash: |bash: |.*: command not found$)`)

// errorAnswer returns the first meaningful line of out when it is an error
// message, "" otherwise.
func errorAnswer(out string) string {
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.Trim(t, "^ ") == "" {
			continue
		}
		if errorLead.MatchString(t) {
			return t
		}
		return ""
	}
	return ""
}

// Show runs a read-only command (`show interface priority-flow-control`,
// `show pfc counters`, ...) and returns the device's output, for checks
// such as doctor's counter reads. Transient failures are retried on a
// fresh session; a command the device refuses fails with ErrRejected.
func (d *Driver) Show(ctx context.Context, command string) (string, error) {
	return d.readRetried(ctx, "show", command)
}

// showRunning reads the raw running configuration.
func (d *Driver) showRunning(ctx context.Context) (string, error) {
	return d.readRetried(ctx, "fetch", d.showCmd)
}

// readRetried runs a read-only command, retrying transient failures on a
// fresh connection.
func (d *Driver) readRetried(ctx context.Context, step, command string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out string
	err := drivers.Retry(ctx, d.opt.Retries, d.opt.Backoff, func(ctx context.Context) error {
		if _, err := d.ensure(ctx); err != nil {
			return err
		}
		var err error
		out, err = d.readCommand(ctx, step, command)
		return err
	})
	return out, err
}

// readCommand runs a show command. Its output is configuration, which may
// legitimately contain error-like words, so only the first lines are
// checked for the device refusing the command itself.
func (d *Driver) readCommand(ctx context.Context, step, line string) (string, error) {
	out, err := d.sendChecked(ctx, step, line, nil)
	if err != nil {
		return "", err
	}
	head := out
	for i, n := 0, 0; i < len(out); i++ {
		if out[i] == '\n' {
			if n++; n == 3 {
				head = out[:i]
				break
			}
		}
	}
	if e := failure(head, d.errs); e != "" {
		return "", d.fail(step, line, deviceMessage(head, d.errs), drivers.ErrRejected)
	}
	return out, nil
}

// Push applies the patch with the platform's dialect: its push sequence,
// run on this session, says how the change settles.
func (d *Driver) Push(ctx context.Context, patch devcfg.Patch, opt drivers.PushOptions) (drivers.Pending, error) {
	if opt.ConfirmWindow < 0 {
		return nil, d.fail("push", "", "", errors.New("negative confirm window"))
	}
	c := newChange(patch, opt)
	if patch.Empty() {
		return confirmed{id: c.id}, nil
	}
	// A caller that pushes again has moved on from its last change: keep it.
	d.keepHeld(ctx)
	d.mu.Lock()
	defer d.mu.Unlock()
	log := d.log.With(zap.String("change", c.id))
	log.Info("pushing", zap.Int("lines", len(patch.Lines)), zap.Int("updates", len(patch.Updates)), zap.Int("deletes", len(patch.Deletes)), zap.Duration("confirm_window", opt.ConfirmWindow))
	if err := d.startPush(ctx, patch); err != nil {
		return nil, err
	}
	st, err := d.dialect.Push(ctx, session{d: d, c: c}, devcfg.Push{ID: c.id, Run: c.run, Holder: c.holder(), Patch: patch, Changes: opt.Changes, Window: opt.ConfirmWindow})
	if st == nil && err == nil {
		// Nothing said to settle: the change was committed at once.
		st = &devcfg.Settle{Kind: devcfg.SettledNow}
	}
	return d.settled(c.id, st), err
}

// Cleanup removes what the interrupted run runID left on the device; with
// pendingConfirm (the run died while its change waited for confirmation)
// the change is rolled back if the device still holds it. See
// drivers.Cleaner.
func (d *Driver) Cleanup(ctx context.Context, runID string, pendingConfirm bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	if d.dialect.Cleanup == nil {
		return nil
	}
	c := change{id: "cleanup"}
	return d.dialect.Cleanup(ctx, session{d: d, c: c}, devcfg.Cleanup{Run: runID, Prefix: runPrefix(runID), Holder: c.holder(), PendingConfirm: pendingConfirm})
}

// startPush refuses a patch of the kind the dialect does not take (CLI
// lines, or path updates) and opens the session the push runs in.
func (d *Driver) startPush(ctx context.Context, patch devcfg.Patch) error {
	paths := len(patch.Updates) > 0 || len(patch.Deletes) > 0
	switch {
	case d.dialect.Lines && paths:
		return d.fail("push", "", "", fmt.Errorf("%w: path updates cannot be sent as %s CLI lines", drivers.ErrUnsupported, d.opt.Platform.Name))
	case !d.dialect.Lines && len(patch.Lines) > 0:
		return d.fail("push", "", "", fmt.Errorf("%w: %s takes path updates, not CLI lines", drivers.ErrUnsupported, d.opt.Platform.Name))
	}
	_, err := d.ensure(ctx)
	return err
}

// cleanupContext outlives a cancelled push: undoing a half-applied change
// must not be cut short by the cancellation that caused it.
func (d *Driver) cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 4*d.opt.Timeout)
}

// Close rolls back changes still waiting for confirmation on a rocefab-side
// timer (nobody would be left to run it), then logs out.
func (d *Driver) Close() error {
	cctx, cancel := context.WithTimeout(context.Background(), 4*d.opt.Timeout)
	d.keepHeld(cctx)
	cancel()
	d.mu.Lock()
	pend := make([]*localPending, 0, len(d.pending))
	for p := range d.pending {
		pend = append(pend, p)
	}
	d.mu.Unlock()
	var errs []error
	for _, p := range pend {
		d.log.Warn("rolling back an unconfirmed change at close", zap.String("change", p.id))
		ctx, cancel := context.WithTimeout(context.Background(), 4*d.opt.Timeout)
		if err := p.Rollback(ctx); err != nil {
			errs = append(errs, err)
		}
		cancel()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.conn != nil {
		c := d.conn
		d.conn = nil
		done := make(chan struct{})
		go func() {
			_ = c.nd.Close()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(d.opt.Timeout):
		}
		_ = c.tr.Close()
	}
	return errors.Join(errs...)
}

// keepHeld confirms the changes whose restore points the driver still
// keeps: committed, and left as they are by a caller that pushes again or
// closes.
func (d *Driver) keepHeld(ctx context.Context) {
	d.mu.Lock()
	held := make([]*heldPending, 0, len(d.held))
	for p := range d.held {
		held = append(held, p)
	}
	d.mu.Unlock()
	for _, p := range held {
		if err := p.Confirm(ctx); err != nil {
			d.log.Warn("keeping a change committed earlier", zap.String("change", p.id), zap.Error(err))
		}
	}
}

// newChangeID names a change: checkpoint, session and file names use it.
func newChangeID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return "rocefab-" + time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
