package sshsim

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gliderlabs/ssh"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Personality selects the device the simulator plays.
type Personality string

const (
	NXOS    Personality = "nxos"
	EOS     Personality = "eos"
	Junos   Personality = "junos"
	SONiC   Personality = "sonic"
	Cumulus Personality = "cumulus"
)

// PersonalityFor maps a rocefab platform name (renderer registry) to the
// simulator personality that plays it.
func PersonalityFor(platform string) (Personality, bool) {
	switch platform {
	case "nxos":
		return NXOS, true
	case "eos":
		return EOS, true
	case "junos":
		return Junos, true
	case "sonic":
		return SONiC, true
	case "cumulus":
		return Cumulus, true
	}
	return "", false
}

// Options configure a simulator.
type Options struct {
	Personality Personality
	// Hostname shows in prompts and the configuration; default "switch".
	Hostname string
	// Username and Password enable password authentication.
	Username string
	Password string
	// AuthorizedKeys enable public-key authentication for Username.
	AuthorizedKeys []gossh.PublicKey
	// NoAuth accepts every client without authentication: tests only.
	NoAuth bool
	// EnableSecret makes `enable` ask for a password (EOS, NX-OS).
	EnableSecret string
	// HostKey is the server's key; an ed25519 key is generated if nil.
	HostKey gossh.Signer
	// Second is how long one device second lasts, so tests can run
	// commit-confirmed and commit-timer windows quickly. Default 1s.
	Second time.Duration
	// Blank starts the device without the foreign configuration that a
	// production switch carries (other interfaces, users, class-maps...).
	Blank bool
	// BufferModel is a SONiC switch's buffer model: "dynamic" (the
	// default) or "traditional".
	BufferModel string
	// Ports is how many front-panel ports the device has (default 64 for
	// NX-OS and EOS, 48 otherwise); the foreign configuration sits on the
	// last ones.
	Ports int
	// Now is the device clock; default time.Now.
	Now    func() time.Time
	Logger *zap.Logger
}

// Faults make the simulator misbehave on purpose.
type Faults struct {
	// RejectLine rejects any received line containing it with the
	// platform's invalid-command error (SONiC: any JSON patch operation
	// whose path contains it). The line is not applied.
	RejectLine string
	// RejectMessage replaces the platform's error text for RejectLine.
	RejectMessage string
	// DropOnLine closes the connection right after a received line
	// containing it has been applied, without answering. It fires once.
	DropOnLine string
	// CommitError makes commit-type commands (commit, commit check,
	// nv config apply, config apply-patch) fail with this message.
	CommitError string
	// Delay holds every answer back this long.
	Delay time.Duration
	// RefuseAuth rejects every authentication attempt.
	RefuseAuth bool
	// Answers replaces the device's answer to any received line containing
	// a key with the key's value, without running the line (a device that
	// answers a show command with an error, or with nothing).
	Answers map[string]string
	// Steps break single received lines: each fires once, on the Nth line
	// (counted across sessions from SetFaults) that contains its Match.
	Steps []StepFault
}

// StepAction is what a StepFault does to its line.
type StepAction int

const (
	// DropBefore closes the connection as the line arrives: the device
	// never runs it.
	DropBefore StepAction = iota + 1
	// DropAfter runs the line, then closes the connection without an
	// answer: the change is made and the client never hears of it.
	DropAfter
	// Hang runs the line and never answers; the connection stays open
	// until the client gives up and closes it (a timeout).
	Hang
	// Slow runs the line and answers Delay later.
	Slow
)

func (a StepAction) String() string {
	switch a {
	case DropBefore:
		return "drop-before"
	case DropAfter:
		return "drop-after"
	case Hang:
		return "hang"
	case Slow:
		return "slow"
	}
	return "none"
}

// StepFault is one broken line.
type StepFault struct {
	// Match selects lines containing it (equal to it with Exact); empty
	// selects every line.
	Match string
	Exact bool
	// Nth is the occurrence among the selected lines, from 1 (0 is 1).
	Nth    int
	Action StepAction
	// Delay is how late a Slow answer comes.
	Delay time.Duration
}

// Counters are per-port PFC and ECN counters.
type Counters struct {
	PFCRx, PFCTx uint64
	ECNMarked    uint64
	TxPackets    uint64
}

// Sim is a running simulated switch.
type Sim struct {
	opt    Options
	log    *zap.Logger
	srv    *ssh.Server
	ln     net.Listener
	hostPK gossh.PublicKey

	mu       sync.Mutex
	dev      personality
	faults   Faults
	received []string
	conns    map[*gossh.ServerConn]struct{}
	timers   map[*time.Timer]struct{}
	closed   bool
	counters map[string]*Counters
	// lossless are the per-priority counters the JSON show commands serve
	// (countersjson.go), moved only by Jump.
	lossless  map[prioKey]uint64
	lldp      []LLDPNeighbor
	sessions  int
	authTries int
	// stepSeen counts the lines each step fault has selected so far.
	stepSeen []int
	// stepsFired counts the step faults that fired since SetFaults.
	stepsFired int
	// locks are flock(1) locks on device files, held by a session's open
	// file descriptor; files are small device files the shell commands
	// write (lock holders), by path.
	locks map[string]*session
	files map[string]string
}

// personality is one device's command language and state. Every method
// runs with Sim.mu held.
type personality interface {
	// login prepares a new CLI session and returns its banner.
	login(s *session) string
	// exec runs one line and returns its output.
	exec(s *session, line string) string
	prompt(s *session) string
	// logout ends a session (Junos discards a private candidate).
	logout(s *session)
	// config is the persistent configuration in device-native text,
	// without volatile lines such as timestamps.
	config() string
	// showRunning is what the platform's running-config command prints.
	showRunning() string
	// hand applies configuration as an operator at the console would.
	hand(lines []string) error
	// invalid is the platform's error for a rejected line.
	invalid(s *session, line string) string
	// pending reports whether a confirmable commit is waiting.
	pending() bool
}

// session is one SSH shell on the device.
type session struct {
	user string
	// privileged is false at an IOS `>` prompt.
	privileged bool
	// secret, when set, reads the next line without echo (a password).
	secret func(line string) string
	closed bool

	// IOS-style CLIs.
	inConfig   bool
	ctx        iosContext
	cfgSession string // EOS configure session name

	// Junos.
	junosMode      string // "", "private", "exclusive", "shared"
	junosCandidate []string
	junosBase      []string // what a private candidate was copied from

	// width is the terminal width NX-OS wraps output at (`terminal width`).
	width int
	// fds are the shell's open file descriptors (Linux shells), by number.
	fds map[int]string
}

// Start listens on 127.0.0.1:0 and serves the simulated device.
func Start(opt Options) (*Sim, error) {
	if opt.Hostname == "" {
		opt.Hostname = "switch"
	}
	if opt.Second <= 0 {
		opt.Second = time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	if opt.Ports <= 0 {
		opt.Ports = 48
		if opt.Personality == NXOS || opt.Personality == EOS {
			opt.Ports = 64
		}
	}
	if !opt.NoAuth && opt.Password == "" && len(opt.AuthorizedKeys) == 0 {
		return nil, errors.New("sshsim: set a password, authorized keys, or NoAuth")
	}
	s := &Sim{
		opt:      opt,
		log:      opt.Logger.Named("sshsim").With(zap.String("device", opt.Hostname), zap.String("personality", string(opt.Personality))),
		conns:    map[*gossh.ServerConn]struct{}{},
		timers:   map[*time.Timer]struct{}{},
		counters: map[string]*Counters{},
		lossless: map[prioKey]uint64{},
		locks:    map[string]*session{},
		files:    map[string]string{},
	}
	var err error
	if s.dev, err = newDevice(s); err != nil {
		return nil, err
	}
	signer := opt.HostKey
	if signer == nil {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		if signer, err = gossh.NewSignerFromKey(priv); err != nil {
			return nil, err
		}
	}
	s.hostPK = signer.PublicKey()
	s.srv = &ssh.Server{
		Handler:     s.handle,
		HostSigners: []ssh.Signer{signer},
		Version:     "OpenSSH_8.9",
		ConnCallback: func(ctx ssh.Context, conn net.Conn) net.Conn {
			return conn
		},
	}
	if !opt.NoAuth {
		if opt.Password != "" {
			s.srv.PasswordHandler = func(ctx ssh.Context, password string) bool {
				return s.authOK(ctx.User()) && password == opt.Password
			}
		}
		if len(opt.AuthorizedKeys) > 0 {
			s.srv.PublicKeyHandler = func(ctx ssh.Context, key ssh.PublicKey) bool {
				if !s.authOK(ctx.User()) {
					return false
				}
				for _, k := range opt.AuthorizedKeys {
					if ssh.KeysEqual(k, key) {
						return true
					}
				}
				return false
			}
		}
	} else {
		// gliderlabs/ssh skips authentication only when no handler is set;
		// a refusing fault still needs one.
		s.srv.PasswordHandler = func(ssh.Context, string) bool { return s.authOK("") }
		s.srv.PublicKeyHandler = func(ssh.Context, ssh.PublicKey) bool { return s.authOK("") }
		s.srv.KeyboardInteractiveHandler = func(ssh.Context, gossh.KeyboardInteractiveChallenge) bool { return s.authOK("") }
		s.srv.ServerConfigCallback = func(ssh.Context) *gossh.ServerConfig {
			return &gossh.ServerConfig{NoClientAuth: !s.currentFaults().RefuseAuth}
		}
	}
	if s.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	go func() { _ = s.srv.Serve(s.ln) }()
	s.log.Debug("simulator listening", zap.String("addr", s.ln.Addr().String()))
	return s, nil
}

func newDevice(s *Sim) (personality, error) {
	switch s.opt.Personality {
	case NXOS, EOS:
		return newIOSDevice(s)
	case Junos:
		return newJunosDevice(s)
	case SONiC:
		return newSONiCDevice(s)
	case Cumulus:
		return newNVUEDevice(s)
	}
	return nil, fmt.Errorf("sshsim: unknown personality %q", s.opt.Personality)
}

// Reset puts the device back to its state at Start: configuration,
// checkpoints, sessions, files, locks, timers, faults and received lines.
// Open connections are dropped first.
func (s *Sim) Reset() error {
	s.DropConnections()
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.timers {
		t.Stop()
	}
	s.timers = map[*time.Timer]struct{}{}
	dev, err := newDevice(s)
	if err != nil {
		return err
	}
	s.dev = dev
	s.faults, s.stepSeen, s.received = Faults{}, nil, nil
	s.locks, s.files = map[string]*session{}, map[string]string{}
	return nil
}

func (s *Sim) authOK(user string) bool {
	s.mu.Lock()
	s.authTries++
	s.mu.Unlock()
	if s.currentFaults().RefuseAuth {
		return false
	}
	return s.opt.NoAuth || user == s.opt.Username
}

func (s *Sim) currentFaults() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// Addr is the host:port to connect to.
func (s *Sim) Addr() string { return s.ln.Addr().String() }

// HostKey is the server's public host key.
func (s *Sim) HostKey() gossh.PublicKey { return s.hostPK }

// KnownHostsLine is the known_hosts entry for this simulator.
func (s *Sim) KnownHostsLine() string {
	return knownhosts.Line([]string{knownhosts.Normalize(s.Addr())}, s.hostPK)
}

// Close stops the server, drops every connection and cancels device timers.
func (s *Sim) Close() error {
	s.mu.Lock()
	s.closed = true
	for t := range s.timers {
		t.Stop()
	}
	s.timers = map[*time.Timer]struct{}{}
	s.mu.Unlock()
	return s.srv.Close()
}

// DropConnections closes every open SSH connection, as a device reboot or
// an idle timeout would.
func (s *Sim) DropConnections() {
	s.mu.Lock()
	conns := make([]*gossh.ServerConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// Config returns the device's configuration in its native form, without
// volatile lines (timestamps), for byte-identical comparisons.
func (s *Sim) Config() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dev.config()
}

// ShowRunning returns exactly what the platform's running-config command
// prints now.
func (s *Sim) ShowRunning() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dev.showRunning()
}

// HandChange applies configuration as an operator would at the console,
// bypassing faults: NX-OS/EOS configuration-mode lines (context lines enter
// sub-modes), Junos `set`/`delete` statements (committed at once), NVUE
// `nv set`/`nv unset` commands (applied at once), SONiC
// `SET /TABLE/key/field value` and `DEL /TABLE[/key[/field]]` lines.
func (s *Sim) HandChange(lines ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dev.hand(lines)
}

// SetFaults replaces the active faults.
func (s *Sim) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	s.stepSeen = make([]int, len(f.Steps))
	s.stepsFired = 0
}

// StepsFired is how many step faults fired since SetFaults: a test that
// breaks a step can prove it broke it.
func (s *Sim) StepsFired() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stepsFired
}

// stepFor returns the step fault a received line triggers, if any, and
// spends it. s.mu must be held.
func (s *Sim) stepFor(line string) (StepFault, bool) {
	for i, f := range s.faults.Steps {
		if f.Action == 0 || (f.Exact && line != f.Match) || (!f.Exact && f.Match != "" && !strings.Contains(line, f.Match)) {
			continue
		}
		s.stepSeen[i]++
		nth := f.Nth
		if nth < 1 {
			nth = 1
		}
		if s.stepSeen[i] == nth {
			s.stepsFired++
			return f, true
		}
	}
	return StepFault{}, false
}

// Leftovers lists what rocefab could leave behind on the device: NX-OS
// checkpoints, bootflash files and a pending configure replace, EOS
// configuration sessions, a staged NVUE revision, a pending confirmable
// commit, SONiC checkpoints and files, and held locks. A clean device has
// none.
func (s *Sim) Leftovers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	switch d := s.dev.(type) {
	case *iosDevice:
		for n := range d.checkpoints {
			out = append(out, "checkpoint "+n)
		}
		for n := range d.bootflash {
			out = append(out, "bootflash:"+n)
		}
		if d.replace != nil {
			out = append(out, "configure replace pending")
		}
		for n := range d.sessions {
			out = append(out, "session "+n)
		}
	case *junosDevice:
		if d.exclusive != nil {
			out = append(out, "exclusive lock")
		}
	case *nvueDevice:
		if d.staged != nil {
			out = append(out, "staged revision")
		}
	case *sonicDevice:
		for n := range d.checkpoints {
			out = append(out, "checkpoint "+n)
		}
		for n := range d.files {
			out = append(out, "file "+n)
		}
	}
	if s.dev.pending() {
		out = append(out, "pending commit")
	}
	for p := range s.locks {
		out = append(out, "lock "+p)
	}
	sort.Strings(out)
	return out
}

// Received returns every line the device received, in order, across
// sessions (passwords typed at a prompt are recorded as "<secret>").
func (s *Sim) Received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.received...)
}

// ResetReceived forgets the received lines.
func (s *Sim) ResetReceived() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = nil
}

// PendingCommit reports whether a confirmable commit (Junos commit
// confirmed, EOS commit timer, NVUE apply --confirm) is waiting.
func (s *Sim) PendingCommit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dev.pending()
}

// Sessions counts the SSH shells opened so far.
func (s *Sim) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// AuthAttempts counts authentication attempts (password, key, none-less
// keyboard-interactive) the server judged.
func (s *Sim) AuthAttempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authTries
}

// Checkpoints lists the device's configuration checkpoints (NX-OS
// `checkpoint`, SONiC `config checkpoint`), sorted.
func (s *Sim) Checkpoints() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	switch d := s.dev.(type) {
	case *iosDevice:
		for n := range d.checkpoints {
			names = append(names, n)
		}
	case *sonicDevice:
		for n := range d.checkpoints {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// AddCounters adds to a port's PFC/ECN counters, on top of the movement the
// device shows on its own for ports with PFC enabled.
func (s *Sim) AddCounters(port string, c Counters) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.counterFor(port)
	cur.PFCRx += c.PFCRx
	cur.PFCTx += c.PFCTx
	cur.ECNMarked += c.ECNMarked
	cur.TxPackets += c.TxPackets
}

func (s *Sim) counterFor(port string) *Counters {
	c, ok := s.counters[port]
	if !ok {
		c = &Counters{}
		s.counters[port] = c
	}
	return c
}

// tick moves the counters of lossless ports, as traffic would, each time
// the counters are read.
func (s *Sim) tick(port string, lossless bool) Counters {
	c := s.counterFor(port)
	if lossless {
		c.PFCRx += 3
		c.PFCTx += 5
		c.ECNMarked += 11
	}
	c.TxPackets += 1000
	return *c
}

// after runs fn with s.mu held after d device seconds, unless the
// simulator closed first. The returned stop cancels it.
func (s *Sim) after(deviceSeconds float64, fn func()) (stop func() bool) {
	var t *time.Timer
	t = time.AfterFunc(time.Duration(deviceSeconds*float64(s.opt.Second)), func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.timers[t]; !ok || s.closed {
			return
		}
		delete(s.timers, t)
		fn()
	})
	s.timers[t] = struct{}{}
	return func() bool {
		_, active := s.timers[t]
		delete(s.timers, t)
		return t.Stop() && active
	}
}

func (s *Sim) now() time.Time { return s.opt.Now() }

func (s *Sim) hostname() string { return s.opt.Hostname }
