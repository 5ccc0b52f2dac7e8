package ssh

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
)

// base64Chunk keeps each typed line well inside the terminal width.
const base64Chunk = 400

// pushSONiC checkpoints config_db, writes the change as a JSON patch file
// and applies it with `config apply-patch`, rolling back to the checkpoint
// if anything fails. Runners exclude each other with the Linux lock
// (linuxLock), taken before config_db is read for the patch.
//
// apply-patch runs under nohup(1) with its output and exit status in a
// log: the Generic Config Updater applies a patch as a sequence of
// changes, and a foreground command dies of the SIGHUP bash sends its jobs
// when the session ends (bash(1)), which would leave part of the patch in
// config_db. Under nohup a dropped session cannot interrupt it, and the
// log tells what happened once the driver is back. SONiC cannot roll back
// by itself, so a confirm window runs a rocefab-side timer. d.mu is held.
func (d *Driver) pushSONiC(ctx context.Context, c change) (drivers.Pending, error) {
	patch := c.patch
	if len(patch.Lines) > 0 {
		return nil, d.fail("push", "", "", fmt.Errorf("%w: SONiC takes config_db path updates, not CLI lines", drivers.ErrUnsupported))
	}
	if _, err := d.ensure(ctx); err != nil {
		return nil, err
	}
	if err := d.linuxLock(ctx, c); err != nil {
		return nil, err
	}
	unlock := func() { d.linuxUnlock(ctx) }
	raw, err := d.readCommand(ctx, "push", d.showCmd)
	if err != nil {
		unlock()
		return nil, err
	}
	if c.opt.Expect != "" {
		run, err := d.parseRunning(raw, d.showCmd)
		if err != nil {
			unlock()
			return nil, err
		}
		if run.Fingerprint != c.opt.Expect {
			unlock()
			return nil, d.fail("push", "", "", fmt.Errorf("%w: planned against %s, the device holds %s now", drivers.ErrStale, shortFP(c.opt.Expect), shortFP(run.Fingerprint)))
		}
	}
	var current map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&current); err != nil {
		unlock()
		return nil, d.fail("push", d.showCmd, "", fmt.Errorf("reading config_db: %w", err))
	}
	ops, err := configDBPatch(current, patch.Updates, patch.Deletes)
	if err != nil {
		unlock()
		return nil, d.fail("push", "", "", err)
	}
	if len(ops) == 0 {
		unlock()
		return confirmed{id: c.id}, nil
	}
	body, err := json.Marshal(ops)
	if err != nil {
		unlock()
		return nil, d.fail("push", "", "", err)
	}
	file := "/tmp/" + c.id + ".json"
	if _, err := d.send(ctx, "push", "sudo config checkpoint "+c.id); err != nil {
		unlock()
		return nil, err
	}
	restore := func(ctx context.Context) error {
		if _, err := d.ensure(ctx); err != nil {
			return err
		}
		if _, err := d.send(ctx, "rollback", "sudo config rollback "+c.id); err != nil {
			return err
		}
		if err := d.cleanupSend(ctx, "rollback", "sudo config delete-checkpoint "+c.id, "does not exist"); err != nil {
			d.log.Warn("rolled back, but the checkpoint could not be removed; the next run removes it", zap.Error(err))
		}
		d.sendQuiet(ctx, "rollback", "rm -f "+file+" "+file+".b64 "+file+".log")
		d.linuxUnlock(ctx)
		return nil
	}
	discard := func(ctx context.Context) error {
		err := d.cleanupSend(ctx, "confirm", "sudo config delete-checkpoint "+c.id, "does not exist")
		d.sendQuiet(ctx, "confirm", "rm -f "+file+" "+file+".b64 "+file+".log")
		d.linuxUnlock(ctx)
		return err
	}
	lines := writeFileLines(file, body)
	if err := d.configure(ctx, "", lines, "", ""); err != nil {
		return nil, d.undo(ctx, err, restore, "config checkpoint "+c.id)
	}
	out, err := d.sonicApply(ctx, c, file)
	if err != nil {
		if drivers.CommitUnknown(err) {
			// The patch may be applied in part: the checkpoint stays, and the
			// pending change restores it on Rollback.
			return d.startLocalPending(c.id, max(c.opt.ConfirmWindow, d.opt.Timeout), restore, discard), err
		}
		err = d.namePatchOp(err, out, ops)
		return nil, d.undo(ctx, err, restore, "config checkpoint "+c.id)
	}
	if c.opt.ConfirmWindow == 0 {
		// The checkpoint (and the lock) stay until the caller read the
		// device back.
		return d.newHeldPending(c.id, restore, discard), nil
	}
	return d.startLocalPending(c.id, c.opt.ConfirmWindow, restore, discard), nil
}

// sonicApply runs apply-patch under nohup and returns its output. A
// session lost meanwhile is reopened and the log read until apply-patch
// wrote its exit status; without one in time the outcome is unknown.
// d.mu is held.
func (d *Driver) sonicApply(ctx context.Context, c change, file string) (string, error) {
	log := file + ".log"
	run := "sudo nohup sh -c 'config apply-patch " + file + `; echo "rc=$?"' > ` + log + " 2>&1"
	_, sendErr := d.send(ctx, "commit", run)
	if sendErr == nil || !errors.Is(sendErr, drivers.ErrRejected) {
		out, status, err := d.sonicAwaitLog(ctx, c, log, sendErr != nil)
		if errors.Is(err, errNeverStarted) && sendErr != nil {
			// The shell opens the log before apply-patch starts: without a
			// log the line never ran, and config_db is untouched.
			return "", sendErr
		}
		if err != nil {
			return "", commitUnknown(errors.Join(sendErr, err))
		}
		if status != "0" {
			return out, d.fail("push", "sudo config apply-patch "+file, deviceMessage(out, d.errs), drivers.ErrRejected)
		}
		return out, nil
	}
	return "", sendErr
}

// sonicAwaitLog reads apply-patch's log until it ends with rc=N. After a
// lost session (reopen) it reconnects and takes the lock again first.
func (d *Driver) sonicAwaitLog(ctx context.Context, c change, log string, reopen bool) (out, status string, err error) {
	cctx, cancel := d.cleanupContext(ctx)
	defer cancel()
	for {
		if d.conn == nil || reopen {
			reopen = false
			if _, err := d.ensure(cctx); err != nil {
				return "", "", err
			}
			if err := d.linuxLock(cctx, c); err != nil {
				return "", "", err
			}
		}
		text, err := d.sendChecked(cctx, "commit", "cat "+log, nil)
		if err == nil {
			if i := strings.LastIndex(text, "rc="); i >= 0 {
				return strings.TrimSpace(text[:i]), firstWord(strings.TrimSpace(text[i+3:])), nil
			}
			if strings.Contains(text, "No such file or directory") {
				return "", "", errNeverStarted
			}
		} else if d.conn != nil {
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

// cleanupSONiC removes a run's checkpoints and files (prefix names them),
// restoring the checkpoint first if the run died while its change waited
// for confirmation (its rocefab-side timer died with it). d.mu is held.
func (d *Driver) cleanupSONiC(ctx context.Context, prefix string, pendingConfirm bool) error {
	if err := d.linuxLock(ctx, change{id: "cleanup"}); err != nil {
		return err
	}
	defer d.linuxUnlock(ctx)
	out, err := d.readCommand(ctx, "cleanup", "sudo config list-checkpoints")
	if err != nil {
		return err
	}
	var names []string
	_ = json.Unmarshal([]byte(strings.TrimSpace(out)), &names)
	for _, cp := range names {
		if !strings.HasPrefix(cp, prefix) {
			continue
		}
		if pendingConfirm {
			if _, err := d.send(ctx, "cleanup", "sudo config rollback "+cp); err != nil {
				return err
			}
		}
		d.sendQuiet(ctx, "cleanup", "sudo config delete-checkpoint "+cp)
	}
	d.sendQuiet(ctx, "cleanup", "rm -f /tmp/"+prefix+"*")
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
func (d *Driver) namePatchOp(err error, out string, ops []jsonPatchOp) error {
	de, ok := err.(*drivers.DeviceError)
	if !ok {
		return err
	}
	for _, op := range ops {
		if strings.Contains(out, op.Path) {
			var v bytes.Buffer
			if op.Value != nil {
				b, _ := json.Marshal(op.Value)
				v.WriteString(" ")
				v.Write(b)
			}
			de.Line = op.Op + " " + op.Path + v.String()
			break
		}
	}
	return de
}
