package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/lint"
)

// The README and docs/ say what the code does; these tests keep them in
// step: the command table, the exit codes, the sample output, the security
// statements and every file the documents point at.

func readDoc(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// section is the text under a "## title" heading, up to the next one.
func section(t *testing.T, doc, title string) string {
	t.Helper()
	i := strings.Index(doc, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("no section %q", title)
	}
	rest := doc[i+len(title)+5:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// tableRows are the cells of each row of the Markdown tables in text (the
// header and separator rows left out); escaped pipes stay in their cell.
func tableRows(text string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "|") || strings.HasPrefix(l, "|---") {
			continue
		}
		l = strings.ReplaceAll(l, `\|`, "\x00")
		var cells []string
		for _, c := range strings.Split(strings.Trim(l, "|"), "|") {
			cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
		}
		rows = append(rows, cells)
	}
	if len(rows) > 0 {
		rows = rows[1:] // the header
	}
	return rows
}

// TestREADMECommandTable: every command has a row, and every flag a row
// names is a flag of that command.
func TestREADMECommandTable(t *testing.T) {
	rows := tableRows(section(t, readDoc(t, "README.md"), "Commands"))
	root := (&app{stdout: os.Stdout, stderr: os.Stderr}).rootCommand()
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Parent().Name() == "completion" {
				continue
			}
			all = append(all, sub)
			walk(sub)
		}
	}
	walk(root)
	flagRE := regexp.MustCompile("--[a-z][a-z-]*[a-z]")
	for _, c := range all {
		path := strings.TrimPrefix(c.CommandPath(), "rocefab ")
		var mine [][]string
		for _, r := range rows {
			// "`rocefab host plan|apply`" names host plan and host apply.
			head := strings.NewReplacer("`", "", "rocefab ", "").Replace(r[0])
			for _, alt := range strings.Split(head, " / ") {
				words := strings.Fields(alt)
				for i := range words {
					for _, w := range strings.Split(words[i], "|") {
						prefix := strings.Join(append(words[:i:i], w), " ")
						if prefix == path {
							mine = append(mine, r)
						}
					}
				}
			}
		}
		if len(mine) == 0 {
			t.Errorf("the README's command table has no row for `rocefab %s`", path)
			continue
		}
		for _, r := range mine {
			for _, flag := range flagRE.FindAllString(r[1], -1) {
				name := strings.TrimPrefix(flag, "--")
				if c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil && !rowHasOtherCommandWith(r, name, root) {
					t.Errorf("the README's row for `rocefab %s` names %s, which it does not take", path, flag)
				}
			}
		}
	}
}

// rowHasOtherCommandWith: a row for several commands ("host plan|apply")
// names a flag of one of them.
func rowHasOtherCommandWith(r []string, flag string, root *cobra.Command) bool {
	head := strings.NewReplacer("`", "", "rocefab ", "").Replace(r[0])
	for _, alt := range strings.Split(head, " / ") {
		paths := [][]string{nil}
		for _, w := range strings.Fields(alt) {
			var next [][]string
			for _, p := range paths {
				for _, choice := range strings.Split(w, "|") {
					next = append(next, append(append([]string(nil), p...), choice))
				}
			}
			paths = next
		}
		for _, p := range paths {
			for n := len(p); n > 0; n-- {
				if c, _, err := root.Find(p[:n]); err == nil && c != root && c.Flags().Lookup(flag) != nil {
					return true
				}
			}
		}
	}
	return false
}

// TestREADMEExitCodes: the one exit-code table is the code's.
func TestREADMEExitCodes(t *testing.T) {
	rows := tableRows(section(t, readDoc(t, "README.md"), "Exit codes"))
	var got []int
	for _, r := range rows {
		n, err := strconv.Atoi(r[0])
		if err != nil {
			t.Fatalf("row %v", r)
		}
		got = append(got, n)
	}
	if want := []int{ExitOK, ExitFailure, ExitChanges, ExitUsage}; !slices.Equal(got, want) {
		t.Fatalf("the README's exit codes %v, the code's %v", got, want)
	}
}

// TestREADMELintTable: every lint code is in the README's table (alone or
// in a range).
func TestREADMELintTable(t *testing.T) {
	doc := readDoc(t, "README.md")
	i := strings.Index(doc, "### Lint rules")
	if i < 0 {
		t.Fatal("no lint table")
	}
	covered := map[string]bool{}
	rangeRE := regexp.MustCompile(`RF(\d{3})(?:[–-]RF(\d{3}))?`)
	for _, r := range tableRows(doc[i : strings.Index(doc[i:], "\n## ")+i]) {
		for _, m := range rangeRE.FindAllStringSubmatch(r[0], -1) {
			lo, _ := strconv.Atoi(m[1])
			hi := lo
			if m[2] != "" {
				hi, _ = strconv.Atoi(m[2])
			}
			for n := lo; n <= hi; n++ {
				covered[fmt.Sprintf("RF%d", n)] = true
			}
		}
	}
	for _, r := range lint.Rules {
		if !covered[r.Code] {
			t.Errorf("the README's lint table has no row for %s (%s)", r.Code, r.Summary)
		}
	}
}

// TestREADMESaysHowToBuild: the README shows how to build and install the
// binary the demo, the lab and every host call, from the package that is
// the binary.
func TestREADMESaysHowToBuild(t *testing.T) {
	doc := readDoc(t, "README.md")
	mod := readDoc(t, "go.mod")
	module := strings.Fields(strings.SplitN(mod, "\n", 2)[0])[1]
	for _, want := range []string{"go build -o rocefab ./cmd/rocefab", "go install " + module + "/cmd/rocefab@latest", "rocefab version"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the README does not say %q", want)
		}
	}
	if _, err := os.Stat("../../cmd/rocefab/main.go"); err != nil {
		t.Fatalf("the binary's package: %v", err)
	}
}

// TestDocsPointAtFilesInTheRepo: every repository path the README and
// docs/ name, as a link or in code, exists; none points outside it.
func TestDocsPointAtFilesInTheRepo(t *testing.T) {
	files := []string{"README.md", "BENCHMARKS.md", "examples/kubernetes/README.md"}
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, d := range docs {
		files = append(files, strings.TrimPrefix(d, "../../"))
	}
	linkRE := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	codeRE := regexp.MustCompile("`((?:examples|docs|agent|intent|renderers|drivers|validators|cmd|internal|\\.ci|shared)/[^`\\s]*)`")
	for _, f := range files {
		doc := readDoc(t, f)
		if strings.Contains(doc, "shared/reference") {
			t.Errorf("%s points at shared/reference, which is not in the repository", f)
		}
		var paths []string
		for _, m := range linkRE.FindAllStringSubmatch(doc, -1) {
			if !strings.Contains(m[1], "://") && !strings.HasPrefix(m[1], "mailto:") {
				paths = append(paths, filepath.Join(filepath.Dir(f), m[1]))
			}
		}
		for _, m := range codeRE.FindAllStringSubmatch(doc, -1) {
			paths = append(paths, m[1])
		}
		goSymbol := regexp.MustCompile(`\.[A-Z(].*$`) // renderers/all.Renderers(), a Go selector
		for _, p := range paths {
			p = goSymbol.ReplaceAllString(strings.TrimRight(p, ".,:;)"), "")
			if strings.ContainsAny(p, "<>{}$") {
				continue // a placeholder: examples/broken/<CODE>.yaml
			}
			matches, _ := filepath.Glob(filepath.Join("..", "..", p))
			if len(matches) == 0 {
				t.Errorf("%s names %s, which is not in the repository", f, p)
			}
		}
	}
}

// TestAgentDocSecurityStatements: docs/agent.md says the flags that turn
// verification off are flags only, and the code does what it says: the
// config file refuses them, their variables are ignored with a warning;
// and the agent listens on localhost by default.
func TestAgentDocSecurityStatements(t *testing.T) {
	doc := readDoc(t, "docs/agent.md")
	rows := tableRows(section(t, doc, "Settings"))
	for _, name := range unsafeFlags {
		var row []string
		for _, r := range rows {
			if len(r) >= 5 && r[1] == "`--"+name+"`" {
				row = r
			}
		}
		if row == nil {
			t.Errorf("docs/agent.md has no settings row for --%s", name)
			continue
		}
		if row[0] != "— (flag only)" || row[2] != "— (flag only)" {
			t.Errorf("docs/agent.md gives --%s a key %q or variable %q: it is a flag only", name, row[0], row[2])
		}
		// The file refuses it.
		key := name
		if strings.HasPrefix(name, "git-") {
			key = "agent:\n  git:\n    " + strings.TrimPrefix(name, "git-")
		}
		cfg := filepath.Join(t.TempDir(), "rocefab.yaml")
		if err := os.WriteFile(cfg, []byte(key+": true\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := runCLI(t, "", "--config", cfg, "validate", "../../examples/basic"); code != ExitUsage || !strings.Contains(errOut, "only the --"+name+" flag") {
			t.Errorf("the config file does not refuse %s: exit %d %s", name, code, errOut)
		}
		// The variables are ignored, and said to be.
		args := []string{"plan", filepath.Join(t.TempDir(), "nothing-here")}
		if strings.HasPrefix(name, "git-") {
			args = []string{"agent", "--print-settings", t.TempDir()}
		}
		for _, env := range unsafeEnv(name) {
			t.Setenv(env, "true")
			_, _, errOut := runCLI(t, "", args...)
			if !strings.Contains(errOut, "WARNING: "+env+" is ignored") {
				t.Errorf("%s is not said to be ignored: %s", env, errOut)
			}
			os.Unsetenv(env)
		}
	}
	for _, s := range agentSettings {
		if s.key == "http.listen" && (s.def != "127.0.0.1:9490" || !strings.Contains(doc, "`127.0.0.1:9490`")) {
			t.Errorf("the agent's default listen address is %v; docs/agent.md must say so", s.def)
		}
	}
	if !strings.Contains(doc, "TLS verification\n  and SSH host-key checking are on by default") && !strings.Contains(doc, "TLS verification and SSH host-key checking are on by default") {
		t.Error("docs/agent.md no longer says verification is on by default")
	}
}

// demoMask hides what changes from run to run: addresses, namespace
// names, run IDs, durations, temporary paths.
var demoMask = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "ADDR"},
	{regexp.MustCompile(`rfdemo-\d+-[0-9a-f]+`), "NS"},
	{regexp.MustCompile(`\d{8}T\d{6}(\.\d+)?Z-[0-9a-f]{6}`), "RUN"},
	{regexp.MustCompile(`in \d+ ms`), "in N ms"},
	{regexp.MustCompile(`/tmp/rocefab-demo-\S+`), "TMP"},
}

func masked(s string) string {
	for _, m := range demoMask {
		s = m.re.ReplaceAllString(s, m.with)
	}
	return strings.TrimRight(s, " ")
}

// TestREADMEDemoSample runs the demo as the README shows it (as root, with
// the netns router and hosts) and finds every line of the README's sample
// in its output, in order; "..." in a README line stands for anything.
func TestREADMEDemoSample(t *testing.T) {
	netnstest.Require(t)
	doc := readDoc(t, "README.md")
	i := strings.Index(doc, "### What the demo shows")
	start := strings.Index(doc[i:], "```\n") + i + 4
	end := strings.Index(doc[start:], "```") + start
	sample := strings.Split(strings.TrimRight(doc[start:end], "\n"), "\n")
	code, out, errOut := runCLI(t, "", "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errOut)
	}
	lines := strings.Split(out, "\n")
	for k := range lines {
		lines[k] = masked(lines[k])
	}
	at := 0
	for _, want := range sample {
		if want == "" || strings.HasPrefix(want, "$ go run ") || strings.TrimSpace(want) == "..." {
			continue
		}
		parts := strings.Split(masked(want), "...")
		for k := range parts {
			parts[k] = regexp.QuoteMeta(parts[k])
		}
		re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
		found := false
		for at < len(lines) {
			ok := re.MatchString(lines[at])
			at++
			if ok {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("the README's demo sample line is not in the demo's output (in order):\n%s\noutput:\n%s", want, out)
		}
	}
}
