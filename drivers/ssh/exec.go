package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/internal/secret"
)

// Exec runs commands on servers over SSH, for the host JSON contract
// (`rocefab host plan|apply`, doctor, probe) and perftest. Host keys are
// checked exactly as for switches.
type Exec struct {
	// Resolve turns an intent host name into where and how to log in.
	Resolve func(host string) (ExecTarget, error)
	// KnownHostsFile defaults to ~/.ssh/known_hosts.
	KnownHostsFile string
	// AcceptNew trusts unknown host keys on first use (--ssh-accept-new).
	AcceptNew bool
	// Timeout bounds connecting; the command itself runs until ctx ends.
	Timeout time.Duration
	Logger  *zap.Logger
}

// ExecTarget is one server's login.
type ExecTarget struct {
	Address      string // host:port
	Creds        drivers.Credentials
	IdentityFile string
}

var _ hostcontract.Runner = (*Exec)(nil)

// Run executes command on host with stdin and returns what it printed. A
// command that ran and failed is not an error: its exit code is in Result.
func (e *Exec) Run(ctx context.Context, host, command string, stdin []byte) (hostcontract.Result, error) {
	var res hostcontract.Result
	target, err := e.Resolve(host)
	if err != nil {
		return res, &drivers.DeviceError{Device: host, Step: "connect", Err: err}
	}
	client, err := e.dial(ctx, host, target)
	if err != nil {
		return res, err
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		return res, &drivers.DeviceError{Device: host, Step: "session", Err: fmt.Errorf("%w: %v", drivers.ErrUnreachable, err)}
	}
	defer sess.Close()
	var stdout, stderr bytes.Buffer
	sess.Stdout, sess.Stderr = &stdout, &stderr
	sess.Stdin = bytes.NewReader(stdin)
	done := make(chan error, 1)
	go func() { done <- sess.Run(command) }()
	select {
	case <-ctx.Done():
		_ = sess.Signal(gossh.SIGTERM)
		_ = client.Close()
		return res, &drivers.DeviceError{Device: host, Step: "run", Err: ctx.Err()}
	case err = <-done:
	}
	// A host echoing its login password (sudo, a banner) must not hand it
	// on to errors, reports and logs.
	pw := target.Creds.Password
	res.Stdout, res.Stderr = []byte(secret.Redact(stdout.String(), pw)), []byte(secret.Redact(stderr.String(), pw))
	var exitErr *gossh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitStatus()
	default:
		return res, &drivers.DeviceError{Device: host, Step: "run", Err: err}
	}
	return res, nil
}

func (e *Exec) dial(ctx context.Context, host string, t ExecTarget) (*gossh.Client, error) {
	log := e.Logger
	if log == nil {
		log = zap.NewNop()
	}
	file := e.KnownHostsFile
	if file == "" {
		var err error
		if file, err = defaultKnownHosts(); err != nil {
			return nil, &drivers.DeviceError{Device: host, Step: "connect", Err: err}
		}
	}
	policy := &hostKeyPolicy{file: file, acceptNew: e.AcceptNew, log: log}
	cb, algos, err := policy.callback(t.Address)
	if err != nil {
		return nil, &drivers.DeviceError{Device: host, Step: "connect", Err: classifyConnect(err)}
	}
	d := &Driver{opt: drivers.Options{Creds: t.Creds, SSH: drivers.SSHOptions{IdentityFile: t.IdentityFile}}}
	auth, err := d.authMethods()
	if err != nil {
		return nil, &drivers.DeviceError{Device: host, Step: "connect", Err: err}
	}
	timeout := e.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	dialer := net.Dialer{Timeout: timeout}
	raw, err := dialer.DialContext(ctx, "tcp", t.Address)
	if err != nil {
		return nil, &drivers.DeviceError{Device: host, Step: "connect", Err: fmt.Errorf("%w: %v", drivers.ErrUnreachable, err)}
	}
	cfg := &gossh.ClientConfig{User: t.Creds.Username, Auth: auth, HostKeyCallback: cb, HostKeyAlgorithms: algos, Timeout: timeout}
	conn, chans, reqs, err := gossh.NewClientConn(raw, t.Address, cfg)
	if err != nil {
		_ = raw.Close()
		return nil, &drivers.DeviceError{Device: host, Step: "connect", Err: classifyConnect(err)}
	}
	return gossh.NewClient(conn, chans, reqs), nil
}

// ExecAddress is host:port with SSH's default port when none is given.
func ExecAddress(host string, port int) string {
	if port == 0 {
		port = 22
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
