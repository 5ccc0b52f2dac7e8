package devcfg

import (
	"context"
	"math"
	"regexp"
	"strings"
	"time"

	"go.uber.org/zap"
)

// Dialect is how a CLI platform is pushed over SSH: its data (scrapligo
// definition, error strings, rejection mark) and its push and cleanup
// sequences, written against Session. The platform's folder supplies it;
// the SSH driver runs it and knows no vendor.
type Dialect struct {
	// Definition is a scrapligo platform definition (YAML) for a platform
	// scrapligo ships none for; nil uses its embedded Platform.Scrapli.
	Definition []byte
	// Errors are strings the device prints on a refused command, besides
	// Platform.CLIErrors and the scrapligo definition's, so a rejected
	// command is never taken for success.
	Errors []string
	// RejectMark, when set, fails a configuration line whose output has a
	// line starting with it ("% "), even outside Errors.
	RejectMark string
	// Lines: the platform takes CLI lines (Patch.Lines); otherwise path
	// updates and deletes.
	Lines bool
	// Push applies the change. It returns how the change is settled
	// (nil when nothing stays pending), with an error when it failed; a
	// settle returned with an error is a change whose outcome is unknown.
	Push func(ctx context.Context, s Session, c Push) (*Settle, error)
	// Cleanup removes what an interrupted run left. It may be nil.
	Cleanup func(ctx context.Context, s Session, c Cleanup) error
}

// Cleanup is an interrupted run as a dialect's cleanup sees it.
type Cleanup struct {
	Run string
	// Prefix starts the name of every device object the run's pushes made.
	Prefix string
	// Holder says who cleans up, for lock descriptions.
	Holder string
	// PendingConfirm: the run died while its change waited for
	// confirmation; the change is rolled back if the device still holds it.
	PendingConfirm bool
}

// Push is one change as a dialect sees it.
type Push struct {
	// ID names what the push leaves on the device (sessions, checkpoints,
	// files, commit comments).
	ID string
	// Run is the run ID ("" outside a run).
	Run string
	// Holder says who pushes (run, host, process), for lock descriptions.
	Holder string
	Patch  Patch
	// Changes are what Patch was built from, for a dialect that writes
	// the whole configuration instead of typing lines (NX-OS configure
	// replace); nil when the caller had none.
	Changes []Change
	// Window is the confirm window; zero commits at once.
	Window time.Duration
}

// Failure is the kind of error a dialect reports; the driver maps it onto
// its sentinel errors.
type Failure int

const (
	FailOther         Failure = iota
	FailRejected              // the device refused
	FailLocked                // another runner holds the device
	FailStale                 // planned against another configuration
	FailUnsupported           // the platform cannot do it
	FailCommitUnknown         // the change may or may not have taken effect
)

// SettleKind says who settles a pushed change.
type SettleKind int

const (
	// SettledNow: committed at once, nothing to confirm.
	SettledNow SettleKind = iota
	// SettleHeld: committed at once; the restore point stays until the
	// caller confirms (Discard) or rolls back (Rollback).
	SettleHeld
	// SettleDevice: the device rolls back after Window unless Confirm
	// runs first.
	SettleDevice
	// SettleLocal: the driver rolls back (Rollback) when Window ends.
	SettleLocal
)

// Settle is how a pushed change is confirmed or rolled back. The funcs run
// with the driver's lock held.
type Settle struct {
	Kind SettleKind
	// Window is the rocefab-side timer of a SettleLocal change.
	Window time.Duration
	// Deadline is when the device rolls a SettleDevice change back.
	Deadline time.Time
	// Confirm keeps a SettleDevice change.
	Confirm func(context.Context) error
	// Rollback takes the change back (SettleDevice), or restores the
	// restore point (SettleHeld, SettleLocal).
	Rollback func(context.Context) error
	// Discard drops the restore point of a kept change (SettleHeld,
	// SettleLocal).
	Discard func(context.Context) error
	// Leftovers removes what the device keeps after rolling back by
	// itself (SettleDevice); may be nil.
	Leftovers func(context.Context)
	// Done runs once a SettleDevice change is settled (a lock release);
	// may be nil.
	Done func(context.Context)
	// Reverts: a SettleHeld change stands under the device's own rollback
	// timer until Discard confirms it (NX-OS commit-timeout), so a failed
	// or unanswered Discard is no mere leftover: the caller reads the
	// device back to learn which way it went.
	Reverts bool
}

// Session is the SSH driver's side of a dialect: one shell on the device,
// lines typed and answered, and the generic bookkeeping around them.
// Errors it returns carry the device, step and line already.
type Session interface {
	// Send types a line and waits for the prompt; output holding an
	// error string fails it as rejected. It never reconnects.
	Send(ctx context.Context, step, line string) (string, error)
	// SendQuiet types a line whose failure is only logged.
	SendQuiet(ctx context.Context, step, line string)
	// SendRaw types a line without checking its output for errors.
	SendRaw(ctx context.Context, step, line string) (string, error)
	// SendFresh types a line on a fresh session if the old one dropped.
	SendFresh(ctx context.Context, step, line string) error
	// Commit types a line that commits: a lost answer is FailCommitUnknown.
	Commit(ctx context.Context, step, line string) (string, error)
	// Read runs a show command; only its first lines are checked for a
	// refusal.
	Read(ctx context.Context, step, line string) (string, error)
	// CleanupSend types a cleanup line on a fresh session if need be; a
	// refusal holding one of gone means the thing is gone already.
	CleanupSend(ctx context.Context, step, line string, gone ...string) error
	// Configure enters a context, types the lines and leaves; on the first
	// rejected line it types abandon and fails.
	Configure(ctx context.Context, enter string, lines []string, leave, abandon string) error
	// Ensure opens a session if there is none.
	Ensure(ctx context.Context) error
	// Connected reports whether a session is open.
	Connected() bool
	// ShowRunning is the platform's running-config command.
	ShowRunning() string
	// CheckExpect reads the running configuration with cmd and refuses
	// (FailStale) a push planned against another one; it reads nothing
	// when the push expects none.
	CheckExpect(ctx context.Context, cmd string) error
	// ReadRunning reads the running configuration with cmd, checks it as
	// CheckExpect does and returns it raw.
	ReadRunning(ctx context.Context, cmd string) (string, error)
	// WriteFile copies data to path on the device over the session's SSH
	// connection (SCP). A device that refuses the copy fails it with
	// FailUnsupported.
	WriteFile(ctx context.Context, path string, data []byte) error
	// ShellLock takes the lock runners on a Linux shell share, or fails
	// with FailLocked naming its holder; ShellUnlock releases it.
	ShellLock(ctx context.Context, holder string) error
	ShellUnlock(ctx context.Context)
	// Undo restores the pre-push state after a failed push and returns
	// pushErr; a failed restore makes it FailCommitUnknown.
	Undo(ctx context.Context, pushErr error, restore func(context.Context) error, what string) error
	// CleanupContext outlives a cancelled push.
	CleanupContext(ctx context.Context) (context.Context, context.CancelFunc)
	// Fail builds a device error of a kind; msg is what the device said.
	Fail(step, line, msg string, kind Failure, err error) error
	// WithLine names line as the one a device error of the session failed
	// on; other errors are returned as they are.
	WithLine(err error, line string) error
	// Locked turns a device's refusal into FailLocked naming holder.
	Locked(err error, holder string) error
	// CommitUnknown marks a failed committing line's outcome unknown,
	// unless the device refused.
	CommitUnknown(err error) error
	// Is reports whether err is of a kind.
	Is(err error, kind Failure) bool
	// Message is what the device said about an error in out.
	Message(out string) string
	// Timeout bounds one command.
	Timeout() time.Duration
	Log() *zap.Logger
}

// StaleAfter is how old a device lock without a live pending commit may be
// before it is taken for the leftover of a runner that died: no push keeps
// a device that long without committing.
const StaleAfter = 15 * time.Minute

// idTime finds the time in a run ID (20260102T150405.000000Z-...) or a
// change ID (rocefab-20260102-150405-... or rocefab-20260102T150405...).
var idTime = regexp.MustCompile(`(\d{8})[T-](\d{6})`)

// StaleID reports whether a change ID (or a text holding one) was made
// longer than StaleAfter ago.
func StaleID(s string, now time.Time) bool {
	m := idTime.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	at, err := time.Parse("20060102150405", m[1]+m[2])
	return err == nil && now.Sub(at) > StaleAfter
}

// CeilUnits rounds a window up to whole units, never below one.
func CeilUnits(window, unit time.Duration) int64 {
	n := int64(math.Ceil(float64(window) / float64(unit)))
	if n < 1 {
		n = 1
	}
	return n
}

// FirstLine is the first non-blank line of s, trimmed.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
