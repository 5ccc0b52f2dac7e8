package cli

import (
	"strings"
	"testing"
)

// `rocefab demo --no-netns` plays the whole story non-interactively and
// exits 0; stdout holds the story, stderr only logs (none at warn).
func TestDemoCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "demo", "--no-netns")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"1. Validate the intent", "NOTE: no network namespaces", "DRIFTED", "8. Remediate", "What just happened"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if stderr != "" {
		t.Errorf("stderr should be empty at the default log level:\n%s", stderr)
	}
}

func TestDemoCommandRejectsArguments(t *testing.T) {
	if code, _, stderr := runCLI(t, "", "demo", "examples/basic"); code != ExitUsage {
		t.Fatalf("exit %d, want %d: %s", code, ExitUsage, stderr)
	}
}
