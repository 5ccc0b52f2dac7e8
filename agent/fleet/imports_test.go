package fleet

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/rocefab/rocefab/"

// deps lists every import reachable from the packages at and below dir
// (a path inside this module), following the module's own packages;
// each import maps to the module package that imports it.
func deps(t *testing.T, root, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	seen := map[string]bool{}
	var visit func(pkg string)
	visit = func(pkg string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		p, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(pkg, module)), 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return
			}
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if _, ok := out[imp]; !ok {
				out[imp] = pkg
			}
			if strings.HasPrefix(imp, module) {
				visit(imp)
			}
		}
	}
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() != "testdata" {
			rel, _ := filepath.Rel(root, path)
			visit(module + filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportsStayOneWay: the agent and the CLI share this package, and
// neither reaches into the other; this package never reaches the CLI,
// the agent or cobra (flags stay in the CLI).
func TestImportsStayOneWay(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir       string
		forbidden []string
	}{
		{dir: "agent/daemon", forbidden: []string{module + "agent/cli"}},
		{dir: "agent/fleet", forbidden: []string{module + "agent/cli", module + "agent/daemon", "github.com/spf13/cobra"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			got := deps(t, root, tt.dir)
			if len(got) == 0 {
				t.Fatalf("no imports found below %s", tt.dir)
			}
			for imp, by := range got {
				for _, bad := range tt.forbidden {
					if imp == bad || strings.HasPrefix(imp, bad+"/") {
						t.Errorf("%s imports %s (through %s)", tt.dir, imp, by)
					}
				}
			}
		})
	}
	// The agent uses this package, as the CLI does.
	for _, dir := range []string{"agent/daemon", "agent/cli"} {
		if _, ok := deps(t, root, dir)[module+"agent/fleet"]; !ok {
			t.Errorf("%s does not use agent/fleet", dir)
		}
	}
}
