package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// platformFolders hold each vendor's production code; nothing else may
// name the vendor in code.
var platformFolders = []string{"nxos", "eos", "junos", "cumulus", "sonic"}

// vendorWord matches a platform's name as a word of an identifier or a
// string literal, split as written and at camelCase, so "parseEOS", "SONiC" and
// "eos_ports" match while "videos" does not. NVUE is Cumulus's API.
var vendorWord = regexp.MustCompile(`^(nxos|nx|eos|junos|cumulus|nvue|sonic)$|^(nxos|eos|junos|cumulus|nvue|sonic)[0-9]`)

// vendorExempt are the folders and files (relative to the module root)
// that may name platforms in code, and why.
var vendorExempt = map[string]string{
	// The registry is the one list of platforms.
	"renderers/all": "registry",
	// Simulators act as one vendor's device each.
	"drivers/sim": "simulators",
	// Test fleets build one device of every platform.
	"agent/engine/enginetest": "test fleet",
	// The demo runs a fleet of every platform.
	"agent/demo":        "demo",
	"agent/cli/demo.go": "demo",
	"examples":          "demo",
	// SONiC's YANG as a test oracle (yanglint), imported only by tests.
	"internal/sonicyang": "test oracle",
	// The ASIC buffer facts cite the public ASIC tables they come from,
	// which live in one vendor's repositories; no platform code.
	"intent/headroom/asics.go": "citations",
}

func TestNoVendorCodeOutsidePlatformFolders(t *testing.T) {
	var found []string
	scanned := 0
	walkProduction(t, func(rel, path string, exempt bool) {
		if exempt {
			return
		}
		scanned++
		for _, w := range vendorWords(t, path) {
			found = append(found, rel+": "+w)
		}
	})
	if scanned < 100 {
		t.Fatalf("scanned %d files: the walk did not start at the module root", scanned)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("names a platform outside its folder: %s", f)
	}
}

// walkProduction visits every non-test Go file of the module (relative
// and walkable paths), saying whether it lies in a platform folder or an
// exemption.
func walkProduction(t *testing.T, visit func(rel, path string, exempt bool)) {
	t.Helper()
	root := filepath.Join("..", "..")
	exemptDir := map[string]bool{}
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
			_, exempt := vendorExempt[rel]
			exemptDir[rel] = exempt || exemptDir[filepath.ToSlash(filepath.Dir(rel))] || slices.Contains(platformFolders, strings.TrimPrefix(rel, "renderers/"))
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		_, exempt := vendorExempt[rel]
		visit(rel, path, exempt || exemptDir[filepath.ToSlash(filepath.Dir(rel))])
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

// namesPlatform splits s into words twice, as written ("SONiC") and at
// camelCase boundaries ("parseEOS"), and looks for a platform's name.
func namesPlatform(s string) bool {
	for _, text := range []string{s, camel.ReplaceAllString(s, "$1 $2")} {
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			if vendorWord.MatchString(w) {
				return true
			}
		}
	}
	return false
}

func TestNamesPlatform(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"ParseEOS", true},
		{"nxosNull", true},
		{"sonic-db", true},
		{`"SONiC APPL_DB JSON: %w"`, true},
		{"JunosSpec", true},
		{"NVUE JSON", true},
		{"cumulus", true},
		{"NX-OS", true},
		{"videos", false},
		{"geosite", false},
		{"nv set commands", false},
		{"Ethernet1/1", false},
	} {
		if got := namesPlatform(tc.in); got != tc.want {
			t.Errorf("namesPlatform(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestVendorWordsSkipsComments: a comment naming a platform is fine, an
// identifier or a string is not.
func TestVendorWordsSkipsComments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	src := "package x\n\n// Junos and EOS print JSON.\nvar plain = 1\n\nvar eosShow = \"show sonic\"\n"
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := vendorWords(t, path)
	want := []string{"eosShow", `"show sonic"`}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("vendorWords = %q, want %q", got, want)
	}
}

// TestOraclesOnlyInTests: the exempt test oracle stays one; no production
// file imports it.
func TestOraclesOnlyInTests(t *testing.T) {
	const oracle = `"github.com/rocefab/rocefab/internal/sonicyang"`
	checked := 0
	walkProduction(t, func(rel, path string, _ bool) {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			if imp.Path.Value == oracle {
				t.Errorf("%s imports the test oracle %s", rel, oracle)
			}
		}
	})
	if checked < 100 {
		t.Fatalf("checked %d files: the walk did not start at the module root", checked)
	}
}
