package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// platformFolders hold each vendor's production code; nothing else may
// name the vendor in code.
var platformFolders = []string{"nxos", "eos", "junos", "cumulus", "sonic"}

// vendorWord matches a platform's name as a word of an identifier or a
// string literal: camelCase and snake_case split first, so "parseEOS" and
// "eos_ports" match while "videos" does not. NVUE is Cumulus's API.
var vendorWord = regexp.MustCompile(`^(nxos|nx|eos|junos|cumulus|nvue|sonic)$|^(nxos|eos|junos|cumulus|nvue|sonic)[0-9]`)

// vendorExempt are the folders (relative to the module root) that may name
// platforms in code, and why.
var vendorExempt = map[string]string{
	// The registry is the one list of platforms.
	"renderers/all": "registry",
	// Simulators act as one vendor's device each.
	"drivers/sim": "simulators",
	// Test fleets build one device of every platform.
	"agent/engine/enginetest": "test fleet",
	// The demo runs a fleet of every platform.
	"agent/demo": "demo",
	"examples":   "demo",
	// moved by the dialect change
	"drivers/ssh": "dialects",
	// The device model names the dialects by kind.
	"devcfg/platform.go": "dialects",
}

func TestNoVendorCodeOutsidePlatformFolders(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			for _, p := range platformFolders {
				if rel == "renderers/"+p {
					return filepath.SkipDir
				}
			}
			if _, ok := vendorExempt[rel]; ok {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if _, ok := vendorExempt[rel]; ok {
			return nil
		}
		for _, w := range vendorWords(t, path) {
			found = append(found, rel+": "+w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("names a platform outside its folder: %s", f)
	}
}

// vendorWords are the identifiers and string literals of one file (not its
// comments) that name a platform.
func vendorWords(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		var text string
		switch x := n.(type) {
		case *ast.Ident:
			text = x.Name
		case *ast.BasicLit:
			if x.Kind != token.STRING {
				return true
			}
			text = x.Value
		case *ast.ImportSpec:
			return false
		default:
			return true
		}
		if namesPlatform(text) && !seen[text] {
			seen[text] = true
			out = append(out, text)
		}
		return true
	})
	return out
}

var camel = regexp.MustCompile(`([a-z0-9])([A-Z])`)

func namesPlatform(s string) bool {
	s = camel.ReplaceAllString(s, "$1 $2")
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if vendorWord.MatchString(w) {
			return true
		}
	}
	return false
}
