package ssh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
)

// change is one push: what it names on the device, whose it is and what
// it was planned against.
type change struct {
	// id names what the push leaves on the device: sessions, files,
	// commit comments.
	id string
	// run is the run ID ("" outside a run).
	run   string
	opt   drivers.PushOptions
	patch devcfg.Patch
}

func newChange(patch devcfg.Patch, opt drivers.PushOptions) change {
	c := change{id: newChangeID(), run: opt.RunID, opt: opt, patch: patch}
	if opt.RunID != "" {
		// One run may push a device twice (a change, then its restore):
		// each push names its own objects, all under the run's prefix.
		var b [2]byte
		_, _ = rand.Read(b[:])
		c.id = runPrefix(opt.RunID) + hex.EncodeToString(b[:])
	}
	return c
}

// runPrefix starts the name of every device object a run's pushes make:
// the run ID in the characters every platform takes in session,
// checkpoint and file names.
func runPrefix(runID string) string {
	return "rocefab-" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return -1
	}, runID) + "-"
}

// holder says who holds a device lock, for the error another runner sees:
// the run, the host and the process.
func (c change) holder() string {
	who := "change " + c.id
	if c.run != "" {
		who = "run " + c.run
	}
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r <= ' ' || r == '\'' || r == '"' || r > '~' {
			return -1
		}
		return r
	}, host)
	if host != "" {
		who += " on " + host
	}
	return fmt.Sprintf("%s pid %d", who, os.Getpid())
}

// commitUnknown turns the failure of a line that commits into
// ErrCommitUnknown, unless the device answered with a refusal: the line
// was sent and its answer lost, so the change may have taken effect.
func commitUnknown(err error) error {
	if err == nil || errors.Is(err, drivers.ErrRejected) || errors.Is(err, drivers.ErrCommitUnknown) {
		return err
	}
	var de *drivers.DeviceError
	if errors.As(err, &de) {
		cp := *de
		cp.Err = fmt.Errorf("%w: %w", drivers.ErrCommitUnknown, de.Err)
		return &cp
	}
	return fmt.Errorf("%w: %w", drivers.ErrCommitUnknown, err)
}

// commitSend types a line that commits: a lost answer makes the outcome
// unknown, never "unchanged".
func (d *Driver) commitSend(ctx context.Context, step, line string) (string, error) {
	out, err := d.send(ctx, step, line)
	return out, commitUnknown(err)
}

// readExpected reads the running configuration with cmd while the push
// holds the device lock, refuses a push planned against another one, and
// returns what the device printed. d.mu is held.
func (d *Driver) readExpected(ctx context.Context, c change, cmd string) (string, error) {
	raw, err := d.readCommand(ctx, "push", cmd)
	if err != nil {
		return "", err
	}
	if c.opt.Expect == "" {
		return raw, nil
	}
	run, err := d.parseRunning(raw, cmd)
	if err != nil {
		return "", err
	}
	if run.Fingerprint != c.opt.Expect {
		return "", d.fail("push", "", "", fmt.Errorf("%w: planned against %s, the device holds %s now", drivers.ErrStale, shortFP(c.opt.Expect), shortFP(run.Fingerprint)))
	}
	return raw, nil
}

func shortFP(fp string) string {
	if len(fp) > 19 {
		return fp[:19]
	}
	return fp
}

// The lock Linux-shell switches share between rocefab runners,
// wherever they run: flock(1) on a file in /run/lock, held through a file
// descriptor of the login shell, so the kernel releases it when the shell
// ends, also when rocefab dies or the connection drops.
const (
	linuxLockFile   = "/run/lock/rocefab.lock"
	linuxHolderFile = "/run/lock/rocefab.holder"
	linuxLockFD     = "9"
)

// shellLock takes the lock in the current shell or fails with ErrLocked
// naming the holder. d.mu is held.
func (d *Driver) shellLock(ctx context.Context, who string) error {
	if _, err := d.send(ctx, "lock", "exec "+linuxLockFD+">>"+linuxLockFile); err != nil {
		return err
	}
	out, err := d.send(ctx, "lock", "flock -n "+linuxLockFD+`; echo "flock=$?"`)
	if err != nil {
		return err
	}
	if !strings.Contains(out, "flock=0") {
		holder, _ := d.sendChecked(ctx, "lock", "cat "+linuxHolderFile, nil)
		holder = devcfg.FirstLine(holder)
		if holder == "" || strings.Contains(holder, "No such file") {
			holder = "another rocefab runner"
		}
		return d.fail("lock", "", "", fmt.Errorf("%w: %s holds %s (it is released when that runner's session ends)", drivers.ErrLocked, holder, linuxLockFile))
	}
	_, err = d.send(ctx, "lock", "echo '"+who+"' > "+linuxHolderFile)
	return err
}

// shellUnlock closes the descriptor, releasing the lock. d.mu is held.
func (d *Driver) shellUnlock(ctx context.Context) {
	if d.conn != nil {
		d.sendQuiet(ctx, "lock", "exec "+linuxLockFD+">&-")
	}
}

// lockedError turns a device's refusal to lock into ErrLocked.
func lockedError(err error, holder string) error {
	var de *drivers.DeviceError
	if !errors.As(err, &de) || !errors.Is(err, drivers.ErrRejected) {
		return err
	}
	cp := *de
	cp.Err = fmt.Errorf("%w: %s", drivers.ErrLocked, holder)
	return &cp
}

// cleanupSend types a cleanup line (removing a checkpoint, a file, a
// session) on a fresh session if need be, retried once when the session
// drops. A refusal holding one of gone ("does not exist") means the thing
// is gone already, which is what was wanted. d.mu is held.
func (d *Driver) cleanupSend(ctx context.Context, step, line string, gone ...string) error {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if _, err = d.ensure(ctx); err != nil {
			continue
		}
		var out string
		out, err = d.send(ctx, step, line)
		if err == nil {
			return nil
		}
		if errors.Is(err, drivers.ErrRejected) {
			var de *drivers.DeviceError
			msg := out
			if errors.As(err, &de) {
				msg += de.Msg
			}
			for _, g := range gone {
				if strings.Contains(msg, g) {
					return nil
				}
			}
			return err
		}
	}
	return err
}
