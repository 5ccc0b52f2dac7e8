package openconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/internal/golden"
)

// seedVariants are the (small) golden variants the corpus is made from.
var seedVariants = []string{"nxos-fallback", "sonic-fallback", "access-lag"}

// FuzzParse: Parse never panics, and what it accepts survives
// Encode → Parse and Normalise unchanged in shape.
func FuzzParse(f *testing.F) {
	for _, v := range seedVariants {
		data, err := os.ReadFile(filepath.Join("testdata", "variants", v+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"/a/b[k=x\\]y]/c": 1e3, "cli:/x \\/ y": "z"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := Parse(raw)
		if err != nil {
			return
		}
		enc, err := Encode(cfg)
		if err != nil {
			t.Fatalf("Encode of a parsed config failed: %v", err)
		}
		again, err := Parse(enc)
		if err != nil {
			t.Fatalf("Parse of Encode output failed: %v\n%s", err, enc)
		}
		if diff := cmp.Diff(cfg.Paths, again.Paths); diff != "" {
			t.Fatalf("Encode → Parse changed the paths (-first +second):\n%s", diff)
		}
		if n := Normalise(cfg); len(n.Paths) != len(cfg.Paths) {
			t.Fatalf("Normalise dropped paths: %d → %d", len(cfg.Paths), len(n.Paths))
		}
	})
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzParse under -update.
func TestWriteFuzzSeeds(t *testing.T) {
	if !golden.Updating() {
		t.Skip("runs under -update")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzParse")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, v := range seedVariants {
		data, err := Encode(mustRender(t, variantSwitch(t, v)))
		if err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("golden-%d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFuzzSeedsCommitted(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	if len(seeds) < len(seedVariants) {
		t.Fatalf("testdata/fuzz/FuzzParse has %d seeds, want %d (go test -update)", len(seeds), len(seedVariants))
	}
}
