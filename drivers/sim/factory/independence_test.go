package factory_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/rocefab/rocefab/"

// simAllowed are the only rocefab packages the simulators' production
// code may reach, directly or through each other: the device model as a
// value container, gNMI path syntax and the simulators themselves. Never
// the renderers, the dialects, the drivers or the intent: a simulator is
// an oracle, written from the vendors' documentation, and one that read
// rocefab's own data would agree with any mistake in it.
var simAllowed = []string{"devcfg", "drivers/gnmi/gnmipath", "drivers/sim"}

func TestSimulatorsStayIndependent(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	seen := map[string][]string{} // package → who imported it first
	queue := []string{"drivers/sim"}
	var bad []string
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		imports, err := importsUnder(filepath.Join(root, pkg), pkg == "drivers/sim")
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range imports {
			rel, ok := strings.CutPrefix(imp, module)
			if !ok || seen[rel] != nil {
				continue
			}
			seen[rel] = append(seen[pkg], pkg)
			if !allowed(rel) {
				bad = append(bad, rel+" (through "+strings.Join(seen[rel], " → ")+")")
				continue
			}
			queue = append(queue, rel)
		}
	}
	if len(seen) == 0 {
		t.Fatal("found no rocefab imports at all: the walk is broken")
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("a simulator reaches %s", b)
	}
}

func allowed(rel string) bool {
	for _, a := range simAllowed {
		if rel == a || strings.HasPrefix(rel, a+"/") {
			return true
		}
	}
	return false
}

// importsUnder lists the imports of the non-test Go files in dir (and
// its subfolders when recursive).
func importsUnder(dir string, recursive bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (!recursive || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, s := range f.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
