package netlink

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Default roots of the kernel attribute filesystems.
const (
	DefaultSysfsRoot    = "/sys"
	DefaultConfigfsRoot = "/sys/kernel/config"
)

// FS reads and writes kernel attribute files (sysfs, configfs) under a
// root, by slash-separated names relative to it. Tests substitute a fake
// tree or a fault-injecting wrapper.
type FS interface {
	ReadFile(name string) ([]byte, error)
	// WriteFile writes an existing attribute and never creates one: a
	// missing node must surface as fs.ErrNotExist, not become a file.
	WriteFile(name string, data []byte) error
	// Mkdir creates a directory (a configfs group).
	Mkdir(name string) error
	Stat(name string) (fs.FileInfo, error)
}

// DirFS is FS over the operating system, rooted at root.
func DirFS(root string) FS { return dirFS{root: root} }

type dirFS struct{ root string }

func (d dirFS) path(name string) string { return filepath.Join(d.root, filepath.FromSlash(name)) }

func (d dirFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(d.path(name)) }

func (d dirFS) WriteFile(name string, data []byte) error {
	f, err := os.OpenFile(d.path(name), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}

func (d dirFS) Mkdir(name string) error { return os.Mkdir(d.path(name), 0o755) }

func (d dirFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(d.path(name)) }

// ReadDir lists a directory; readers use it when the FS provides it.
func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(d.path(name)) }
