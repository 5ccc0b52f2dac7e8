package lemmingtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNotInTheBinary: lemming (and the ygot it brings) stays test-only; the
// rocefab binary does not link it.
func TestNotInTheBinary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatal("go is not in PATH")
		}
		t.Skip("go is not in PATH")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/rocefab/rocefab/cmd/rocefab").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "openconfig/lemming") || strings.Contains(dep, "openconfig/ygot") || strings.Contains(dep, "openconfig/ygnmi") {
			t.Errorf("the binary links %s", dep)
		}
	}
}
