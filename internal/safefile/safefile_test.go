package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWritesStayInside: whatever the name and whatever links sit in the
// directory, nothing is written outside it.
func TestWritesStayInside(t *testing.T) {
	base := t.TempDir()
	out := filepath.Join(base, "out", "render")
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := Open(out, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	for _, name := range []string{
		"../../../ESCAPED-render.cfg", "../outside/x", "/etc/passwd", "", ".", "..", "a/../../b",
		`..\b`, "leaf\x00.cfg", "leaf\u202e.cfg", "leaf\n.cfg",
	} {
		if err := d.WriteFile(name, []byte("x"), 0o644); !errors.Is(err, ErrUnsafe) {
			t.Errorf("WriteFile(%q): %v, want ErrUnsafe", name, err)
		}
		if _, err := Join(out, name); !errors.Is(err, ErrUnsafe) {
			t.Errorf("Join(%q): %v", name, err)
		}
	}

	// A link planted in the directory cannot lead a write out of it: not
	// as a parent directory, and not as the file itself (it is replaced).
	if err := os.Symlink(outside, filepath.Join(out, "runs")); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("runs/report.json", []byte("x"), 0o600); err == nil {
		t.Error("wrote through a link to a directory outside")
	}
	target := filepath.Join(outside, "victim")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(out, "leaf1.cfg")); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("leaf1.cfg", []byte("config"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Fatalf("the file a link pointed at was overwritten: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(out, "leaf1.cfg")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("leaf1.cfg is not a regular file now: %v %v", fi, err)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("something was written outside: %v", entries)
	}
	if err := RemoveAll(out, ".."); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("RemoveAll(..): %v", err)
	}
}

// TestWriteFileModes: a private file is 0600 in a 0700 directory whatever
// the umask, and is replaced whole.
func TestWriteFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := WriteFile(dir, "runs/r1/report.json", []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, "runs/r1/report.json", []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		dir: 0o700, filepath.Join(dir, "runs"): 0o700, filepath.Join(dir, "runs", "r1", "report.json"): 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "runs", "r1", "report.json")); string(data) != "two" {
		t.Fatalf("content %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "runs", "r1")); len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}
