package netlink

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rocefab/rocefab/drivers/netlink/dcbnl"
)

// tree writes a fake sysfs or configfs tree: name → content ("" + trailing
// slash makes a directory).
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readTree(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// faultFS injects errors into chosen operations, the way a read-only or
// permission-denied node answers: "write:<name>" or "read:<name>" → errno.
type faultFS struct {
	FS
	mu     sync.Mutex
	faults map[string]error
	// ignoreWrites: writes succeed but change nothing (read-back check).
	ignoreWrites map[string]bool
	writes       []string
}

func (f *faultFS) ReadFile(name string) ([]byte, error) {
	if err := f.fault("read:" + name); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f.FS.ReadFile(name)
}

func (f *faultFS) WriteFile(name string, data []byte) error {
	f.mu.Lock()
	f.writes = append(f.writes, name+"="+strings.TrimSpace(string(data)))
	ignore := f.ignoreWrites[name]
	f.mu.Unlock()
	if err := f.fault("write:" + name); err != nil {
		return &fs.PathError{Op: "write", Path: name, Err: err}
	}
	if ignore {
		return nil
	}
	return f.FS.WriteFile(name, data)
}

func (f *faultFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return f.FS.(interface {
		ReadDir(string) ([]fs.DirEntry, error)
	}).ReadDir(name)
}

func (f *faultFS) fault(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.faults[key]
}

// configfsFake behaves like configfs rdma_cm: mkdir of rdma_cm/<dev>
// makes the port attribute files appear, with the kernel's defaults.
type configfsFake struct {
	FS
	root  string
	ports int
	// noDevice: mkdir fails as for an unknown RDMA device.
	noDevice bool
}

func (c *configfsFake) Mkdir(name string) error {
	if c.noDevice {
		return &fs.PathError{Op: "mkdir", Path: name, Err: syscall.ENODEV}
	}
	if err := c.FS.Mkdir(name); err != nil {
		return err
	}
	if path.Dir(name) != "rdma_cm" {
		return nil
	}
	for p := 1; p <= c.ports; p++ {
		dir := filepath.Join(c.root, filepath.FromSlash(name), "ports", string(rune('0'+p)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		_ = os.WriteFile(filepath.Join(dir, "default_roce_mode"), []byte("IB/RoCE v1\n"), 0o644)
		_ = os.WriteFile(filepath.Join(dir, "default_roce_tos"), []byte("0\n"), 0o644)
	}
	return nil
}

func dcbnlPFC(en uint8) dcbnl.IEEE { return dcbnl.IEEE{PFC: &dcbnl.PFC{Enable: en}} }
