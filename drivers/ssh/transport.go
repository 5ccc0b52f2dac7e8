package ssh

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"sync"
	"time"

	"github.com/scrapli/scrapligo/transport"
	"github.com/scrapli/scrapligo/util"
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
	// prompt is the platform's prompt pattern; Open reads the login banner
	// up to the first prompt with it.
	prompt *regexp.Regexp

	mu      sync.Mutex
	dead    bool // the connection ended under us (device closed it)
	client  *gossh.Client
	session *gossh.Session
	stdin   io.WriteCloser
	stdout  io.Reader
	// late is a read the banner wait started and gave up on: its result
	// is the next Read's.
	late chan readResult
	// carry is banner output without a prompt, handed to the next Read.
	carry []byte
}

type readResult struct {
	b   []byte
	err error
}

// bannerWait bounds how long Open waits for the login prompt.
const bannerWait = 3 * time.Second

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
	late, carry := t.readBanner(stdout)
	t.mu.Lock()
	t.client, t.session, t.stdin, t.stdout = client, session, stdin, stdout
	t.late, t.carry = late, carry
	t.mu.Unlock()
	go func() {
		_ = client.Wait()
		t.mu.Lock()
		t.dead = true
		t.mu.Unlock()
	}()
	return nil
}

// readBanner consumes the login banner up to the first prompt. scrapligo
// opens by typing a return and reading up to a prompt; if the login prompt
// arrives only then, it takes that one, and the prompt answering its return
// stays queued: every later command would then read the answer meant for
// the one before (an empty running config, an error charged to the wrong
// line). Without a prompt in time, what was read is kept for scrapligo.
func (t *clientTransport) readBanner(stdout io.Reader) (late chan readResult, carry []byte) {
	if t.prompt == nil {
		return nil, nil
	}
	wait := bannerWait
	if t.timeout > 0 && t.timeout < wait {
		wait = t.timeout
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	results := make(chan readResult, 1)
	var seen []byte
	for {
		go func() {
			b := make([]byte, 8192)
			n, err := stdout.Read(b)
			results <- readResult{b: b[:n], err: err}
		}()
		select {
		case r := <-results:
			seen = append(seen, r.b...)
			if r.err != nil {
				late = make(chan readResult, 1)
				late <- readResult{err: r.err}
				return late, seen
			}
			tail := seen
			if len(tail) > 1000 {
				tail = tail[len(tail)-1000:]
			}
			if t.prompt.Match(util.StripANSI(bytes.ReplaceAll(tail, []byte("\r"), nil))) {
				return nil, nil
			}
		case <-timer.C:
			return results, seen
		}
	}
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
	t.mu.Lock()
	carry, late := t.carry, t.late
	t.carry = nil
	if len(carry) == 0 {
		t.late = nil
	}
	t.mu.Unlock()
	if len(carry) > 0 {
		return carry, nil
	}
	if late != nil {
		res := <-late
		if len(res.b) > 0 {
			return res.b, nil
		}
		if res.err != nil {
			return nil, res.err
		}
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
