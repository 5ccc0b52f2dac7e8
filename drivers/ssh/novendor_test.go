package ssh

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// vendorWord reports whether s names a vendor or network OS: nxos (or
// NX-OS), junos, nvue, cumulus or sonic anywhere, case-insensitive; eos,
// short enough to sit inside ordinary words ("videos"), as a word of its
// own or of a camelCase or snake_case name ("pushEOS", "arista_eos").
func vendorWord(s string) bool {
	flat := strings.ToLower(strings.ReplaceAll(s, "-", ""))
	for _, v := range []string{"nxos", "junos", "nvue", "cumulus", "sonic"} {
		if strings.Contains(flat, v) {
			return true
		}
	}
	for _, w := range words(s) {
		if strings.EqualFold(w, "eos") {
			return true
		}
	}
	return false
}

// words splits s at non-letters and at camelCase boundaries ("EOSSession"
// is EOS, Session).
func words(s string) []string {
	r := []rune(s)
	var out []string
	start := -1
	for i, c := range r {
		if !unicode.IsLetter(c) {
			if start >= 0 {
				out = append(out, string(r[start:i]))
			}
			start = -1
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := r[i-1]
		upperAfterLower := unicode.IsUpper(c) && unicode.IsLower(prev)
		endOfCaps := unicode.IsUpper(c) && unicode.IsUpper(prev) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if upperAfterLower || endOfCaps {
			out = append(out, string(r[start:i]))
			start = i
		}
	}
	if start >= 0 {
		out = append(out, string(r[start:]))
	}
	return out
}

// vendorNames lists identifiers and string literals in Go source that name
// a vendor, as "file:line: text".
func vendorNames(t *testing.T, fset *token.FileSet, f *ast.File) []string {
	t.Helper()
	var found []string
	report := func(pos token.Pos, what string) {
		found = append(found, fset.Position(pos).String()+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if vendorWord(x.Name) {
				report(x.Pos(), x.Name)
			}
		case *ast.BasicLit:
			if x.Kind != token.STRING {
				break
			}
			v, err := strconv.Unquote(x.Value)
			if err != nil {
				v = x.Value
			}
			if vendorWord(v) {
				report(x.Pos(), x.Value)
			}
		}
		return true
	})
	return found
}

func TestVendorWordMatches(t *testing.T) {
	for s, want := range map[string]bool{
		"nxos": true, "NX-OS": true, "pushEOS": true, "eosLock": true, "cleanupJunos": true, "CommitNVUE": true,
		"sonic-patch": true, "cumulus_linux": true, "SONiC takes": true, "juniper_junos": true, "platforms/sonic.yaml": true, "CommitEOSSession": true, "arista_eos": true,
		"videos": false, "geos": false, "dialect": false, "ssh": false, "Session": false, "reason": false, "people": false,
	} {
		if got := vendorWord(s); got != want {
			t.Errorf("vendorWord(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestNoVendorInDriver: the driver runs a platform's dialect and names no
// vendor in code; a vendor's push sequence, strings and definitions belong
// in its renderers/<platform> folder. Comments may describe the contract.
func TestNoVendorInDriver(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, hit := range vendorNames(t, fset, f) {
			t.Errorf("%s names a vendor; move it into the platform's dialect", hit)
		}
	}
	if checked < 5 {
		t.Fatalf("checked only %d files: run from the package directory", checked)
	}
	// And the check sees what it must: the code this package carried before.
	fset = token.NewFileSet()
	old, err := parser.ParseFile(fset, "old.go", `package ssh
const c = "no checkpoint"
func (d *Driver) pushNXOS() { _ = "configure session" + "sonic" }
`, 0)
	if err != nil {
		t.Fatal(err)
	}
	if hits := vendorNames(t, fset, old); len(hits) != 2 {
		t.Errorf("the check found %q in a file naming vendors twice", hits)
	}
}
