// Package safefile writes files whose names come from the intent or a run
// (device names, run IDs, intent file names) into one output directory and
// nowhere else. A name must be local path elements that are safe on their
// own, and every write goes through an os.Root, so neither "..", an
// absolute name, nor a link planted in the directory can lead it out.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// ErrUnsafe is wrapped by every refusal of a name.
var ErrUnsafe = errors.New("unsafe file name")

// Name checks that name is one path element rocefab may create: not
// empty, not "." or "..", no separator, no control or invisible
// characters, at most 255 bytes.
func Name(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("%w: %q", ErrUnsafe, name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("%w: %q holds a path separator", ErrUnsafe, name)
	case len(name) > 255:
		return fmt.Errorf("%w: %q is longer than 255 bytes", ErrUnsafe, name)
	}
	for _, c := range name {
		if unicode.IsControl(c) || unicode.Is(unicode.Cf, c) || c == unicode.ReplacementChar {
			return fmt.Errorf("%w: %q holds the character U+%04X", ErrUnsafe, name, c)
		}
	}
	return nil
}

// Rel checks a relative path of safe elements ("runs/ID/report.json").
func Rel(rel string) error {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return fmt.Errorf("%w: %q is not a path inside the output directory", ErrUnsafe, rel)
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if err := Name(part); err != nil {
			return err
		}
	}
	return nil
}

// Join is dir/rel once rel is checked, for code that hands the path to
// another library. Prefer WriteFile, which also guards against links.
func Join(dir, rel string) (string, error) {
	if err := Rel(rel); err != nil {
		return "", err
	}
	return filepath.Join(dir, rel), nil
}

// Dir is an output directory, held open.
type Dir struct {
	root *os.Root
	path string
}

// Open makes dir (and its parents) with perm if missing, and opens it.
func Open(dir string, perm fs.FileMode) (*Dir, error) {
	if err := os.MkdirAll(dir, perm); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Dir{root: root, path: dir}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// Path is the directory as given to Open.
func (d *Dir) Path() string { return d.path }

// WriteFile writes data to rel inside the directory, making its parent
// directories (mode 0700 when perm is private, else 0755). The file is
// written beside its final name and renamed into place, so a reader never
// sees half a file and a crash leaves the old one.
func (d *Dir) WriteFile(rel string, data []byte, perm fs.FileMode) error {
	if err := Rel(rel); err != nil {
		return err
	}
	rel = filepath.Clean(rel)
	if parent := filepath.Dir(rel); parent != "." {
		dirPerm := fs.FileMode(0o755)
		if perm&0o077 == 0 {
			dirPerm = 0o700
		}
		if err := d.root.MkdirAll(parent, dirPerm); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(d.path, parent), err)
		}
	}
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	tmp := rel + ".tmp-" + hex.EncodeToString(suffix[:])
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(d.path, rel), err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // the umask does not widen a private file, nor narrow a public one
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, rel)
	}
	if err != nil {
		_ = d.root.Remove(tmp)
		return fmt.Errorf("%s: %w", filepath.Join(d.path, rel), err)
	}
	return nil
}

// RemoveAll removes rel and what it holds, inside the directory only.
func (d *Dir) RemoveAll(rel string) error {
	if err := Rel(rel); err != nil {
		return err
	}
	return d.root.RemoveAll(rel)
}

// WriteFile writes one file into dir: Open, WriteFile and Close.
func WriteFile(dir, rel string, data []byte, perm fs.FileMode) error {
	dirPerm := fs.FileMode(0o755)
	if perm&0o077 == 0 {
		dirPerm = 0o700
	}
	d, err := Open(dir, dirPerm)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFile(rel, data, perm)
}

// RemoveAll removes rel inside dir; a missing dir is nothing to remove.
func RemoveAll(dir, rel string) error {
	if err := Rel(rel); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer root.Close()
	return root.RemoveAll(rel)
}
