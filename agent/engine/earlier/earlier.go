// Package earlier tells what earlier revisions of an intent repository
// rendered for each device: rocefab's own configuration as every runner
// with the repository knows it, whatever its state directory holds. A CI
// runner with a fresh --state-dir, an agent and a laptop all find the same
// answer in the same git history.
package earlier

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/validators/lint"
)

// DefaultDepth is how many commits that changed the intent are rendered.
const DefaultDepth = 20

// Source renders the intent at earlier commits of its repository.
type Source struct {
	repo  *git.Repository
	root  string   // the work tree
	rel   []string // the intent paths, relative to root
	reg   *renderers.Registry
	depth int
	log   *zap.Logger

	mu      sync.Mutex
	head    plumbing.Hash
	revs    []plumbing.Hash             // newest first
	renders map[plumbing.Hash]*revision // by commit
	shallow bool
}

type revision struct {
	devices map[string]*devcfg.Config
}

// Open finds the git repository holding the intent paths. It returns nil
// (and no error) when they are not in one: there is no history to read.
func Open(paths []string, reg *renderers.Registry, depth int, log *zap.Logger) (*Source, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if depth <= 0 {
		depth = DefaultDepth
	}
	if log == nil {
		log = zap.NewNop()
	}
	abs, err := filepath.Abs(paths[0])
	if err != nil {
		return nil, err
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, nil // a bare repository: no intent files on disk
	}
	root := wt.Filesystem.Root()
	s := &Source{repo: repo, root: root, reg: reg, depth: depth, log: log.Named("earlier"), renders: map[plumbing.Hash]*revision{}}
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		r, err := filepath.Rel(root, a)
		if err != nil || strings.HasPrefix(r, "..") {
			return nil, fmt.Errorf("intent path %s is outside the repository at %s", p, root)
		}
		s.rel = append(s.rel, filepath.ToSlash(r))
	}
	return s, nil
}

// Earlier returns what the intent's revisions rendered for a device,
// newest first, from HEAD back through the commits that changed the intent
// (at most depth of them). Revisions that no longer validate, or that do
// not hold the device, are left out.
func (s *Source) Earlier(device string) []*devcfg.Config {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refresh(); err != nil {
		s.log.Warn("reading the intent's history", zap.Error(err))
		return nil
	}
	var out []*devcfg.Config
	for _, h := range s.revs {
		rev, ok := s.renders[h]
		if !ok {
			rev = s.render(h)
			s.renders[h] = rev
		}
		if c := rev.devices[device]; c != nil {
			out = append(out, c.Clone())
		}
	}
	return out
}

// Shallow reports whether the history ends at a shallow clone's boundary
// (CI checkouts often fetch one commit): earlier revisions are then
// missing.
func (s *Source) Shallow() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shallow
}

// refresh lists the commits to render when HEAD moved.
func (s *Source) refresh() error {
	ref, err := s.repo.Head()
	if err != nil {
		return err
	}
	if ref.Hash() == s.head && s.revs != nil {
		return nil
	}
	shallow, _ := s.repo.Storer.Shallow()
	s.shallow = len(shallow) > 0
	iter, err := s.repo.Log(&git.LogOptions{From: ref.Hash(), PathFilter: s.touches})
	if err != nil {
		return err
	}
	defer iter.Close()
	var revs []plumbing.Hash
	err = iter.ForEach(func(c *object.Commit) error {
		revs = append(revs, c.Hash)
		if len(revs) >= s.depth {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) && len(revs) == 0 {
		// A shallow history ends in a commit whose parent is absent.
		return err
	}
	s.head, s.revs = ref.Hash(), revs
	return nil
}

var errStop = errors.New("enough commits")

// touches reports whether a changed file is part of the intent.
func (s *Source) touches(path string) bool {
	for _, r := range s.rel {
		if r == "." || path == r || strings.HasPrefix(path, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

// render loads the intent as it was at commit h and renders every switch.
func (s *Source) render(h plumbing.Hash) *revision {
	rev := &revision{devices: map[string]*devcfg.Config{}}
	dir, err := os.MkdirTemp("", "rocefab-intent-")
	if err != nil {
		s.log.Warn("rendering an earlier intent", zap.Error(err))
		return rev
	}
	defer os.RemoveAll(dir)
	paths, err := s.checkout(h, dir)
	if err != nil || len(paths) == 0 {
		s.log.Debug("earlier intent not readable", zap.Stringer("commit", h), zap.Error(err))
		return rev
	}
	res, diags := lint.Validate(s.reg, paths...)
	if res == nil || diags.HasErrors() {
		s.log.Debug("earlier intent does not validate today", zap.Stringer("commit", h))
		return rev
	}
	for _, sw := range res.Switches {
		if c, err := s.reg.Render(sw); err == nil {
			c.Device, c.Platform = sw.Name, sw.Platform
			rev.devices[sw.Name] = c
		}
	}
	return rev
}

// checkout writes the intent files of commit h into dir and returns the
// paths to load, as the intent paths were given.
func (s *Source) checkout(h plumbing.Hash, dir string) ([]string, error) {
	c, err := s.repo.CommitObject(h)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range s.rel {
		dst := filepath.Join(dir, filepath.FromSlash(r))
		if r == "." {
			dst = dir
		}
		if f, err := tree.File(r); err == nil {
			if err := writeBlob(f, dst); err != nil {
				return nil, err
			}
			out = append(out, dst)
			continue
		}
		sub := tree
		if r != "." {
			if sub, err = tree.Tree(r); err != nil {
				continue // not there at that commit
			}
		}
		err := sub.Files().ForEach(func(f *object.File) error {
			return writeBlob(f, filepath.Join(dst, filepath.FromSlash(f.Name)))
		})
		if err != nil {
			return nil, err
		}
		out = append(out, dst)
	}
	return out, nil
}

// maxBlob bounds one file read from the history.
const maxBlob = 64 << 20

func writeBlob(f *object.File, dst string) error {
	if !f.Mode.IsFile() {
		return nil // symlinks and submodules are not intent files
	}
	if f.Size > maxBlob {
		return fmt.Errorf("%s: %d bytes, more than an intent file may hold", f.Name, f.Size)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	rd, err := f.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rd); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// Lazy opens the source on first use, and again on later uses while the
// repository is not there yet (an agent clones it after it starts).
func Lazy(paths func() []string, reg *renderers.Registry, depth int, log *zap.Logger) func(device string) []*devcfg.Config {
	var (
		mu  sync.Mutex
		src *Source
	)
	return func(device string) []*devcfg.Config {
		mu.Lock()
		if src == nil {
			s, err := Open(paths(), reg, depth, log)
			if err == nil {
				src = s
			}
		}
		s := src
		mu.Unlock()
		return s.Earlier(device)
	}
}
