package cli

import (
	"errors"
	"fmt"

	"github.com/rocefab/rocefab/agent/fleet"
)

// Exit codes, one table for every command (README "Exit codes").
const (
	ExitOK      = 0  // success, nothing to report
	ExitFailure = 1  // invalid intent, failed verdict, device or runtime error
	ExitChanges = 2  // changes or drift present (plan/drift with --detailed-exitcode)
	ExitUsage   = 64 // usage error: bad flags or arguments
)

// exitError carries an exit code up to Main. Its message, if any, has
// already been printed when silent is set.
type exitError struct {
	code   int
	err    error
	silent bool
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr marks a usage error (exit 64).
func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// exitWith ends the command with code after its output was written.
func exitWith(code int) error {
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code, silent: true}
}

// exitCode maps an error to the table above.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// The fleet layer names a caller's mistake without knowing the CLI.
	var ue *fleet.UsageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	return ExitFailure
}
