package corpus

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/internal/shareddir"
)

// Dir is the corpus folder, which may not exist.
func Dir() string {
	return shareddir.Path("ROCEFAB_CORPUS_DIR", "corpus")
}

// required reports whether CI's strict flag is set: then a missing corpus
// fails instead of skipping.
func required() bool { return os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" }

// Require returns the corpus folder, or skips the test with a message when
// it is absent (a checkout without ../shared); under
// ROCEFAB_REQUIRE_NETNS=1 it fails instead.
func Require(tb testing.TB) string {
	tb.Helper()
	dir := Dir()
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		if required() {
			tb.Fatalf("the shared corpus is missing at %s (set ROCEFAB_CORPUS_DIR): %v", dir, err)
		}
		tb.Skipf("the shared corpus is not at %s (set ROCEFAB_CORPUS_DIR): skipping the real-output tests", dir)
	}
	return dir
}

// Item is one corpus entry: a file or a directory tree in a kind folder
// ("perftest", "eos", "rdmasys", ...), with the text of its .src file.
type Item struct {
	Kind   string
	Name   string // file or directory name
	Path   string
	Source string
}

// Items lists every entry of every kind folder, so an entry added later is
// covered without a code change. A .src file describes its sibling and is
// no entry itself; an entry without one fails the test (every corpus
// entry names its source).
func Items(tb testing.TB) []Item {
	tb.Helper()
	dir := Require(tb)
	kinds, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []Item
	for _, k := range kinds {
		if !k.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, k.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".src") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, k.Name(), e.Name())
			src, err := os.ReadFile(p + ".src")
			if err != nil {
				tb.Errorf("corpus entry %s/%s has no .src file naming its source", k.Name(), e.Name())
			}
			out = append(out, Item{Kind: k.Name(), Name: e.Name(), Path: p, Source: string(src)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind+"/"+out[i].Name < out[j].Kind+"/"+out[j].Name })
	if len(out) == 0 {
		tb.Fatalf("the corpus at %s holds no entries", dir)
	}
	return out
}

// Seed adds every file of the kinds (directory entries walked through) to
// a fuzz target whose input is one []byte, read from the shared corpus
// when the target runs (never copied into testdata, which keeps our own
// small seeds). Without the corpus it adds nothing, except under
// ROCEFAB_REQUIRE_NETNS=1, where that fails.
func Seed(f *testing.F, kinds ...string) {
	f.Helper()
	SeedWith(f, func(b []byte) { f.Add(b) }, kinds...)
}

// SeedWith is Seed for fuzz targets of another shape: add turns one
// corpus file into a seed (f.Add(string(b)), or with extra arguments).
func SeedWith(f *testing.F, add func([]byte), kinds ...string) {
	f.Helper()
	dir := Dir()
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		if required() {
			f.Fatalf("the shared corpus is missing at %s: %v", dir, err)
		}
		f.Logf("the shared corpus is not at %s: fuzzing with the committed seeds only", dir)
		return
	}
	n := 0
	for _, kind := range kinds {
		_ = filepath.WalkDir(filepath.Join(dir, kind), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".src") {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil {
				add(b)
				n++
			}
			return nil
		})
	}
	if n == 0 && required() {
		f.Fatalf("the shared corpus has no %v entries to seed", kinds)
	}
}
