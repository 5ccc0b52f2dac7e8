package hostcontract

import (
	"os/exec"
	"testing"
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
			sh, err := exec.LookPath("sh")
			if err != nil {
				t.Skip("no sh to read the word back")
			}
			out, err := exec.Command(sh, "-c", "printf %s "+got).Output()
			if err != nil || string(out) != tc.in {
				t.Fatalf("sh read %q back as %q (%v)", got, out, err)
			}
		})
	}
}
