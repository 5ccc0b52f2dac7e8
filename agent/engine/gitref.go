package engine

import (
	"path/filepath"

	"github.com/go-git/go-git/v5"

	"github.com/rocefab/rocefab/agent/compliance"
)

// IntentRefFor records which intent a run used: the paths, and the git
// commit (and whether the work tree is dirty) when they live in a repository.
func IntentRefFor(fabric string, paths []string) compliance.IntentRef {
	ref := compliance.IntentRef{Fabric: fabric, Paths: paths}
	if len(paths) == 0 {
		return ref
	}
	abs, err := filepath.Abs(paths[0])
	if err != nil {
		return ref
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return ref
	}
	head, err := repo.Head()
	if err != nil {
		return ref
	}
	ref.Commit = head.Hash().String()
	if wt, err := repo.Worktree(); err == nil {
		if st, err := wt.Status(); err == nil {
			root := wt.Filesystem.Root()
			for file, s := range st {
				if s.Worktree == git.Unmodified && s.Staging == git.Unmodified {
					continue
				}
				if s.Worktree == git.Untracked && !under(filepath.Join(root, file), paths) {
					continue
				}
				if under(filepath.Join(root, file), paths) {
					ref.Dirty = true
					break
				}
			}
		}
	}
	return ref
}

// under reports whether file is one of paths or inside one of them.
func under(file string, paths []string) bool {
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(abs, file); err == nil && (rel == "." || !filepath.IsAbs(rel) && len(rel) > 0 && rel[0] != '.') {
			return true
		}
	}
	return false
}
