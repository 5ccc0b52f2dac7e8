package intentsrc

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	xssh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/agent/daemon/internal/gittest"
	"github.com/rocefab/rocefab/internal/githttptest"
)

func update(t *testing.T, s Source) Snapshot {
	t.Helper()
	snap, err := s.Update(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestGitFollowsBranch(t *testing.T) {
	repo := gittest.New(t)
	c1 := repo.Commit("first", map[string]string{"fabric/fabric.yaml": "v: 1\n", "README": "x"})
	dir := filepath.Join(t.TempDir(), "checkout")
	g, err := NewGit(GitOptions{URL: repo.Dir, Dir: dir, Paths: []string{"fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	s1 := update(t, g)
	if s1.Commit != c1 || s1.Revision != c1 || s1.Root != dir {
		t.Fatalf("snapshot %+v, want commit %s", s1, c1)
	}
	if want := filepath.Join(dir, "fabric"); len(s1.Paths) != 1 || s1.Paths[0] != want {
		t.Fatalf("paths %v, want [%s]", s1.Paths, want)
	}
	if got := read(t, filepath.Join(dir, "fabric", "fabric.yaml")); got != "v: 1\n" {
		t.Fatalf("checked out %q", got)
	}
	if again := update(t, g); again.Commit != c1 {
		t.Fatalf("no new commit, but the commit changed to %s", again.Commit)
	}
	c2 := repo.Commit("second", map[string]string{"fabric/fabric.yaml": "v: 2\n"})
	s2 := update(t, g)
	if s2.Commit != c2 {
		t.Fatalf("after a new commit: %s, want %s", s2.Commit, c2)
	}
	if got := read(t, filepath.Join(dir, "fabric", "fabric.yaml")); got != "v: 2\n" {
		t.Fatalf("checked out %q after the new commit", got)
	}

	// A restarted agent reuses the working copy.
	g2, err := NewGit(GitOptions{URL: repo.Dir, Dir: dir, Paths: []string{"fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := update(t, g2); s.Commit != c2 {
		t.Fatalf("reopened: %s, want %s", s.Commit, c2)
	}
}

func TestGitOtherBranchAndTag(t *testing.T) {
	repo := gittest.New(t)
	mainCommit := repo.Commit("main", map[string]string{"f.yaml": "main\n"})
	repo.Tag("v1")
	repo.Branch("staging")
	staging := repo.Commit("staging", map[string]string{"f.yaml": "staging\n"})
	for _, tc := range []struct {
		name        string
		branch, tag string
		want        string
		content     string
	}{
		{"default branch main", "", "", mainCommit, "main\n"},
		{"branch", "staging", "", staging, "staging\n"},
		{"annotated tag peeled to its commit", "", "v1", mainCommit, "main\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "wc")
			g, err := NewGit(GitOptions{URL: repo.Dir, Dir: dir, Branch: tc.branch, Tag: tc.tag})
			if err != nil {
				t.Fatal(err)
			}
			s := update(t, g)
			if s.Commit != tc.want {
				t.Fatalf("commit %s, want %s", s.Commit, tc.want)
			}
			if got := read(t, filepath.Join(dir, "f.yaml")); got != tc.content {
				t.Fatalf("content %q, want %q", got, tc.content)
			}
		})
	}
}

func TestGitWorkingCopyForAnotherURLIsReplaced(t *testing.T) {
	a, b := gittest.New(t), gittest.New(t)
	a.Commit("a", map[string]string{"f.yaml": "a\n"})
	cb := b.Commit("b", map[string]string{"f.yaml": "b\n"})
	dir := filepath.Join(t.TempDir(), "wc")
	ga, _ := NewGit(GitOptions{URL: a.Dir, Dir: dir})
	update(t, ga)
	gb, _ := NewGit(GitOptions{URL: b.Dir, Dir: dir})
	if s := update(t, gb); s.Commit != cb || read(t, filepath.Join(dir, "f.yaml")) != "b\n" {
		t.Fatalf("working copy still follows the old URL: %+v", s)
	}
}

func TestGitErrorsNeverShowSecrets(t *testing.T) {
	for _, tc := range []struct {
		name, url, token, secret string
	}{
		{"token", "https://127.0.0.1:1/org/fabric.git", "ghp_TOKENVALUE123", "ghp_TOKENVALUE123"},
		{"password in URL", "https://user:hunter2pass@127.0.0.1:1/org/fabric.git", "", "hunter2pass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGit(GitOptions{URL: tc.url, Dir: filepath.Join(t.TempDir(), "wc"), Auth: GitAuth{Token: tc.token}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = g.Update(context.Background())
			if err == nil {
				t.Fatal("fetch from a closed port succeeded")
			}
			for _, s := range []string{err.Error(), g.String(), g.opt.Auth.String()} {
				if strings.Contains(s, tc.secret) {
					t.Fatalf("secret shown: %s", s)
				}
			}
			if !strings.Contains(err.Error(), "127.0.0.1:1") {
				t.Fatalf("error does not name the repository: %v", err)
			}
		})
	}
}

func writeKey(t *testing.T) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := xssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGitAuthSettings(t *testing.T) {
	key := writeKey(t)
	missing := filepath.Join(t.TempDir(), "no_known_hosts")
	for _, tc := range []struct {
		name    string
		opt     GitOptions
		wantErr string
	}{
		{"no URL", GitOptions{Dir: "x"}, "no repository URL"},
		{"branch and tag", GitOptions{URL: "u", Dir: "x", Branch: "a", Tag: "b"}, "not both"},
		{"absolute path", GitOptions{URL: "u", Dir: "x", Paths: []string{"/etc"}}, "relative"},
		{"escaping path", GitOptions{URL: "u", Dir: "x", Paths: []string{"../x"}}, "relative"},
		{"token over ssh", GitOptions{URL: "git@github.com:org/fabric.git", Dir: "x", Auth: GitAuth{Token: "t"}}, "SSH URL"},
		{"token and key", GitOptions{URL: "u", Dir: "x", Auth: GitAuth{Token: "t", SSHKeyFile: key}}, "not both"},
		{"key file missing", GitOptions{URL: "ssh://git@h/r", Dir: "x", Auth: GitAuth{SSHKeyFile: key + ".nope"}}, "SSH key"},
		{"known_hosts missing", GitOptions{URL: "ssh://git@h/r", Dir: "x", Auth: GitAuth{SSHKeyFile: key, KnownHosts: []string{missing}}}, "known_hosts"},
		{"insecure host key is explicit", GitOptions{URL: "ssh://git@h/r", Dir: "x", Auth: GitAuth{SSHKeyFile: key, InsecureIgnoreHostKey: true}}, ""},
		{"https token", GitOptions{URL: "https://h/r", Dir: "x", Auth: GitAuth{Token: "t"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewGit(tc.opt)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrConfig) {
				t.Fatalf("err %v, want ErrConfig containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestFolderRevisionFollowsContent(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.yaml"), []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := Folder{Paths: []string{dir}}
	r1 := update(t, f).Revision
	if !strings.HasPrefix(r1, "sha256:") {
		t.Fatalf("revision %q", r1)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := update(t, f).Revision; r != r1 {
		t.Fatal("a non-intent file changed the revision")
	}
	if err := os.WriteFile(filepath.Join(dir, "fabric.yaml"), []byte("a: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := update(t, f).Revision; r == r1 {
		t.Fatal("an intent edit did not change the revision")
	}
	if _, err := (Folder{Paths: []string{filepath.Join(dir, "missing")}}).Update(context.Background()); err == nil {
		t.Fatal("a missing folder gave no error")
	}
}

func TestFolderInGitRecordsCommit(t *testing.T) {
	repo := gittest.New(t)
	c := repo.Commit("x", map[string]string{"fabric.yaml": "a: 1\n"})
	if s := update(t, Folder{Paths: []string{repo.Dir}}); s.Commit != c {
		t.Fatalf("commit %q, want %s", s.Commit, c)
	}
}

// TestGitURLPasswordStaysInMemory: a password written in the repository
// URL authenticates the fetch (git's own HTTP server checks it), but the
// working copy's .git/config records the URL without it, no file of the
// working copy holds it, and neither errors nor String show it. A working
// copy an older version made with the password in its config is replaced.
func TestGitURLPasswordStaysInMemory(t *testing.T) {
	const password = "Git-Pa55word!in-the-url"
	repo := gittest.New(t)
	c1 := repo.Commit("first", map[string]string{"fabric/fabric.yaml": "v: 1\n"})
	srv := githttptest.Serve(t, repo.Dir, "netops", password)
	dir := filepath.Join(t.TempDir(), "git")

	// An old working copy that stored the password.
	old, err := NewGit(GitOptions{URL: repo.Dir, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	update(t, old)
	cfgPath := filepath.Join(dir, ".git", "config")
	oldCfg := strings.ReplaceAll(read(t, cfgPath), repo.Dir, srv.URL)
	if err := os.WriteFile(cfgPath, []byte(oldCfg), 0o644); err != nil {
		t.Fatal(err)
	}

	g, err := NewGit(GitOptions{URL: srv.URL, Dir: dir, Paths: []string{"fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := update(t, g); s.Commit != c1 {
		t.Fatalf("commit %s, want %s", s.Commit, c1)
	}
	if srv.Authorized.Load() == 0 {
		t.Fatal("the server saw no authenticated request")
	}
	if cfg := read(t, cfgPath); strings.Contains(cfg, password) || !strings.Contains(cfg, strings.Replace(srv.Plain, "http://", "http://netops@", 1)) {
		t.Fatalf(".git/config:\n%s", cfg)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(path); strings.Contains(string(data), password) {
			t.Errorf("%s holds the password", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(g.String(), password) || !strings.Contains(g.String(), "netops:xxxxx@") {
		t.Fatalf("String: %s", g.String())
	}

	// A wrong password is refused, and the error shows neither.
	badURL, _ := url.Parse(srv.URL)
	badURL.User = url.UserPassword("netops", "wrong-"+password)
	bad := badURL.String()
	g2, err := NewGit(GitOptions{URL: bad, Dir: filepath.Join(t.TempDir(), "git")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g2.Update(context.Background())
	if err == nil || strings.Contains(err.Error(), password) || srv.Refused.Load() == 0 {
		t.Fatalf("a wrong password: %v (refused %d)", err, srv.Refused.Load())
	}

	for _, tc := range []struct {
		name string
		opt  GitOptions
		want string
	}{
		{"password and token", GitOptions{URL: srv.URL, Dir: "x", Auth: GitAuth{Token: "tok"}}, "a token is set too"},
		{"password in an SSH URL", GitOptions{URL: "ssh://git:" + password + "@git.example.com/fabric.git", Dir: "x"}, "use an SSH key"},
	} {
		_, err := NewGit(tc.opt)
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), password) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
