package hostcontract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
)

// Runner runs one command on a host (over SSH in production) and returns
// what it printed. err is only for transport failures; a command that ran
// and failed reports its exit code in Result.
type Runner interface {
	Run(ctx context.Context, host, command string, stdin []byte) (Result, error)
}

// RunnerFunc adapts a function to Runner.
type RunnerFunc func(ctx context.Context, host, command string, stdin []byte) (Result, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, host, command string, stdin []byte) (Result, error) {
	return f(ctx, host, command, stdin)
}

// Result is what a command printed and how it ended.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int
}

// ErrNotInstalled: the rocefab binary is missing on the host.
var ErrNotInstalled = errors.New("rocefab not installed on the host")

// Client runs `rocefab host plan|apply` on hosts and decodes the answers.
// Plan only ever runs `host plan`, which never changes the host.
type Client struct {
	Runner Runner
	// Binary is the rocefab command on the host; default "rocefab".
	Binary string
	// IntentPath is the intent file or directory on the host. When empty,
	// Intent is sent on standard input ("--intent -"), so the host renders
	// exactly the intent the central rocefab holds.
	IntentPath string
	Intent     []byte
}

// Plan runs `rocefab host plan --host NAME --output json` on the host.
func (c *Client) Plan(ctx context.Context, host string) (*HostReport, error) {
	return c.run(ctx, host, "plan", KindHostPlan)
}

// Apply runs `rocefab host apply --host NAME --output json` on the host.
func (c *Client) Apply(ctx context.Context, host string) (*HostReport, error) {
	return c.run(ctx, host, "apply", KindHostApply)
}

// Command is the command line the client sends for a verb.
func (c *Client) Command(host, verb string) string {
	bin := c.Binary
	if bin == "" {
		bin = "rocefab"
	}
	intentArg := "-"
	if c.IntentPath != "" {
		intentArg = c.IntentPath
	}
	return strings.Join([]string{ShellQuote(bin), "host", verb, "--host", ShellQuote(host),
		"--intent", ShellQuote(intentArg), "--output", "json"}, " ")
}

func (c *Client) run(ctx context.Context, host, verb string, kind Kind) (*HostReport, error) {
	if c.Runner == nil {
		return nil, fmt.Errorf("%s: host %s: no command runner configured", host, verb)
	}
	var stdin []byte
	if c.IntentPath == "" {
		if len(c.Intent) == 0 {
			return nil, fmt.Errorf("%s: host %s: no intent to send (set IntentPath or Intent)", host, verb)
		}
		stdin = c.Intent
	}
	res, err := c.Runner.Run(ctx, host, c.Command(host, verb), stdin)
	if err != nil {
		return nil, fmt.Errorf("%s: host %s: %w", host, verb, err)
	}
	if notInstalled(res) {
		bin := c.Binary
		if bin == "" {
			bin = "rocefab"
		}
		return nil, fmt.Errorf("%w: %s not found on %s: install it with `install -m 0755 rocefab /usr/local/bin/rocefab` on %s (same release as here), or point the host binary setting at it",
			ErrNotInstalled, bin, host, host)
	}
	report, decErr := DecodeHostReport(res.Stdout, kind)
	if decErr != nil {
		msg := strings.TrimSpace(string(res.Stderr))
		if res.ExitCode != 0 && msg != "" {
			return nil, fmt.Errorf("%s: host %s exited %d: %s (%w)", host, verb, res.ExitCode, excerpt([]byte(msg)), decErr)
		}
		return nil, fmt.Errorf("%s: host %s: %w", host, verb, decErr)
	}
	if report.Host != "" && report.Host != host {
		return nil, fmt.Errorf("%s: host %s: answer is for host %q", host, verb, report.Host)
	}
	return report, nil
}

// notInstalled recognises the shell's "command not found" (exit 127).
func notInstalled(r Result) bool {
	if len(bytes.TrimSpace(r.Stdout)) > 0 {
		return false
	}
	if r.ExitCode == 127 {
		return true
	}
	stderr := strings.ToLower(string(r.Stderr))
	return r.ExitCode != 0 && (strings.Contains(stderr, "command not found") || strings.Contains(stderr, "no such file or directory"))
}

// ShellQuote quotes s as one word for a POSIX shell, unless it is plainly
// safe as it is. Every command rocefab runs on a host goes through it.
func ShellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
