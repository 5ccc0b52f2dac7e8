package intentsrc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocefab/rocefab/agent/engine"
)

// Snapshot is one version of the intent.
type Snapshot struct {
	// Paths are the intent files and folders to load.
	Paths []string
	// Root is the repository's working copy (git), for naming files
	// relative to it; empty for a folder.
	Root string
	// Commit is the git commit, empty for a folder outside git.
	Commit string
	// Revision identifies the version: the commit for git, a digest of the
	// intent files for a folder (so uncommitted edits count as a change).
	Revision string
}

// Short is a short form of the revision for messages.
func (s Snapshot) Short() string {
	r := strings.TrimPrefix(s.Revision, "sha256:")
	if len(r) > 12 {
		return r[:12]
	}
	return r
}

// Source yields the current intent.
type Source interface {
	// Update fetches (git) or re-reads (folder) and returns the current
	// version. It may be called again after an error.
	Update(ctx context.Context) (Snapshot, error)
	// String describes the source without secrets, for logs and status.
	String() string
}

// Folder is intent in local files or folders.
type Folder struct {
	Paths []string
}

func (f Folder) String() string { return "folder " + strings.Join(f.Paths, ", ") }

// Update digests the intent files and reads the git commit they are in, if
// any.
func (f Folder) Update(context.Context) (Snapshot, error) {
	if len(f.Paths) == 0 {
		return Snapshot{}, fmt.Errorf("no intent path configured")
	}
	digest, err := Digest(f.Paths)
	if err != nil {
		return Snapshot{}, err
	}
	ref := engine.IntentRefFor("", f.Paths)
	return Snapshot{Paths: f.Paths, Commit: ref.Commit, Revision: digest}, nil
}

// Digest is a sha256 over the names and contents of the intent files
// (*.yaml and *.yml below each folder, as intent.Load reads them).
func Digest(paths []string) (string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("intent path: %w", err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("intent path: %w", err)
		}
	}
	sort.Strings(files)
	h := sha256.New()
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("intent file: %w", err)
		}
		fmt.Fprintf(h, "%s\x00", name)
		_, err = io.Copy(h, fh)
		fh.Close()
		if err != nil {
			return "", fmt.Errorf("intent file %s: %w", name, err)
		}
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
