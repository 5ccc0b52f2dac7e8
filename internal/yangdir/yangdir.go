package yangdir

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/internal/shareddir"
)

// Path returns the YANG folder, which may not exist.
func Path() string {
	return shareddir.Path("ROCEFAB_YANG_DIR", "yang")
}

// Require returns the YANG folder, or skips the test with a clear message
// when it is absent (a checkout without ../shared); under
// ROCEFAB_REQUIRE_NETNS=1 (CI) the oracle must run, so it fails instead.
func Require(t testing.TB) string {
	t.Helper()
	dir := Path()
	if _, err := os.Stat(filepath.Join(dir, "openconfig-qos.yang")); err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatalf("OpenConfig YANG not found in %s (set ROCEFAB_YANG_DIR); ROCEFAB_REQUIRE_NETNS=1: the YANG oracle must run", dir)
		}
		t.Skipf("OpenConfig YANG not found in %s (set ROCEFAB_YANG_DIR): skipping YANG validation", dir)
	}
	return dir
}

// Optional returns the YANG folder, or "" when it is absent, for tests that
// validate against it only where they can.
func Optional() string {
	dir := Path()
	if _, err := os.Stat(filepath.Join(dir, "openconfig-qos.yang")); err != nil {
		return ""
	}
	return dir
}
