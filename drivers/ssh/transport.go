package ssh

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/transport"
	gossh "golang.org/x/crypto/ssh"
)

// clientTransport is a scrapligo transport on crypto/ssh. scrapligo's own
// standard transport verifies host keys only against a file with no
// trust-on-first-use and dials without a context, so this one takes a
// prepared ClientConfig (host-key callback, auth methods) and a dial context.
type clientTransport struct {
	addr    string
	cfg     *gossh.ClientConfig
	dialCtx context.Context
	timeout time.Duration

	mu      sync.Mutex
	dead    bool // the connection ended under us (device closed it)
	client  *gossh.Client
	session *gossh.Session
	stdin   io.WriteCloser
	stdout  io.Reader
}

var _ transport.Implementation = (*clientTransport)(nil)

// Open dials, authenticates and starts an interactive shell on a PTY.
func (t *clientTransport) Open(a *transport.Args) error {
	ctx := t.dialCtx
	if ctx == nil {
		ctx = context.Background()
	}
	dialer := net.Dialer{Timeout: t.timeout}
	conn, err := dialer.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return err
	}
	// The handshake honours the timeout and the context too.
	_ = conn.SetDeadline(time.Now().Add(t.timeout))
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	c, chans, reqs, err := gossh.NewClientConn(conn, t.addr, t.cfg)
	stop()
	if err != nil {
		_ = conn.Close()
		if ctx.Err() != nil {
			return errors.Join(ctx.Err(), err)
		}
		return err
	}
	_ = conn.SetDeadline(time.Time{})
	client := gossh.NewClient(c, chans, reqs)
	session, err := client.NewSession()
	if err != nil {
		_ = client.Close()
		return err
	}
	stdin, err := session.StdinPipe()
	if err != nil {
		_ = client.Close()
		return err
	}
	stdout, err := session.StdoutPipe()
	if err != nil {
		_ = client.Close()
		return err
	}
	modes := gossh.TerminalModes{gossh.ECHO: 1, gossh.TTY_OP_ISPEED: 115200, gossh.TTY_OP_OSPEED: 115200}
	if err := session.RequestPty("xterm", a.TermHeight, a.TermWidth, modes); err != nil {
		_ = client.Close()
		return err
	}
	if err := session.Shell(); err != nil {
		_ = client.Close()
		return err
	}
	t.mu.Lock()
	t.client, t.session, t.stdin, t.stdout = client, session, stdin, stdout
	t.mu.Unlock()
	go func() {
		_ = client.Wait()
		t.mu.Lock()
		t.dead = true
		t.mu.Unlock()
	}()
	return nil
}

// Close ends the session and the connection; it is safe to call twice and
// from another goroutine, which is how a cancelled context stops a call.
func (t *clientTransport) Close() error {
	t.mu.Lock()
	client := t.client
	t.client, t.session = nil, nil
	t.mu.Unlock()
	if client == nil {
		return nil
	}
	return client.Close()
}

func (t *clientTransport) IsAlive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.client != nil && !t.dead
}

func (t *clientTransport) Read(n int) ([]byte, error) {
	t.mu.Lock()
	r := t.stdout
	t.mu.Unlock()
	if r == nil {
		return nil, io.EOF
	}
	b := make([]byte, n)
	m, err := r.Read(b)
	if m > 0 {
		return b[:m], nil
	}
	return nil, err
}

func (t *clientTransport) Write(b []byte) error {
	t.mu.Lock()
	w := t.stdin
	t.mu.Unlock()
	if w == nil {
		return io.ErrClosedPipe
	}
	_, err := w.Write(b)
	return err
}
