package gnmisim

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rocefab/rocefab/internal/corpus"
)

// FuzzApplyCLI runs arbitrary CLI text, and real EOS and NX-OS running
// configs from the shared corpus, through origin cli: it never panics,
// every leaf it writes is a one-element cli path holding the command's
// text, and the "no" form of each written command removes it again.
func FuzzApplyCLI(f *testing.F) {
	for _, s := range []string{
		"interface Ethernet1\n   priority-flow-control on\n",
		"policy-map type network-qos NQ\n  class type network-qos c1\n    mtu 9216\n  no class type network-qos c2\n",
		"interface Ethernet1\n   no priority-flow-control pause watchdog port timer\n",
		"\tmtu 1\n!\n  \n end\nexit\nno\n",
	} {
		f.Add(s)
	}
	corpus.SeedWith(f, func(b []byte) { f.Add(string(b)) }, "eos", "nxos")
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			t.Skip("ascii_val is a proto string: gRPC carries only UTF-8")
		}
		tr := tree{}
		written := tr.applyCLI(text)
		for _, k := range written {
			name := cliName(k)
			if name == "" {
				t.Fatalf("written leaf %q is not a one-element cli path", k)
			}
			if v, ok := tr[k]; ok && !strings.HasPrefix(string(v), `"`) {
				t.Fatalf("%s = %s, not a JSON string", k, v)
			}
		}
		for _, k := range written {
			if _, ok := tr[k]; !ok {
				continue // a later line of the text removed it
			}
			parts := strings.Split(cliName(k), " > ")
			tr.cliNo(parts[:len(parts)-1], parts[len(parts)-1])
			if _, ok := tr[k]; ok {
				t.Fatalf("no %q left %s", parts[len(parts)-1], k)
			}
		}
	})
}
