package sonic

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
)

// scrapliDefinition: SONiC has no CLI modes and scrapligo ships no
// definition for it.
//
//go:embed dialect.yaml
var scrapliDefinition []byte

// Dialect pushes SONiC over SSH: a config checkpoint, the change as a
// JSON patch file applied with `config apply-patch`, runners excluded by
// the shell lock.
var Dialect = &devcfg.Dialect{
	Definition: scrapliDefinition,
	Errors:     []string{"Error:", "command not found", "Failed to apply patch", "No such file or directory"},
	Push:       push,
	Cleanup:    cleanup,
}

// base64Chunk keeps each typed line well inside the terminal width.
const base64Chunk = 400

// push checkpoints config_db, writes the change as a JSON patch file
// and applies it with `config apply-patch`, rolling back to the checkpoint
// if anything fails. Runners exclude each other with the shell lock
// (Session.ShellLock), taken before config_db is read for the patch.
//
// apply-patch runs under nohup(1) with its output and exit status in a
// log: the Generic Config Updater applies a patch as a sequence of
// changes, and a foreground command dies of the SIGHUP bash sends its jobs
// when the session ends (bash(1)), which would leave part of the patch in
// config_db. Under nohup a dropped session cannot interrupt it, and the
// log tells what happened once the driver is back. SONiC cannot roll back
// by itself, so a confirm window runs a rocefab-side timer.
func push(ctx context.Context, s devcfg.Session, c devcfg.Push) (*devcfg.Settle, error) {
	patch := c.Patch
	if err := s.ShellLock(ctx, c.Holder); err != nil {
		return nil, err
	}
	unlock := func() { s.ShellUnlock(ctx) }
	raw, err := s.ReadRunning(ctx, s.ShowRunning())
	if err != nil {
		unlock()
		return nil, err
	}
	var current map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&current); err != nil {
		unlock()
		return nil, s.Fail("push", s.ShowRunning(), "", devcfg.FailOther, fmt.Errorf("reading config_db: %w", err))
	}
	ops, err := configDBPatch(current, patch.Updates, patch.Deletes)
	if err != nil {
		unlock()
		return nil, s.Fail("push", "", "", devcfg.FailOther, err)
	}
	if len(ops) == 0 {
		unlock()
		return &devcfg.Settle{Kind: devcfg.SettledNow}, nil
	}
	body, err := json.Marshal(ops)
	if err != nil {
		unlock()
		return nil, s.Fail("push", "", "", devcfg.FailOther, err)
	}
	file := "/tmp/" + c.ID + ".json"
	if _, err := s.Send(ctx, "push", "sudo config checkpoint "+c.ID); err != nil {
		if !s.Is(err, devcfg.FailRejected) {
			// The answer was lost: the checkpoint may stand, and must not
			// stay behind.
			cctx, cancel := s.CleanupContext(ctx)
			defer cancel()
			if derr := s.CleanupSend(cctx, "push", "sudo config delete-checkpoint "+c.ID, "does not exist"); derr != nil {
				s.Log().Warn("the checkpoint of a failed push could not be removed; the next run removes it", zap.Error(derr))
			}
		}
		unlock()
		return nil, err
	}
	restore := func(ctx context.Context) error {
		if err := s.Ensure(ctx); err != nil {
			return err
		}
		if _, err := s.Send(ctx, "rollback", "sudo config rollback "+c.ID); err != nil {
			return err
		}
		if err := s.CleanupSend(ctx, "rollback", "sudo config delete-checkpoint "+c.ID, "does not exist"); err != nil {
			s.Log().Warn("rolled back, but the checkpoint could not be removed; the next run removes it", zap.Error(err))
		}
		removeFiles(ctx, s, "rollback", file)
		s.ShellUnlock(ctx)
		return nil
	}
	discard := func(ctx context.Context) error {
		err := s.CleanupSend(ctx, "confirm", "sudo config delete-checkpoint "+c.ID, "does not exist")
		removeFiles(ctx, s, "confirm", file)
		s.ShellUnlock(ctx)
		return err
	}
	lines := writeFileLines(file, body)
	if err := s.Configure(ctx, "", lines, "", ""); err != nil {
		return nil, s.Undo(ctx, err, restore, "config checkpoint "+c.ID)
	}
	out, err := apply(ctx, s, c, file)
	if err != nil {
		if s.Is(err, devcfg.FailCommitUnknown) {
			// The patch may be applied in part: the checkpoint stays, and the
			// pending change restores it on Rollback.
			return &devcfg.Settle{Kind: devcfg.SettleLocal, Window: max(c.Window, s.Timeout()), Rollback: restore, Discard: discard}, err
		}
		err = namePatchOp(s, err, out, ops)
		return nil, s.Undo(ctx, err, restore, "config checkpoint "+c.ID)
	}
	if c.Window == 0 {
		// The checkpoint (and the lock) stay until the caller read the
		// device back.
		return &devcfg.Settle{Kind: devcfg.SettleHeld, Rollback: restore, Discard: discard}, nil
	}
	return &devcfg.Settle{Kind: devcfg.SettleLocal, Window: c.Window, Rollback: restore, Discard: discard}, nil
}

// removeFiles removes a push's files, on a fresh session if the old one
// dropped; what stays is only logged, the next run removes it.
func removeFiles(ctx context.Context, s devcfg.Session, step, file string) {
	if err := s.CleanupSend(ctx, step, "rm -f "+file+" "+file+".b64 "+file+".log"); err != nil {
		s.Log().Warn("the push's files could not be removed; the next run removes them", zap.Error(err))
	}
}

// apply runs apply-patch under nohup and returns its output. A session
// lost meanwhile is reopened and the log read until apply-patch wrote its
// exit status; without one in time the outcome is unknown.
func apply(ctx context.Context, s devcfg.Session, c devcfg.Push, file string) (string, error) {
	log := file + ".log"
	run := "sudo nohup sh -c 'config apply-patch " + file + `; echo "rc=$?"' > ` + log + " 2>&1"
	_, sendErr := s.Send(ctx, "commit", run)
	if sendErr == nil || !s.Is(sendErr, devcfg.FailRejected) {
		out, status, err := awaitLog(ctx, s, c, log, sendErr != nil)
		if errors.Is(err, errNeverStarted) && sendErr != nil {
			// The shell opens the log before apply-patch starts: without a
			// log the line never ran, and config_db is untouched.
			return "", sendErr
		}
		if err != nil {
			return "", s.CommitUnknown(errors.Join(sendErr, err))
		}
		if status != "0" {
			return out, s.Fail("push", "sudo config apply-patch "+file, s.Message(out), devcfg.FailRejected, nil)
		}
		return out, nil
	}
	return "", sendErr
}

// awaitLog reads apply-patch's log until it ends with rc=N. After a lost
// session (reopen) it reconnects and takes the lock again first.
func awaitLog(ctx context.Context, s devcfg.Session, c devcfg.Push, log string, reopen bool) (out, status string, err error) {
	cctx, cancel := s.CleanupContext(ctx)
	defer cancel()
	for {
		if !s.Connected() || reopen {
			reopen = false
			if err := s.Ensure(cctx); err != nil {
				return "", "", err
			}
			if err := s.ShellLock(cctx, c.Holder); err != nil {
				return "", "", err
			}
		}
		text, err := s.SendRaw(cctx, "commit", "cat "+log)
		if err == nil {
			if i := strings.LastIndex(text, "rc="); i >= 0 {
				return strings.TrimSpace(text[:i]), firstWord(strings.TrimSpace(text[i+3:])), nil
			}
			if strings.Contains(text, "No such file or directory") {
				return "", "", errNeverStarted
			}
		} else if s.Connected() {
			return "", "", err
		}
		select {
		case <-cctx.Done():
			return "", "", cctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

var errNeverStarted = errors.New("apply-patch never started: no log")

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, "\n")
	w, _, _ = strings.Cut(w, " ")
	return strings.TrimSpace(w)
}

// cleanup removes a run's checkpoints and files (its prefix names them),
// restoring the checkpoint first if the run died while its change waited
// for confirmation (its rocefab-side timer died with it).
func cleanup(ctx context.Context, s devcfg.Session, c devcfg.Cleanup) error {
	if err := s.ShellLock(ctx, c.Holder); err != nil {
		return err
	}
	defer s.ShellUnlock(ctx)
	out, err := s.Read(ctx, "cleanup", "sudo config list-checkpoints")
	if err != nil {
		return err
	}
	var names []string
	_ = json.Unmarshal([]byte(strings.TrimSpace(out)), &names)
	for _, cp := range names {
		if !strings.HasPrefix(cp, c.Prefix) {
			continue
		}
		if c.PendingConfirm {
			if _, err := s.Send(ctx, "cleanup", "sudo config rollback "+cp); err != nil {
				return err
			}
		}
		s.SendQuiet(ctx, "cleanup", "sudo config delete-checkpoint "+cp)
	}
	s.SendQuiet(ctx, "cleanup", "rm -f /tmp/"+c.Prefix+"*")
	return nil
}

// writeFileLines writes data to a file on the device through base64, which
// needs no shell quoting and no here-document continuation prompts.
func writeFileLines(file string, data []byte) []string {
	enc := base64.StdEncoding.EncodeToString(data)
	var lines []string
	for i := 0; i < len(enc); i += base64Chunk {
		end := min(i+base64Chunk, len(enc))
		redirect := ">>"
		if i == 0 {
			redirect = ">"
		}
		lines = append(lines, "echo "+enc[i:end]+" "+redirect+" "+file+".b64")
	}
	return append(lines, "base64 -d "+file+".b64 > "+file)
}

// namePatchOp points a rejected apply-patch at the operation the device
// complained about, so the error names the offending path.
func namePatchOp(s devcfg.Session, err error, out string, ops []jsonPatchOp) error {
	for _, op := range ops {
		if strings.Contains(out, op.Path) {
			var v bytes.Buffer
			if op.Value != nil {
				b, _ := json.Marshal(op.Value)
				v.WriteString(" ")
				v.Write(b)
			}
			return s.WithLine(err, op.Op+" "+op.Path+v.String())
		}
	}
	return err
}
