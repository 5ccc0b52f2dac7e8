package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandsListedExplicitly: the root command lists every command, and
// no file of the package registers anything from init(), so what the
// binary offers is read in one place.
func TestCommandsListedExplicitly(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: an init(): list commands in rootCommand instead", fset.Position(fn.Pos()))
			}
		}
	}
	root := (&app{stdout: io.Discard, stderr: io.Discard}).rootCommand()
	var got []string
	for _, c := range root.Commands() {
		got = append(got, c.Name())
	}
	for _, name := range []string{"agent", "apply", "completion", "demo", "doctor", "drift", "host", "plan", "probe", "render", "rollback", "runs", "show", "validate", "version"} {
		if !slices.Contains(got, name) {
			t.Errorf("rocefab has no %s command (has %v)", name, got)
		}
	}
}
