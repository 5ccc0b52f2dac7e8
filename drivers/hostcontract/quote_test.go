package hostcontract

import (
	"os/exec"
	"testing"

	"github.com/rocefab/rocefab/internal/netnstest"
)

// TestShellQuote: plain words stay as they are, anything else is quoted,
// and a POSIX shell reads every quoted word back as the original.
func TestShellQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"gpu01", "gpu01"},
		{"/usr/local/bin/rocefab", "/usr/local/bin/rocefab"},
		{"host-b=2001:db8::1", "host-b=2001:db8::1"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'"'"'s'`},
		{"$(reboot)", "'$(reboot)'"},
		{"a;b|c&d`e`", "'a;b|c&d`e`'"},
		{"new\nline", "'new\nline'"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := ShellQuote(tc.in)
			if got != tc.want {
				t.Fatalf("ShellQuote(%q) = %q, want %q", tc.in, got, tc.want)
			}
			netnstest.RequireTool(t, "sh") // reads the word back
			sh, err := exec.LookPath("sh")
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(sh, "-c", "printf %s "+got).Output()
			if err != nil || string(out) != tc.in {
				t.Fatalf("sh read %q back as %q (%v)", got, out, err)
			}
		})
	}
}
