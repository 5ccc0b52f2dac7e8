package ssh

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// base64Chunk keeps each typed line well inside the terminal width.
const base64Chunk = 400

// pushSONiC checkpoints config_db, writes the change as a JSON patch file
// and applies it with `config apply-patch`, rolling back to the checkpoint
// if anything fails. SONiC cannot roll back by itself, so a confirm window
// runs a rocefab-side timer. d.mu is held.
func (d *Driver) pushSONiC(ctx context.Context, id string, patch devcfg.Patch, window time.Duration) (drivers.Pending, error) {
	if len(patch.Lines) > 0 {
		return nil, d.fail("push", "", "", fmt.Errorf("%w: SONiC takes config_db path updates, not CLI lines", drivers.ErrUnsupported))
	}
	if _, err := d.ensure(ctx); err != nil {
		return nil, err
	}
	raw, err := d.readCommand(ctx, "push", d.showCmd)
	if err != nil {
		return nil, err
	}
	var current map[string]any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&current); err != nil {
		return nil, d.fail("push", d.showCmd, "", fmt.Errorf("reading config_db: %w", err))
	}
	ops, err := configDBPatch(current, patch.Updates, patch.Deletes)
	if err != nil {
		return nil, d.fail("push", "", "", err)
	}
	if len(ops) == 0 {
		return confirmed{id: id}, nil
	}
	body, err := json.Marshal(ops)
	if err != nil {
		return nil, d.fail("push", "", "", err)
	}
	file := "/tmp/" + id + ".json"
	if _, err := d.send(ctx, "push", "sudo config checkpoint "+id); err != nil {
		return nil, err
	}
	restore := func(ctx context.Context) error {
		if _, err := d.ensure(ctx); err != nil {
			return err
		}
		if _, err := d.send(ctx, "rollback", "sudo config rollback "+id); err != nil {
			return err
		}
		d.sendQuiet(ctx, "rollback", "sudo config delete-checkpoint "+id)
		return nil
	}
	discard := func(ctx context.Context) error {
		return d.sendFresh(ctx, "confirm", "sudo config delete-checkpoint "+id)
	}
	lines := writeFileLines(file, body)
	if err := d.configure(ctx, "", lines, "", ""); err != nil {
		return nil, d.undo(ctx, err, restore, "config checkpoint "+id)
	}
	out, err := d.send(ctx, "push", "sudo config apply-patch "+file)
	if err != nil {
		err = d.namePatchOp(err, out, ops)
		return nil, d.undo(ctx, err, restore, "config checkpoint "+id)
	}
	d.sendQuiet(ctx, "push", "rm -f "+file+" "+file+".b64")
	if window == 0 {
		d.dropCheckpoint(ctx, id, discard)
		return confirmed{id: id}, nil
	}
	return d.startLocalPending(id, window, restore, discard), nil
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
