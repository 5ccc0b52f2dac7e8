package drivers

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestFileCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(path, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	parses := 0
	parse := func(p string) (any, error) {
		parses++
		b, err := os.ReadFile(p)
		return string(b), err
	}
	var c FileCache
	for i := 0; i < 3; i++ {
		if v, err := c.Load("lines", path, parse); err != nil || v != "one\n" {
			t.Fatalf("load %d: %v %v", i, v, err)
		}
	}
	if parses != 1 {
		t.Fatalf("parsed %d times, want once", parses)
	}
	if _, err := c.Load("other", path, parse); err != nil || parses != 2 {
		t.Fatalf("another kind of one file is parsed on its own: %d parses, %v", parses, err)
	}

	// An appended host key is seen at once.
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Load("lines", path, parse); v != "one\ntwo\n" || parses != 3 {
		t.Fatalf("after a change: %q, %d parses", v, parses)
	}
	// So is an edit that keeps the size and the modification time.
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("one\nTWO\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Load("lines", path, parse); v != "one\nTWO\n" || parses != 4 {
		t.Fatalf("after a same-size edit: %q, %d parses", v, parses)
	}

	// A missing file is never cached: the parser reports it every time.
	missing := filepath.Join(t.TempDir(), "absent")
	for i := 0; i < 2; i++ {
		if _, err := c.Load("lines", missing, parse); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("missing file: %v", err)
		}
	}
	if parses != 6 {
		t.Fatalf("%d parses", parses)
	}

	// A nil cache parses every time.
	var none *FileCache
	if v, err := none.Load("lines", path, parse); err != nil || v != "one\nTWO\n" || parses != 7 {
		t.Fatalf("nil cache: %v %v %d", v, err, parses)
	}
}

func TestFileCacheConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, []byte("pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	var c FileCache
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Load("pool", path, func(p string) (any, error) { return os.ReadFile(p) })
			if err != nil || string(v.([]byte)) != "pem" {
				t.Errorf("%v %v", v, err)
			}
		}()
	}
	wg.Wait()
}
