package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/scrapli/scrapligo/util"

	"github.com/rocefab/rocefab/drivers"
)

var errUnsupportedPlatform = fmt.Errorf("%w", drivers.ErrUnsupported)

// classifyConnect maps a failure to reach and log in to a device onto the
// driver sentinels. Only failures before authentication that may clear up
// by themselves (refused, reset, timeouts) are transient.
func classifyConnect(err error) error {
	var hk *hostKeyError
	switch {
	case errors.As(err, &hk):
		return fmt.Errorf("%w: %w", drivers.ErrTrust, err)
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("%w: the device refused the username and password/key (check the credentials for this device)", drivers.ErrAuth)
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, util.ErrTimeoutError), isTimeout(err):
		return fmt.Errorf("%w (%w): timed out: %v", drivers.ErrUnreachable, drivers.ErrTransient, err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Errorf("%w (%w): %v", drivers.ErrUnreachable, drivers.ErrTransient, err)
	case errors.Is(err, util.ErrPrivilegeError):
		return fmt.Errorf("%w: logged in, but the prompt does not match the platform: %v", drivers.ErrUnsupported, err)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return fmt.Errorf("%w: %v", drivers.ErrUnreachable, err)
	}
	return err
}

// classifyOp maps a failure in the middle of a session: the connection is
// gone or the device stopped answering. Both are transient for reads.
func classifyOp(err error) error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, util.ErrTimeoutError):
		return fmt.Errorf("%w: the device did not answer in time: %v", drivers.ErrTransient, err)
	case errors.Is(err, util.ErrConnectionError), errors.Is(err, io.EOF), errors.Is(err, io.ErrClosedPipe),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, net.ErrClosed):
		return fmt.Errorf("%w (%w): connection lost: %v", drivers.ErrUnreachable, drivers.ErrTransient, err)
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// deviceMessage keeps what a device said about an error: its output from
// the first line carrying an error string on (all of it if none does),
// without caret markers, "[edit]" context lines or usage help.
func deviceMessage(out string, errs []string) string {
	var meaningful []string
	first := -1
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.Trim(t, "^ ") == "" || t == "[edit]" || strings.HasPrefix(t, "[edit ") ||
			strings.HasPrefix(t, "Usage:") || strings.HasPrefix(t, "Try \"") {
			continue
		}
		if first < 0 && failure(t, errs) != "" {
			first = len(meaningful)
		}
		meaningful = append(meaningful, t)
	}
	if first > 0 {
		meaningful = meaningful[first:]
	}
	return strings.Join(meaningful, " / ")
}

// failure returns the first error string found in the output.
func failure(out string, errs []string) string {
	for _, e := range errs {
		if e != "" && strings.Contains(out, e) {
			return e
		}
	}
	return ""
}
