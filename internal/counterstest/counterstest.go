// Package counterstest holds the checks every show-command counter
// parser's tests share: fixtures, expected samples, refusals and the
// fuzz target's invariants.
package counterstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/internal/corpus"
)

// Parser reads one command's output; port is the port it asked about.
type Parser = func(out []byte, port string) ([]observe.Sample, error)

// Fixture reads testdata/counters/name.
func Fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "counters", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Got maps "port counter" to the value.
func Got(samples []observe.Sample) map[string]uint64 {
	out := map[string]uint64{}
	for _, s := range samples {
		out[s.Port+" "+s.Counter] = s.Value
	}
	return out
}

// Case is one fixture, the port asked about and the samples read.
type Case struct {
	Name, File, Port string
	Parse            Parser
	Want             map[string]uint64
}

// Parses checks each fixture reads exactly its samples, none twice.
func Parses(t *testing.T, cases []Case) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			samples, err := tc.Parse(Fixture(t, tc.File), tc.Port)
			if err != nil {
				t.Fatal(err)
			}
			g := Got(samples)
			if len(g) != len(samples) {
				t.Errorf("a counter is reported twice: %v", samples)
			}
			for k, v := range tc.Want {
				if gv, ok := g[k]; !ok || gv != v {
					t.Errorf("%s = %d (present %v), want %d", k, gv, ok, v)
				}
			}
			for k := range g {
				if _, ok := tc.Want[k]; !ok {
					t.Errorf("unexpected counter %s = %d", k, g[k])
				}
			}
		})
	}
}

// Refuses checks output that is not the command's JSON is an error, never
// zeros.
func Refuses(t *testing.T, parsers map[string]Parser) {
	for name, parse := range parsers {
		for _, out := range []string{"", "% Invalid command at '^' marker.", `{"unrelated": 1}`, `{"interfaces": [1]`} {
			if s, err := parse([]byte(out), "p1"); err == nil {
				t.Errorf("%s accepted %q: %v", name, out, s)
			}
		}
	}
}

// Fuzz seeds f with the fixtures, the corpus's JSON of the platform (none
// yet: it has configurations and host counters) and extra, and checks no
// parser returns samples with an error, or a sample without a port or a
// known counter name (known tells a name rocefab labels).
func Fuzz(f *testing.F, platform string, known func(counter string) bool, parsers []Parser, extra ...string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "counters", "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	if _, err := os.Stat(filepath.Join(corpus.Dir(), "README.md")); err == nil {
		matches, _ := filepath.Glob(filepath.Join(corpus.Dir(), platform, "*.json"))
		for _, p := range matches {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, parse := range parsers {
			samples, err := parse(out, "p1")
			if err != nil && len(samples) > 0 {
				t.Fatalf("samples with an error: %v", samples)
			}
			for _, s := range samples {
				if s.Port == "" || s.Counter == "" || !known(s.Counter) {
					t.Fatalf("sample without a port or a known counter: %+v", s)
				}
			}
		}
	})
}

// Cited reports whether a source cites the command line: one whose key's
// words appear in the line in order (the port and output format between
// them), with a citation.
func Cited(sources map[string]string, line string) bool {
	words := strings.Fields(line)
	for key, cite := range sources {
		i := 0
		for _, w := range words {
			if k := strings.Fields(key); i < len(k) && w == k[i] {
				i++
			}
		}
		if i == len(strings.Fields(key)) && strings.TrimSpace(cite) != "" {
			return true
		}
	}
	return false
}
