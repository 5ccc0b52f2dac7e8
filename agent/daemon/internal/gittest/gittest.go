package gittest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

var installOnce sync.Once

// ServeFilesInProcess makes go-git answer local paths and file:// URLs
// with its own upload-pack instead of running the git binary, so tests do
// not need git installed. It changes go-git's protocol table for the whole
// test binary, which is why only tests call it.
func ServeFilesInProcess() {
	installOnce.Do(func() { client.InstallProtocol("file", server.NewServer(workTreeLoader{})) })
}

// workTreeLoader serves a repository with a work tree from its .git folder
// (go-git's own loader expects bare repositories).
type workTreeLoader struct{}

func (workTreeLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	dir := ep.Path
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		dir = filepath.Join(dir, ".git")
	} else if _, err := os.Stat(filepath.Join(dir, "config")); err != nil {
		return nil, transport.ErrRepositoryNotFound
	}
	return filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault()), nil
}

// Repo is a repository in a temporary folder.
type Repo struct {
	t    testing.TB
	Dir  string
	repo *git.Repository
	when time.Time
}

// New makes an empty repository whose first commit goes to branch main.
func New(t testing.TB) *Repo {
	t.Helper()
	ServeFilesInProcess()
	dir := t.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	return &Repo{t: t, Dir: dir, repo: r, when: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Commit writes files (path relative to the root -> content; empty content
// deletes the file), commits them and returns the commit SHA.
func (r *Repo) Commit(msg string, files map[string]string) string {
	r.t.Helper()
	wt, err := r.repo.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(r.Dir, name)
		if content == "" {
			if _, err := wt.Remove(name); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			r.t.Fatal(err)
		}
	}
	r.when = r.when.Add(time.Minute)
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "Test", Email: "test@example.com", When: r.when}, AllowEmptyCommits: true})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

// Tag makes an annotated tag at HEAD and returns the tag object's hash.
func (r *Repo) Tag(name string) string {
	r.t.Helper()
	head, err := r.repo.Head()
	if err != nil {
		r.t.Fatal(err)
	}
	ref, err := r.repo.CreateTag(name, head.Hash(), &git.CreateTagOptions{Message: name,
		Tagger: &object.Signature{Name: "Test", Email: "test@example.com", When: r.when}})
	if err != nil {
		r.t.Fatal(err)
	}
	return ref.Hash().String()
}

// Branch creates a branch at HEAD and checks it out.
func (r *Repo) Branch(name string) {
	r.t.Helper()
	wt, err := r.repo.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(name), Create: true}); err != nil {
		r.t.Fatal(err)
	}
}

// ResetTo moves the checked-out branch back to commit (a force-push of
// an earlier commit, as after `git reset --hard` and `git push -f`).
func (r *Repo) ResetTo(commit string) {
	r.t.Helper()
	wt, err := r.repo.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := wt.Reset(&git.ResetOptions{Commit: plumbing.NewHash(commit), Mode: git.HardReset}); err != nil {
		r.t.Fatal(err)
	}
}
