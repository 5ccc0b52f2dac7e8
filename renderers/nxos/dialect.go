package nxos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
)

// Dialect pushes NX-OS over SSH: a checkpoint as restore point and lock,
// the whole configuration replaced in one step under NX-OS's commit timer
// (the lines typed in configuration mode where it cannot be), confirmed
// once read back.
var Dialect = &devcfg.Dialect{
	Errors:     []string{"% Invalid", "ERROR:", "% Incomplete", "% Ambiguous"},
	RejectMark: "% ", // NX-OS marks every refusal so
	Lines:      true,
	Push:       push,
	Cleanup:    cleanup,
}

// checkpoint is the checkpoint every NX-OS push takes first. It is
// the restore point and the device-side lock in one: Cisco's Nexus 9000
// System Management Configuration Guide (Configuring the Rollback
// Feature) says "Checkpoint names must be unique. You cannot overwrite
// previously saved checkpoints with the same name", so creating it fails
// while another run holds it, and its description (up to 80 characters)
// names that run in `show checkpoint summary`. NX-OS keeps at most ten
// checkpoints, so every push removes its own again.
const checkpoint = "rocefab"

// NX-OS's commit timer for `configure replace ... commit-timeout`: "The
// timer value range is between 30-3600 seconds" (Cisco NX-OS
// Configuration Replace and Commit-timeout).
const (
	minCommitTimeout = 30
	maxCommitTimeout = 3600
)

// push takes the checkpoint (restore point and lock), then writes the
// whole new configuration and replaces the running one with it in one
// step (replaced). Where that cannot be done it types the lines instead.
//
// Typed lines take effect one by one: NX-OS applies each line as it is
// typed, so a rocefab killed in the middle leaves the device half
// changed, with the checkpoint (and the run's record) behind for the
// next run to restore or finish. Typed, a confirm window uses NX-OS's
// own rollback timer (armTimer); windows beyond NX-OS's 3600 s fall back
// to a rocefab-side timer.
func push(ctx context.Context, s devcfg.Session, c devcfg.Push) (*devcfg.Settle, error) {
	if err := lock(ctx, s, c); err != nil {
		return nil, err
	}
	restore := func(ctx context.Context) error { return restoreCheckpoint(ctx, s) }
	release := func(ctx context.Context) error {
		return s.CleanupSend(ctx, "confirm", "no checkpoint "+checkpoint, "does not exist")
	}
	releaseAfter := func(err error) error {
		cctx, cancel := s.CleanupContext(ctx)
		defer cancel()
		if rerr := release(cctx); rerr != nil {
			s.Log().Warn("push refused, and its checkpoint could not be removed; the next run removes it", zap.String("change", c.ID), zap.Error(rerr))
		}
		return err
	}
	if st, err, done := replaced(ctx, s, c, releaseAfter); done {
		return st, err
	}
	if err := s.CheckExpect(ctx, s.ShowRunning()); err != nil {
		return nil, releaseAfter(err)
	}
	if err := s.Configure(ctx, "configure terminal", c.Patch.Lines, "end", "end"); err != nil {
		return nil, s.Undo(ctx, err, restore, "checkpoint "+checkpoint)
	}
	if c.Window == 0 {
		// The checkpoint stays until the caller read the device back.
		return &devcfg.Settle{Kind: devcfg.SettleHeld, Rollback: restore, Discard: release}, nil
	}
	secs, ok := commitTimeout(s, c)
	if !ok {
		return &devcfg.Settle{Kind: devcfg.SettleLocal, Window: c.Window, Rollback: restore, Discard: release}, nil
	}
	return armTimer(ctx, s, c, secs)
}

// commitTimeout is NX-OS's commit timer for the push's confirm window, or
// false (logged) when the window is longer than the timer allows and must
// run on a rocefab-side timer.
func commitTimeout(s devcfg.Session, c devcfg.Push) (int64, bool) {
	secs := max(devcfg.CeilUnits(c.Window, time.Second), minCommitTimeout)
	if secs > maxCommitTimeout {
		s.Log().Warn("NX-OS's commit timer allows at most 3600 s: this confirm window runs on a rocefab-side timer, which a dying rocefab cannot honour",
			zap.String("change", c.ID), zap.Duration("window", c.Window))
		return 0, false
	}
	return secs, true
}

// restoreFile restores the checkpoint and removes the change's file.
func restoreFile(ctx context.Context, s devcfg.Session, file string) error {
	if err := restoreCheckpoint(ctx, s); err != nil {
		return err
	}
	s.SendQuiet(ctx, "rollback", "delete bootflash:"+file+" no-prompt")
	return nil
}

// heldFor is the commit timer of a change pushed without a confirm
// window: the caller confirms it once it read the device back, and a
// rocefab that dies before that leaves the device rolling back by itself.
const heldFor = 120

// replaced writes the running configuration with the change applied to
// bootflash: over SCP and swaps it in with `configure replace`, which
// applies the difference as one operation: "If the configure replace
// operation fails ... the original configuration is restored" and with
// `commit-timeout` "If the commit timer expires, the rollback operation
// is automatically initiated" (Cisco Nexus 9000 NX-OS System Management
// Configuration Guide, Performing Configuration Replace). Ansible's
// cisco.nxos collection pushes whole configurations the same way
// (nxos_file_copy to bootflash:, nxos_config replace: config with
// replace_src), and Netmiko's file_transfer copies to file_system
// "bootflash:" over SCP, which needs `feature scp-server`. A rocefab
// killed at any point leaves the device whole: old before the replace,
// new after it and old again once the timer ends unless confirmed.
//
// done is false when the push should type its lines instead: no changes
// to build the file from, a running configuration the candidate cannot be
// built from faithfully (Candidate), or SCP refused.
func replaced(ctx context.Context, s devcfg.Session, c devcfg.Push, releaseAfter func(error) error) (st *devcfg.Settle, err error, done bool) {
	if len(c.Changes) == 0 {
		return nil, nil, false
	}
	secs := int64(heldFor)
	if c.Window > 0 {
		secs, _ = commitTimeout(s, c) // 0: a rocefab-side timer, below
	}
	raw, err := s.ReadRunning(ctx, s.ShowRunning())
	if err != nil {
		return nil, releaseAfter(err), true
	}
	cand, err := Candidate(raw, c.Changes)
	if err != nil {
		s.Log().Warn("typing the lines one by one instead of replacing the configuration whole: a rocefab killed meanwhile leaves the device half changed until the next run restores it",
			zap.String("change", c.ID), zap.Error(err))
		return nil, nil, false
	}
	file := c.ID + ".cfg"
	if err := s.WriteFile(ctx, "bootflash:"+file, []byte(cand)); err != nil {
		if s.Is(err, devcfg.FailUnsupported) {
			s.Log().Warn("the switch refused the SCP copy of the new configuration (enable `feature scp-server`): typing the lines one by one instead, so a rocefab killed meanwhile leaves the device half changed until the next run restores it",
				zap.String("change", c.ID), zap.Error(err))
			return nil, nil, false
		}
		// The copy may have landed before the connection went.
		cctx, cancel := s.CleanupContext(ctx)
		defer cancel()
		if derr := s.CleanupSend(cctx, "rollback", "delete bootflash:"+file+" no-prompt", "No such file"); derr != nil {
			s.Log().Warn("could not remove the copied file; the next run removes it", zap.String("file", file), zap.Error(derr))
		}
		return nil, releaseAfter(err), true
	}
	pending := replaceSettle(s, c, file, secs)
	line := "configure replace bootflash:" + file
	if secs > 0 {
		line += fmt.Sprintf(" commit-timeout %d", secs)
	}
	out, err := s.Commit(ctx, "commit", line)
	if err == nil && strings.Contains(strings.ToLower(out), "replace failed") {
		// NX-OS restored the original configuration; the read below and
		// the caller's read-back make sure whatever the wording.
		err = s.Fail("commit", line, s.Message(out), devcfg.FailRejected, errors.New("configure replace failed"))
	}
	if err != nil {
		if s.Is(err, devcfg.FailCommitUnknown) {
			return pending, err, true
		}
		// A failed replace restores the original configuration by itself;
		// the checkpoint makes sure of it.
		restore := func(ctx context.Context) error { return restoreFile(ctx, s, file) }
		return nil, s.Undo(ctx, err, restore, "checkpoint "+checkpoint), true
	}
	s.Log().Info("configuration replaced whole; NX-OS rolls it back unless confirmed", zap.String("change", c.ID), zap.Int64("seconds", secs))
	return pending, nil, true
}

// replaceSettle is how a replaced configuration is confirmed or rolled
// back: held under the commit timer until read back (no window), under the
// device's timer for the window, or on a rocefab-side timer for windows
// NX-OS's cannot hold (secs 0).
func replaceSettle(s devcfg.Session, c devcfg.Push, file string, secs int64) *devcfg.Settle {
	back := func(ctx context.Context) error { return rollback(ctx, s, file) }
	keep := func(ctx context.Context) error { return confirm(ctx, s, file) }
	switch {
	case secs == 0:
		return &devcfg.Settle{
			Kind: devcfg.SettleLocal, Window: c.Window,
			Rollback: func(ctx context.Context) error { return restoreFile(ctx, s, file) },
			Discard:  func(ctx context.Context) error { discard(ctx, s, file); return nil },
		}
	case c.Window == 0:
		return &devcfg.Settle{Kind: devcfg.SettleHeld, Reverts: true, Rollback: back, Discard: keep}
	}
	return &devcfg.Settle{
		Kind:      devcfg.SettleDevice,
		Deadline:  time.Now().Add(time.Duration(secs) * time.Second),
		Confirm:   keep,
		Rollback:  back,
		Leftovers: func(ctx context.Context) { discard(ctx, s, file) },
	}
}

// armTimer moves the just-applied change under NX-OS's commit timer.
func armTimer(ctx context.Context, s devcfg.Session, c devcfg.Push, secs int64) (*devcfg.Settle, error) {
	file := c.ID + ".cfg"
	restore := func(ctx context.Context) error { return restoreFile(ctx, s, file) }
	if _, err := s.Send(ctx, "push", "copy running-config bootflash:"+file); err != nil {
		return nil, s.Undo(ctx, err, restore, "checkpoint "+checkpoint)
	}
	if _, err := s.Send(ctx, "push", "rollback running-config checkpoint "+checkpoint); err != nil {
		return nil, s.Undo(ctx, err, restore, "checkpoint "+checkpoint)
	}
	pending := replaceSettle(s, c, file, secs)
	replace := fmt.Sprintf("configure replace bootflash:%s commit-timeout %d", file, secs)
	if _, err := s.Commit(ctx, "commit", replace); err != nil {
		if s.Is(err, devcfg.FailCommitUnknown) {
			return pending, err
		}
		// A failed replace restores the original configuration by itself.
		cctx, cancel := s.CleanupContext(ctx)
		defer cancel()
		discard(cctx, s, file)
		return nil, err
	}
	s.Log().Info("change under NX-OS's commit timer; the device rolls it back unless confirmed", zap.String("change", c.ID), zap.Int64("seconds", secs))
	return pending, nil
}

// confirm stops the commit timer and removes the checkpoint and file. A
// device that says nothing waits for commit has ended the timer one way
// or the other: what is left goes too, and the caller reads it back.
func confirm(ctx context.Context, s devcfg.Session, file string) error {
	if err := s.Ensure(ctx); err != nil {
		return err
	}
	if _, err := s.Send(ctx, "confirm", "configure replace commit"); err != nil {
		err = s.CommitUnknown(err)
		if !s.Is(err, devcfg.FailCommitUnknown) {
			discard(ctx, s, file)
		}
		return err
	}
	discard(ctx, s, file)
	return nil
}

// rollback restores the checkpoint before stopping the timer, so a
// rocefab dying in between still leaves the timer to roll back.
func rollback(ctx context.Context, s devcfg.Session, file string) error {
	if err := s.Ensure(ctx); err != nil {
		return err
	}
	if _, err := s.Send(ctx, "rollback", "rollback running-config checkpoint "+checkpoint); err != nil {
		return err
	}
	s.SendQuiet(ctx, "rollback", "configure replace commit")
	discard(ctx, s, file)
	return nil
}

// discard removes the checkpoint and the replace file; what is left is
// only logged, the next run removes it.
func discard(ctx context.Context, s devcfg.Session, file string) {
	for _, l := range []string{"delete bootflash:" + file + " no-prompt", "no checkpoint " + checkpoint} {
		if err := s.CleanupSend(ctx, "confirm", l, "No such file", "does not exist"); err != nil {
			s.Log().Warn("could not remove what the change left; the next run removes it", zap.String("line", l), zap.Error(err))
		}
	}
}

// lock creates the checkpoint or fails with a lock error naming the run
// holding it. A checkpoint left more than devcfg.StaleAfter ago by a run
// whose commit timer no longer runs is the leftover of a dead runner: it
// is removed and taken over.
func lock(ctx context.Context, s devcfg.Session, c devcfg.Push) error {
	desc := c.Holder
	if len(desc) > 80 {
		desc = desc[:80]
	}
	take := "checkpoint " + checkpoint + " description " + desc
	out, err := s.Send(ctx, "lock", take)
	if err == nil {
		return nil
	}
	if !s.Is(err, devcfg.FailRejected) {
		// The answer was lost: the checkpoint may stand, named after this
		// push, and must not stay behind as a lock nobody holds.
		cctx, cancel := s.CleanupContext(ctx)
		defer cancel()
		if s.Ensure(cctx) == nil && holderOf(cctx, s) == desc {
			if rerr := s.CleanupSend(cctx, "lock", "no checkpoint "+checkpoint, "does not exist"); rerr != nil {
				s.Log().Warn("the lock checkpoint of a failed push could not be removed; the next run removes it", zap.Error(rerr))
			}
		}
		return err
	}
	if !strings.Contains(s.Message(out), "already in use") {
		return err
	}
	holder := holderOf(ctx, s)
	if c.Run != "" && strings.Contains(holder, "run "+c.Run+" ") {
		// This run's own earlier push kept it (a restore after a failed
		// read-back): it holds the state from before the run, which is
		// where a failed restore must go back to as well.
		return nil
	}
	if devcfg.StaleID(holder, time.Now()) && !replacePending(ctx, s) {
		s.Log().Warn("removing a stale rocefab checkpoint left by a runner that died", zap.String("holder", holder))
		s.SendQuiet(ctx, "lock", "no checkpoint "+checkpoint)
		if _, err := s.Send(ctx, "lock", take); err == nil {
			return nil
		}
	}
	return s.Locked(err, "checkpoint "+checkpoint+" is held by "+holder)
}

// holderOf reads the description of the lock checkpoint.
func holderOf(ctx context.Context, s devcfg.Session) string {
	out, err := s.Read(ctx, "lock", "show checkpoint summary")
	if err != nil {
		return "another run"
	}
	return checkpointDescription(out, checkpoint)
}

// checkpointDescription finds a checkpoint's "Description:" line in
// `show checkpoint summary` ("N) NAME:" blocks).
func checkpointDescription(out, name string) string {
	in := false
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if _, rest, ok := strings.Cut(t, ") "); ok && strings.HasSuffix(rest, ":") {
			in = strings.TrimSuffix(rest, ":") == name
			continue
		}
		if d, ok := strings.CutPrefix(t, "Description:"); ok && in {
			return strings.TrimSpace(d)
		}
	}
	if in {
		return "a checkpoint without description"
	}
	return "another run"
}

// replacePending reports whether a configure replace waits for commit.
func replacePending(ctx context.Context, s devcfg.Session) bool {
	out, err := s.Read(ctx, "lock", "show config-replace status")
	return err == nil && strings.Contains(out, "running")
}

// restoreCheckpoint rolls the running configuration back to the checkpoint
// and deletes it, on a fresh session if the old one dropped.
func restoreCheckpoint(ctx context.Context, s devcfg.Session) error {
	if err := s.Ensure(ctx); err != nil {
		return err
	}
	if _, err := s.Send(ctx, "rollback", "rollback running-config checkpoint "+checkpoint); err != nil {
		return err
	}
	return s.CleanupSend(ctx, "rollback", "no checkpoint "+checkpoint, "does not exist")
}

// cleanup removes the checkpoint and files of a run (its prefix names its
// files). A configure replace still waiting for commit under that
// checkpoint is the run's unconfirmed change: it is rolled back now, as
// the timer would.
func cleanup(ctx context.Context, s devcfg.Session, c devcfg.Cleanup) error {
	var files []string
	if out, err := s.Read(ctx, "cleanup", "dir bootflash:"); err == nil {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[len(f)-1], c.Prefix) {
				files = append(files, f[len(f)-1])
			}
		}
	}
	holder := holderOf(ctx, s)
	if !strings.Contains(holder, "run "+c.Run+" ") {
		for _, f := range files {
			s.SendQuiet(ctx, "cleanup", "delete bootflash:"+f+" no-prompt")
		}
		return nil
	}
	if c.PendingConfirm || replacePending(ctx, s) {
		if _, err := s.Send(ctx, "cleanup", "rollback running-config checkpoint "+checkpoint); err != nil {
			return err
		}
		s.SendQuiet(ctx, "cleanup", "configure replace commit")
	}
	for _, f := range files {
		s.SendQuiet(ctx, "cleanup", "delete bootflash:"+f+" no-prompt")
	}
	return s.CleanupSend(ctx, "cleanup", "no checkpoint "+checkpoint, "does not exist")
}
