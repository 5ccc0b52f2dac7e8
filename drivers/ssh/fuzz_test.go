package ssh

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers/junos"
)

// FuzzDeviceMessage: any output yields a one-line message without caret
// markers.
func FuzzDeviceMessage(f *testing.F) {
	f.Add("                   ^\n% Invalid command at '^' marker.")
	f.Add("syntax error.\n\n[edit]")
	f.Add("Patch Applier: x\nFailed to apply patch due to: y\nUsage: config\nTry \"config -h\"\n\nError: y")
	f.Add("0   2024-05-22 10:11:12 UTC by rocefab via cli commit confirmed, rollback in 9mins\n1 ...")
	f.Fuzz(func(t *testing.T, out string) {
		msg := deviceMessage(out, junos.Dialect.Errors)
		if strings.Contains(msg, "\n") {
			t.Fatalf("message spans lines: %q", msg)
		}
		if failure(out, nil) != "" {
			t.Fatal("no error strings, yet a failure")
		}
	})
}
