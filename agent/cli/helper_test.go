package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLI runs rocefab in-process with args and stdin, as a user would run
// the binary, and returns the exit code and what it printed.
func runCLI(t testing.TB, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}
