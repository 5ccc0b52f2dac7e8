package shareddir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModuleRootHoldsGoMod(t *testing.T) {
	if _, err := os.Stat(filepath.Join(ModuleRoot(), "go.mod")); err != nil {
		t.Fatalf("ModuleRoot %s has no go.mod: %v", ModuleRoot(), err)
	}
}

func TestPathPrefersEnv(t *testing.T) {
	t.Setenv("ROCEFAB_TEST_SHARED", "/elsewhere")
	if got := Path("ROCEFAB_TEST_SHARED", "yang"); got != "/elsewhere" {
		t.Fatalf("Path = %q, want the env value", got)
	}
	t.Setenv("ROCEFAB_TEST_SHARED", "")
	want := filepath.Join(filepath.Dir(ModuleRoot()), "shared", "yang")
	if got := filepath.Clean(Path("ROCEFAB_TEST_SHARED", "yang")); got != filepath.Clean(want) {
		t.Fatalf("Path = %q, want %q", got, want)
	}
}
