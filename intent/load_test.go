package intent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles lays out files (relative path → content) under a new directory.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const docHead = "apiVersion: rocefab.io/v1alpha1\nkind: Fabric\n"

func TestLoadDirectoryMerge(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"fabric.yaml": docHead + "metadata: {name: lab}\nspec:\n  lossless: {vlan: 100}\n  groups:\n    - name: leaves\n",
		"switches.yaml": docHead + "metadata: {name: lab}\nspec:\n  switches:\n    - {name: leaf1, group: leaves}\n" +
			"---\n" + docHead + "spec:\n  switches:\n    - {name: leaf2, group: leaves}\n",
		"hosts/rack1.yml":    docHead + "spec:\n  hosts:\n    - {name: h1}\n  links:\n    - {a: h1:eth0, b: leaf1:swp1}\n",
		"hosts/rack2.yaml":   docHead + "spec:\n  hosts:\n    - {name: h2}\n",
		".git/config.yaml":   "not: an intent",
		"README.md":          "# not read",
		"hosts/notes.txt":    "not read either",
		"hosts/.hidden.yaml": docHead + "spec:\n  hosts:\n    - {name: hidden}\n",
	})
	fab, diags := Load(dir)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diagStrings(diags))
	}
	wantFiles := []string{
		filepath.Join(dir, "fabric.yaml"),
		filepath.Join(dir, "hosts/.hidden.yaml"),
		filepath.Join(dir, "hosts/rack1.yml"),
		filepath.Join(dir, "hosts/rack2.yaml"),
		filepath.Join(dir, "switches.yaml"),
	}
	if diff := cmp.Diff(wantFiles, fab.Files); diff != "" {
		t.Errorf("files in name order, hidden directories skipped (-want +got):\n%s", diff)
	}
	var switches, hosts []string
	for _, s := range fab.Switches {
		switches = append(switches, s.Name)
	}
	for _, h := range fab.Hosts {
		hosts = append(hosts, h.Name)
	}
	if got := strings.Join(switches, ","); got != "leaf1,leaf2" {
		t.Errorf("switches = %s", got)
	}
	if got := strings.Join(hosts, ","); got != "hidden,h1,h2" {
		t.Errorf("hosts = %s", got)
	}
	if fab.Name != "lab" || *fab.Lossless.VLAN != 100 || len(fab.Groups) != 1 || len(fab.Links) != 1 {
		t.Errorf("merged fabric = %+v", fab)
	}
	// Every field keeps its own file.
	if got := fab.Links[0].At("b").File; got != filepath.Join(dir, "hosts/rack1.yml") {
		t.Errorf("link position file = %s", got)
	}
}

func TestLoadSeveralPaths(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml":     docHead + "spec:\n  hosts:\n    - {name: h1}\n",
		"more/b.yml": docHead + "spec:\n  hosts:\n    - {name: h2}\n",
	})
	fab, diags := Load(filepath.Join(dir, "a.yaml"), filepath.Join(dir, "more"))
	if len(diags) > 0 || len(fab.Hosts) != 2 {
		t.Fatalf("Load(file, dir) = %d hosts, %v", len(fab.Hosts), diagStrings(diags))
	}
}

func TestLoadReadsAFileOnce(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.yaml": docHead + "spec:\n  hosts:\n    - {name: h1}\n"})
	fab, diags := Load(dir, filepath.Join(dir, "a.yaml"), dir+"/./a.yaml")
	if len(diags) > 0 || len(fab.Hosts) != 1 || len(fab.Files) != 1 {
		t.Errorf("Load(dir, dir/a.yaml) = %d hosts from %v, %v", len(fab.Hosts), fab.Files, diagStrings(diags))
	}
}

func TestLoadConflicts(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": docHead + "metadata: {name: lab}\n" +
			"spec:\n" + //                             line 4
			"  lossless: {vlan: 100}\n" + //            line 5
			"  security: {caBundle: /etc/ca.pem}\n" + // line 6
			"  probe: {count: 10}\n" + //               line 7
			"  groups:\n" + //                          line 8
			"    - name: leaves\n" + //                 line 9
			"  switches:\n" + //                        line 10
			"    - name: leaf1\n", //                   line 11
		"b.yaml": docHead + "metadata: {name: other}\n" + // line 3
			"spec:\n" +
			"  lossless: {vlan: 200}\n" + //            line 5
			"  security: {knownHosts: /etc/kh}\n" + //  line 6
			"  probe: {count: 20}\n" + //               line 7
			"  groups:\n" +
			"    - name: leaves\n" + //                 line 9
			"  switches:\n" +
			"    - name: leaf2\n" + //                  line 11
			"  hosts:\n" +
			"    - name: leaf1\n", //                   line 13
	})
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	_, diags := Load(dir)
	want := []string{
		b + `:3:12: RF015 error metadata.name: fabric name "other" differs from "lab" in another file`,
		b + ":5:3: RF015 error spec.lossless: spec.lossless is already set at " + a + ":5:3; set it in one file only",
		b + ":6:3: RF015 error spec.security: spec.security is already set at " + a + ":6:3; set it in one file only",
		b + ":7:3: RF015 error spec.probe: spec.probe is already set at " + a + ":7:3; set it in one file only",
		b + ":9:7: RF007 error spec.groups[0].name: group \"leaves\" is already defined at " + a + ":9:7",
		b + ":13:7: RF007 error spec.hosts[0].name: device \"leaf1\" is already defined at " + a + ":11:7",
	}
	if diff := cmp.Diff(want, diagStrings(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestLoadDuplicateDeviceAcrossFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"leaves.yaml": docHead + "spec:\n  switches:\n    - name: leaf1\n      platform: eos\n",
		"more.yaml":   docHead + "spec:\n  switches:\n    - name: leaf2\n    - name: leaf1\n",
	})
	_, diags := Load(dir)
	want := []string{filepath.Join(dir, "more.yaml") + `:6:7: RF007 error spec.switches[1].name: device "leaf1" is already defined at ` +
		filepath.Join(dir, "leaves.yaml") + ":5:7"}
	if diff := cmp.Diff(want, diagStrings(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	// The resolver keeps the first definition only.
	fab, _ := Load(dir)
	r, _ := Resolve(fab)
	if len(r.Switches) != 2 || r.Switch("leaf1").Platform != "eos" {
		t.Errorf("resolved switches = %d, leaf1 = %+v", len(r.Switches), r.Switch("leaf1"))
	}
}

func TestLoadNoInput(t *testing.T) {
	empty := t.TempDir()
	onlyText := writeFiles(t, map[string]string{"README.md": "x"})
	comments := writeFiles(t, map[string]string{"fabric.yaml": "# TODO\n\n"})
	missing := filepath.Join(empty, "nope.yaml")
	tests := []struct {
		name  string
		paths []string
		want  string
	}{
		{"empty directory", []string{empty}, empty + ": RF014 error (document): no intent files (*.yaml, *.yml) found"},
		{"no yaml in directory", []string{onlyText}, onlyText + ": RF014 error (document): no intent files (*.yaml, *.yml) found"},
		{"missing path", []string{missing}, missing + ": RF014 error (document): stat " + missing + ": no such file or directory"},
		{"only comments", []string{comments}, filepath.Join(comments, "fabric.yaml") + ":1:1: RF014 error (document): no intent documents found (the file is empty or holds only comments)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Load(tt.paths...)
			if diff := cmp.Diff([]string{tt.want}, diagStrings(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a missing path beside a good one", func(t *testing.T) {
		good := writeFiles(t, map[string]string{"f.yaml": docHead + "spec: {}\n"})
		fab, diags := Load(good, missing)
		if fab == nil || len(diags) != 1 || diags[0].Code != CodeNoInput {
			t.Errorf("Load = %v, %v", fab, diagStrings(diags))
		}
	})
}

func TestInlineSecrets(t *testing.T) {
	in := withHeader(
		"  groups:",
		"    - name: leaves",
		"      credentials: {username: admin, password: hunter2}", // line 6
		"  switches:",
		"    - name: leaf1",
		"      credentials:",
		"        username: admin",
		"        token: abc123", // line 11
		"    - name: leaf2",
		"      credentials:",
		"        passwordEnv: LEAF2_PASSWORD",
		"        passwordFile: /etc/rocefab/leaf2", // line 15
		"    - name: leaf3",
		"      credentials: {usernameEnv: SW_USER, passwordFile: /run/secrets/sw}",
		"  hosts:",
		"    - name: h1",
		"      credentials: {password: ''}", // an empty password is no secret
		"    - name: h2",
		"      credentials: {username: root, password: s3cret}", // line 22
	)
	_, diags := LoadBytes("f.yaml", in)
	want := []string{
		"f.yaml:6:38: RF008 error spec.groups[0].credentials.password: inline secrets are not allowed in the intent; use passwordEnv (an environment variable) or passwordFile",
		"f.yaml:11:9: RF008 error spec.switches[0].credentials.token: inline secrets are not allowed in the intent; use passwordEnv (an environment variable) or passwordFile",
		"f.yaml:15:9: RF008 error spec.switches[1].credentials.passwordFile: set passwordEnv or passwordFile, not both",
		"f.yaml:22:37: RF008 error spec.hosts[1].credentials.password: inline secrets are not allowed in the intent; use passwordEnv (an environment variable) or passwordFile",
	}
	if diff := cmp.Diff(want, diagStrings(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, d := range diags {
		if strings.Contains(d.String(), "hunter2") || strings.Contains(d.String(), "abc123") || strings.Contains(d.String(), "s3cret") {
			t.Errorf("a diagnostic prints the secret: %s", d)
		}
	}
}

func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"scanner error on line 1", "a: b: c\n", "f.yaml:1:1: RF001 error (document): mapping values are not allowed in this context"},
		{"tab indentation", docHead + "spec:\n\tswitches: []\n", "f.yaml:4:1: RF001 error (document): found character that cannot start any token"},
		{"unclosed flow list", docHead + "spec:\n  hosts: [\n    {name: a}\n", "f.yaml:4:1: RF001 error (document): did not find expected ',' or ']'"},
		{"unknown anchor", docHead + "spec:\n  hosts:\n    - *nope\n", "f.yaml:5:7: RF001 error (document): unknown anchor 'nope' referenced"},
		{"unclosed quote", docHead + "metadata: {name: \"lab}\n", "f.yaml:3:1: RF001 error (document): found unexpected end of stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := LoadBytes("f.yaml", []byte(tt.in))
			if diff := cmp.Diff([]string{tt.want}, diagStrings(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAliasExpansionIsBounded(t *testing.T) {
	// Each level lists the previous one ten times: 10^6 hosts from a few
	// hundred bytes if aliases were expanded without a bound.
	var b strings.Builder
	b.WriteString(docHead + "spec:\n  groups:\n    - name: g\n      overrides:\n        roceDscp: &l0 [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n")
	b.WriteString("  hosts: &top\n")
	b.WriteString("    - &h {name: h, nics: [{netdev: a}, {netdev: b}, {netdev: c}, {netdev: d}], overrides: {roceDscp: *l0}}\n")
	for i := 0; i < 200; i++ {
		b.WriteString("    - *h\n")
	}
	b.WriteString("  switches:\n")
	for i := 0; i < 2000; i++ {
		b.WriteString("    - {name: s, ports: [{names: *l0}, {names: *l0}, {names: *l0}]}\n")
	}
	_, diags := LoadBytes("f.yaml", []byte(b.String()))
	found := false
	for _, d := range diags {
		if d.Code == CodeSyntax && strings.Contains(d.Message, "expands aliases too often") {
			found = true
		}
	}
	// The document is small and well-formed, but not so heavily aliased that
	// the budget runs out: it must still load (duplicate names are all).
	if found {
		t.Errorf("a moderately aliased document hit the alias budget: %v", diagStrings(diags)[:3])
	}

	// 3,000 hosts each naming one list of 500 NICs: 1.5 million NICs from
	// 100 KB of YAML.
	var bomb strings.Builder
	bomb.WriteString(docHead + "spec:\n  hosts:\n    - {name: h0, nics: &n [")
	for i := 0; i < 500; i++ {
		bomb.WriteString("{netdev: e},")
	}
	bomb.WriteString("]}\n")
	for i := 1; i < 3000; i++ {
		bomb.WriteString("    - {name: h, nics: *n}\n")
	}
	_, diags = LoadBytes("f.yaml", []byte(bomb.String()))
	var got []Diagnostic
	for _, d := range diags {
		if d.Code == CodeSyntax {
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].Message != "the document expands aliases too often; write the values out or share them with groups" ||
		!strings.HasPrefix(got[0].Field, "spec.hosts[") || got[0].Line != 5 {
		t.Errorf("alias bomb: want one RF001 inside spec.hosts on line 5, got %v", got)
	}
}
