package sonic

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/internal/golden"
)

// seedVariants are the golden variants the committed corpus is made from:
// the small ones, since the fuzzer minimises slowly on 50 KB inputs.
var seedVariants = []string{"access-lag", "two-ports"}

// FuzzParse: Parse never panics, and what it accepts survives
// Encode → Parse unchanged.
func FuzzParse(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.Seed(f, "sonic")
	for _, v := range seedVariants {
		data, err := os.ReadFile(filepath.Join("testdata", "variants", v+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"VLAN": {"Vlan100": {"members": ["Ethernet0"]}}, "PORTCHANNEL_MEMBER": {"PortChannel1|Eth1/1": {}}}`))
	// Real config_db items of the shared corpus, read in place (never
	// copied into the repository) where the checkout has it.
	if items, _ := filepath.Glob(filepath.Join(corpusDir(), "sonic", "*")); len(items) > 0 {
		for _, item := range items {
			if data, err := os.ReadFile(item); err == nil && !strings.HasSuffix(item, ".src") {
				f.Add(data)
			}
		}
	}
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
		Normalise(cfg)
	})
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzParse from the goldens
// under -update, so the committed corpus follows the renderer.
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
		leaves := flatLeaves(t, mustRender(t, variantSwitch(t, v)).Paths)
		for form, seed := range map[string][]byte{"golden": data, "leaves": leaves} {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(seed)))
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d", form, i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
