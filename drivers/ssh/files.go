package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	scp "github.com/bramvdbogaerde/go-scp"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/drivers"
)

// WriteFile copies data to path on the device with SCP, on the SSH
// connection the shell runs on (another channel, no new login).
func (s session) WriteFile(ctx context.Context, path string, data []byte) error {
	return s.d.writeFile(ctx, path, data)
}

// writeFile copies with go-scp. A device that answers the copy with a
// refusal while the connection stays up (NX-OS without `feature
// scp-server`) fails it with ErrUnsupported, so the dialect can push
// another way; a dropped or silent connection is a failed push. d.mu
// must be held.
func (d *Driver) writeFile(ctx context.Context, path string, data []byte) error {
	c, err := d.ensure(ctx)
	if err != nil {
		return err
	}
	client := c.tr.sshClient()
	if client == nil {
		return d.fail("copy", "scp "+path, "", fmt.Errorf("%w: the session has no SSH connection", drivers.ErrUnreachable))
	}
	// The copy is bounded like a command, plus a second per megabyte.
	budget := d.opt.Timeout + time.Duration(len(data)>>20)*time.Second
	cctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	sc, err := scp.NewClientBySSH(client)
	if err != nil {
		return d.fail("copy", "scp "+path, "", err)
	}
	err = sc.CopyPassThru(cctx, bytes.NewReader(data), path, "0644", int64(len(data)), nil)
	if err == nil {
		d.log.Debug("file copied", zap.String("path", path), zap.Int("bytes", len(data)))
		return nil
	}
	if cctx.Err() == nil && alive(client) {
		return d.fail("copy", "scp "+path, err.Error(), fmt.Errorf("%w: the device refused the file copy (SCP): %w", drivers.ErrUnsupported, err))
	}
	// A connection that died, or a copy that never finished, leaves the
	// session in doubt: the next command opens a fresh one.
	d.drop()
	if cctx.Err() != nil {
		err = errors.Join(err, cctx.Err())
	}
	return d.fail("copy", "scp "+path, "", fmt.Errorf("%w: copying the file: %w", drivers.ErrUnreachable, err))
}

// alive asks the SSH server for a reply: the connection is still up.
func alive(client *gossh.Client) bool {
	done := make(chan error, 1)
	go func() {
		_, _, err := client.SendRequest("keepalive@openssh.com", true, nil)
		done <- err
	}()
	select {
	case err := <-done:
		return err == nil
	case <-time.After(2 * time.Second):
		return false
	}
}

// sshClient is the transport's SSH connection, nil when closed.
func (t *clientTransport) sshClient() *gossh.Client {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead {
		return nil
	}
	return t.client
}
