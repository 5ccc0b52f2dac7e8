package showjson

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// seed adds every fixture and any corpus item that holds JSON switch
// output (none yet: the corpus has configurations and host counters).
func seed(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	if _, err := os.Stat(filepath.Join(corpus.Dir(), "README.md")); err == nil {
		for _, kind := range []string{"nxos", "eos", "junos", "cumulus"} {
			matches, _ := filepath.Glob(filepath.Join(corpus.Dir(), kind, "*.json"))
			for _, p := range matches {
				if b, err := os.ReadFile(p); err == nil {
					f.Add(b)
				}
			}
		}
	}
	f.Add([]byte(`{"TABLE_module":{"ROW_module":[{"TABLE_queuing_interface":{"ROW_queuing_interface":{"if_name_str":""}}}]}}`))
	f.Add([]byte(`{"interface-information":[{"physical-interface":[{"name":[{"data":7}]}]}]}`))
}

func FuzzParsers(f *testing.F) {
	seed(f)
	parsers := []func([]byte, string) ([]counters.Sample, error){ParseNXOSQueuing, ParseNXOSPFCQueue, ParseEOSPFCDetail,
		ParseEOSWatchdog, ParseEOSECN, ParseEOSQueueDetail, ParseNVUEQoS, ParseJunosExtensive, ParseJunosQueue}
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, parse := range parsers {
			samples, err := parse(out, "p1")
			if err != nil && len(samples) > 0 {
				t.Fatalf("samples with an error: %v", samples)
			}
			for _, s := range samples {
				if s.Port == "" || s.Counter == "" || counters.Label(s.Counter) == s.Counter {
					t.Fatalf("sample without a port or a known counter: %+v", s)
				}
			}
		}
	})
}
