package cli

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

const examplesDir = "../../examples"

// diagLine is one diagnostic as validate prints it:
// file:line:col: CODE severity field: message
var diagLine = regexp.MustCompile(`^(.+):(\d+):(\d+): (RF\d{3}) (error|warning) (\S+): (.+)$`)

// requireRegistered skips when the intent names a platform that no
// renderer has registered yet (renderers/all), naming it. Platforms in
// unknownOnPurpose are meant to be unknown.
func requireRegistered(t *testing.T, unknownOnPurpose bool, paths ...string) {
	t.Helper()
	if unknownOnPurpose {
		return
	}
	fab, _ := intent.Load(paths...)
	if fab == nil {
		return
	}
	r, _ := intent.Resolve(fab)
	reg := all.Renderers()
	var missing []string
	for _, sw := range r.Switches {
		for _, p := range []string{sw.Platform, sw.OCFallback} {
			if p == intent.PFCFallbackNone && p == sw.OCFallback {
				continue
			}
			if _, err := reg.Lookup(p); p != "" && err != nil && !slices.Contains(missing, p) {
				missing = append(missing, p)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		t.Fatalf("platform %s is not registered in renderers/all; %v needs it", strings.Join(missing, ", "), paths)
	}
}

// brokenExample is one examples/broken file: the code it trips, and the
// line marked "# <- CODE" where it must be reported.
type brokenExample struct {
	path, code string
	line       int
}

func brokenExamples(t *testing.T) []brokenExample {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(examplesDir, "broken", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no broken examples: %v", err)
	}
	var out []brokenExample
	for _, f := range files {
		code := strings.TrimSuffix(filepath.Base(f), ".yaml")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		line := 0
		for i, l := range strings.Split(string(data), "\n") {
			if strings.Contains(l, "# <- "+code) {
				if line != 0 {
					t.Fatalf("%s marks two lines", f)
				}
				line = i + 1
			}
		}
		if line == 0 {
			t.Fatalf("%s marks no line with # <- %s", f, code)
		}
		out = append(out, brokenExample{path: f, code: code, line: line})
	}
	return out
}

func ruleSeverity(code string) intent.Severity {
	for _, r := range lint.Rules {
		if r.Code == code {
			return r.Severity
		}
	}
	return intent.SeverityError // every loader code is an error
}

// TestValidateBrokenExamples runs `rocefab validate` on each broken example:
// it must report its own code, and only that, at the marked line, and exit
// 1 (a warning exits 0, and 1 with --strict).
func TestValidateBrokenExamples(t *testing.T) {
	for _, ex := range brokenExamples(t) {
		t.Run(ex.code, func(t *testing.T) {
			requireRegistered(t, ex.code == lint.CodeUnknownPlatform, ex.path)
			code, out, stderr := runCLI(t, "", "validate", ex.path)
			want := ExitFailure
			warning := ruleSeverity(ex.code) == intent.SeverityWarning
			if warning {
				want = ExitOK
			}
			if code != want {
				t.Errorf("exit %d, want %d\n%s%s", code, want, out, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) < 2 {
				t.Fatalf("no diagnostics printed:\n%s", out)
			}
			found := false
			for _, l := range lines[:len(lines)-1] {
				m := diagLine.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("not in the file:line:col: CODE severity field: message format: %q", l)
					continue
				}
				if m[4] != ex.code {
					t.Errorf("trips %s too: %s", m[4], l)
					continue
				}
				if m[1] != ex.path {
					t.Errorf("reported in %s, want %s", m[1], ex.path)
				}
				if n, _ := strconv.Atoi(m[2]); n == ex.line {
					found = true
				}
				if (m[5] == "warning") != warning {
					t.Errorf("severity %s, lint.Rules says otherwise: %s", m[5], l)
				}
			}
			if !found {
				t.Errorf("%s not reported at line %d:\n%s", ex.code, ex.line, out)
			}
			errs, warns := 1, 0
			if warning {
				errs, warns = 0, 1
			}
			if summary := lines[len(lines)-1]; summary != fmt.Sprintf("%d error(s), %d warning(s)", errs, warns) {
				t.Errorf("summary line %q", summary)
			}
			if warning {
				if code, out, _ := runCLI(t, "", "validate", "--strict", ex.path); code != ExitFailure {
					t.Errorf("--strict: exit %d, want 1\n%s", code, out)
				}
			}
		})
	}
}

// loaderCodes reads the RF0xx constants from intent/codes.go, the one list.
func loaderCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../intent/codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, _ := strconv.Unquote(lit.Value); regexp.MustCompile(`^RF\d{3}$`).MatchString(s) {
				codes = append(codes, s)
			}
		}
		return true
	})
	if len(codes) < 15 {
		t.Fatalf("found only %d codes in intent/codes.go", len(codes))
	}
	return codes
}

// TestEveryCodeHasABrokenExample: every loader and lint code has exactly one
// example, and every example is a known code.
func TestEveryCodeHasABrokenExample(t *testing.T) {
	known := loaderCodes(t)
	for _, r := range lint.Rules {
		known = append(known, r.Code)
	}
	have := map[string]bool{}
	for _, ex := range brokenExamples(t) {
		have[ex.code] = true
		if !slices.Contains(known, ex.code) {
			t.Errorf("examples/broken/%s.yaml is not a known code", ex.code)
		}
	}
	for _, c := range known {
		if !have[c] {
			t.Errorf("code %s has no examples/broken/%s.yaml", c, c)
		}
	}
}

func TestValidateExamples(t *testing.T) {
	aiFiles, _ := filepath.Glob(filepath.Join(examplesDir, "ai-cluster", "*.yaml"))
	tests := []struct {
		name  string
		flags []string
		paths []string
	}{
		{"basic", nil, []string{filepath.Join(examplesDir, "basic")}},
		{"ai-cluster", nil, []string{filepath.Join(examplesDir, "ai-cluster")}},
		// Each PATH is its own fabric: the README's command.
		{"basic and ai-cluster", nil, []string{filepath.Join(examplesDir, "basic"), filepath.Join(examplesDir, "ai-cluster")}},
		// The files of a directory, named one by one, merge the same way.
		{"ai-cluster files merged", []string{"--merge"}, aiFiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireRegistered(t, false, tt.paths...)
			args := append(append([]string{"validate", "--strict"}, tt.flags...), tt.paths...)
			code, out, stderr := runCLI(t, "", args...)
			if code != ExitOK || out != "0 error(s), 0 warning(s)\n" {
				t.Errorf("exit %d, want 0 with nothing to report:\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestAICluster checks the example is what it claims: 2 NX-OS spines, 4 EOS
// and 4 SONiC leaves, 64 hosts, every NIC cabled and each leaf to both spines.
func TestAICluster(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(examplesDir, "ai-cluster", "*.yaml"))
	if len(files) < 4 {
		t.Fatalf("ai-cluster should span several files, has %d", len(files))
	}
	fab, diags := intent.Load(filepath.Join(examplesDir, "ai-cluster"))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	r, diags := intent.Resolve(fab)
	if len(diags) > 0 {
		t.Fatal(diags.Err())
	}
	platforms := map[string]int{}
	for _, sw := range r.Switches {
		platforms[sw.Platform]++
		if sw.Group == "" {
			t.Errorf("switch %s takes nothing from a group", sw.Name)
		}
	}
	if want := map[string]int{"nxos": 2, "eos": 4, "sonic": 4}; !maps.Equal(platforms, want) {
		t.Errorf("platforms = %v, want %v", platforms, want)
	}
	if len(r.Hosts) != 64 {
		t.Errorf("%d hosts, want 64", len(r.Hosts))
	}
	perLeaf := map[string]int{}
	for _, l := range r.HostLinks() {
		perLeaf[l.SwitchEnd.Device]++
	}
	spineLinks := map[string]map[string]bool{}
	for _, l := range r.Links {
		if l.HostEnd != nil {
			continue
		}
		leaf, spine := l.A.Device, l.B.Device
		if spineLinks[leaf] == nil {
			spineLinks[leaf] = map[string]bool{}
		}
		spineLinks[leaf][spine] = true
	}
	for i := 1; i <= 8; i++ {
		leaf := fmt.Sprintf("leaf%d", i)
		if perLeaf[leaf] != 8 || !spineLinks[leaf]["spine1"] || !spineLinks[leaf]["spine2"] {
			t.Errorf("%s: %d hosts, spines %v", leaf, perLeaf[leaf], spineLinks[leaf])
		}
	}
	for _, h := range r.Hosts {
		if !strings.HasPrefix(h.Address.Host, "198.51.100.") || !strings.HasPrefix(h.NICs[0].Address, "2001:db8:") {
			t.Errorf("host %s uses addresses outside the documentation ranges: %s, %s", h.Name, h.Address, h.NICs[0].Address)
		}
	}
	for _, sw := range r.Switches {
		if !strings.HasPrefix(sw.Address.Host, "192.0.2.") {
			t.Errorf("switch %s address %s is outside 192.0.2.0/24", sw.Name, sw.Address)
		}
	}
}

func TestValidateJSON(t *testing.T) {
	type report struct {
		SchemaVersion string `json:"schemaVersion"`
		Valid         bool   `json:"valid"`
		Errors        int    `json:"errors"`
		Warnings      int    `json:"warnings"`
		Diagnostics   []struct {
			File, Code, Severity, Field, Message string
			Line, Column                         int
		} `json:"diagnostics"`
	}
	path := filepath.Join(examplesDir, "broken", "RF012.yaml")
	code, out, _ := runCLI(t, "", "validate", "--output", "json", path)
	var rep report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if code != ExitFailure || rep.SchemaVersion != "rocefab.io/validate/v1" || rep.Valid || rep.Errors != 1 || rep.Warnings != 0 || len(rep.Diagnostics) != 1 {
		t.Fatalf("exit %d, report %+v", code, rep)
	}
	d := rep.Diagnostics[0]
	if d.File != path || d.Line != 10 || d.Column != 21 || d.Code != "RF012" || d.Severity != "error" ||
		d.Field != "spec.lossless.ecn.minThreshold" || d.Message != `unknown unit "kbps" (use B, KB, KiB, MB or MiB)` {
		t.Errorf("diagnostic %+v", d)
	}

	// A warning is valid without --strict, and not with it.
	warn := filepath.Join(examplesDir, "broken", "RF126.yaml")
	for _, strict := range []bool{false, true} {
		args := []string{"validate", "-o", "json", warn}
		if strict {
			args = append(args, "--strict")
		}
		code, out, _ := runCLI(t, "", args...)
		var rep report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Valid == strict || rep.Warnings != 1 || (code == ExitOK) == strict {
			t.Errorf("strict=%v: exit %d, report %+v", strict, code, rep)
		}
	}

	// Clean intent: an empty list, not null.
	dir := t.TempDir()
	good := filepath.Join(dir, "fabric.yaml")
	if err := os.WriteFile(good, []byte("apiVersion: rocefab.io/v1alpha1\nkind: Fabric\nspec:\n  hosts: [{name: h1, netns: h1}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "", "validate", "--output=json", good)
	if code != ExitOK || !strings.Contains(out, `"diagnostics": []`) || !strings.Contains(out, `"valid": true`) {
		t.Errorf("clean intent: exit %d\n%s", code, out)
	}
}

func TestValidateUsageAndInput(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		inStderr string
	}{
		{"no path", []string{"validate"}, ExitUsage, "", "missing intent PATH"},
		{"bad output format", []string{"validate", "-o", "yaml", filepath.Join(examplesDir, "basic")}, ExitUsage, "", `--output "yaml": use text, json`},
		{"unknown flag", []string{"validate", "--fix", filepath.Join(examplesDir, "basic")}, ExitUsage, "", "unknown flag: --fix"},
		{"missing path", []string{"validate", "no/such/dir"}, ExitFailure,
			"no/such/dir: RF014 error (document): stat no/such/dir: no such file or directory\n1 error(s), 0 warning(s)\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", tt.args...)
			if code != tt.code || out != tt.stdout || !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("exit %d (want %d)\nstdout: %q (want %q)\nstderr: %q (want it to contain %q)", code, tt.code, out, tt.stdout, stderr, tt.inStderr)
			}
		})
	}
}
