package sonic

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/internal/shareddir"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// corpusDir is ../shared/corpus, or ROCEFAB_CORPUS_DIR.
func corpusDir() string {
	return shareddir.Path("ROCEFAB_CORPUS_DIR", "corpus")
}

// corpusFiles are the SONiC items of ../shared/corpus (ROCEFAB_CORPUS_DIR
// overrides): real config_db JSON published by others, each with a .src
// file naming its source. Every file there is walked, so one added later
// is covered without a code change. The test skips where the corpus is
// absent, and fails under ROCEFAB_REQUIRE_NETNS=1.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(corpusDir(), "sonic")
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatalf("SONiC corpus %s: %v (ROCEFAB_REQUIRE_NETNS=1: the corpus must be read)", dir, err)
		}
		t.Skipf("SONiC corpus not found in %s (set ROCEFAB_CORPUS_DIR): %v", dir, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".src") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no SONiC corpus items in %s", dir)
	}
	return out
}

// TestCorpus parses every SONiC corpus item and checks what a parser must
// get right (corpus README): the whole config parses, one path per
// config_db field (no two fields merged), nothing outside rocefab's scope is
// claimed, and with rocefab's rendered config merged into it as a push
// would write it, the plan shows no changes.
func TestCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := Parse(raw)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			var doc map[string]map[string]map[string]json.RawMessage
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			fields := 0
			var ports []string
			for table, entries := range doc {
				for key, f := range entries {
					fields += max(len(f), 1)
					if table == "PORT_QOS_MAP" && PortPattern.MatchString(key) {
						ports = append(ports, key)
					}
				}
			}
			if len(cfg.Paths) != fields {
				t.Fatalf("%d fields parsed into %d paths: two fields share a path", fields, len(cfg.Paths))
			}

			// A leaf with the item's RoCE ports (those it gives a QoS map).
			slices.SortFunc(ports, func(a, b string) int { return portNumber(a) - portNumber(b) })
			if len(ports) == 0 {
				t.Skip("the item configures no port")
			}
			sw := basicSwitch(t)
			sw.Ports = nil
			for _, p := range ports {
				sw.Ports = append(sw.Ports, intent.Port{Name: p, Mode: "trunk"})
			}
			running := cfg.Clone()
			if !strings.Contains(string(raw), `"PORT":`) {
				// A QoS-only item: the ports it configures exist.
				for i, p := range ports {
					running.Paths[Key("PORT", p, "lanes")] = devcfg.String(fmt.Sprintf("%d,%d,%d,%d", 4*i, 4*i+1, 4*i+2, 4*i+3))
					running.Paths[Key("PORT", p, "speed")] = devcfg.String("100000")
				}
			}
			desired := mustRender(t, sw)
			owned := Normalise(running.Filter(desired.Owned))
			for p := range owned.Paths {
				table, key, _, _ := SplitKey(p)
				if (table == "SCHEDULER" || table == "WRED_PROFILE" || strings.HasSuffix(table, "_MAP") && table != "PORT_QOS_MAP") && !strings.HasPrefix(key, "ROCEFAB") {
					t.Errorf("the stock object %s|%s is claimed as rocefab's", table, key)
				}
			}
			if err := Fit(sw, desired, running); err != nil {
				t.Fatal(err)
			}
			merged := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: running.Paths.Clone()}
			for p := range merged.Paths {
				if _, keep := desired.Paths[p]; !keep && desired.Owned.OwnsPath(p) {
					delete(merged.Paths, p)
				}
			}
			for p, v := range desired.Paths {
				merged.Paths[p] = v
			}
			again := mustRender(t, sw)
			if err := Fit(sw, again, merged); err != nil {
				t.Fatal(err)
			}
			plat := Attributes().Platform
			if changes := devcfg.Diff(again, Normalise(merged.Filter(again.Owned)), plat.Syntax, nil); len(changes) != 0 {
				t.Fatalf("the merged config plans %d change(s), first %s %s", len(changes), changes[0].Action.Symbol(), changes[0].Where())
			}
			if c := devcfg.ConflictsExcept(merged, again.Singletons, nil); len(c) != 0 {
				t.Fatalf("conflicts after the merge: %+v", c)
			}
			t.Run("yanglint", func(t *testing.T) {
				schema, _ := loadOracle(t)
				errs, err := schema.Validate(applied(t, running, desired))
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range errs {
					t.Error(e)
				}
			})
		})
	}
}
