package intentsrc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/intent"
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
	// Limits bound what one read takes (zero fields: the loader's
	// defaults), so a link to /dev/zero or a huge file is refused at once.
	Limits intent.Limits
}

func (f Folder) String() string { return "folder " + strings.Join(f.Paths, ", ") }

// Update digests the intent files and reads the git commit they are in, if
// any. An intent file the loader would refuse (not a regular file, a link
// out of its folder, over a size limit) is an error wrapping
// intent.ErrInput.
func (f Folder) Update(context.Context) (Snapshot, error) {
	if len(f.Paths) == 0 {
		return Snapshot{}, fmt.Errorf("no intent path configured")
	}
	digest, err := DigestWith(f.Limits, f.Paths)
	if err != nil {
		return Snapshot{}, err
	}
	ref := engine.IntentRefFor("", f.Paths)
	return Snapshot{Paths: f.Paths, Commit: ref.Commit, Revision: digest}, nil
}

// Digest is a sha256 over the names and contents of the intent files, the
// files intent.Load reads, within the default limits.
func Digest(paths []string) (string, error) { return DigestWith(intent.Limits{}, paths) }

// DigestWith is Digest within lim: every file is read the way the loader
// reads it, and no more bytes than the loader would take.
func DigestWith(lim intent.Limits, paths []string) (string, error) {
	def := intent.DefaultLimits()
	if lim.FileBytes <= 0 {
		lim.FileBytes = def.FileBytes
	}
	if lim.FabricBytes <= 0 {
		lim.FabricBytes = def.FabricBytes
	}
	files, err := intent.InputFiles(paths...)
	if err != nil {
		return "", fmt.Errorf("intent path: %w", err)
	}
	sort.Strings(files)
	h := sha256.New()
	var total int64
	for _, name := range files {
		data, err := intent.ReadInput(name, min(lim.FileBytes, lim.FabricBytes-total))
		if err != nil {
			if errors.Is(err, intent.ErrLimit) && total > 0 {
				return "", fmt.Errorf("%w: the intent files together are more than %d bytes (--intent-max-size)", intent.ErrLimit, lim.FabricBytes)
			}
			return "", fmt.Errorf("intent file: %w", err)
		}
		total += int64(len(data))
		fmt.Fprintf(h, "%s\x00", name)
		h.Write(data)
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
