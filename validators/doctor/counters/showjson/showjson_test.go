package showjson

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers/all"
)

// fixture reads a platform's counter fixture from its folder.
func fixture(tb testing.TB, platform, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "renderers", platform, "testdata", "counters", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestPlatformCommands: each platform's command lines, as the sources
// give them.
func TestPlatformCommands(t *testing.T) {
	reg := all.Renderers()
	want := map[string][]string{
		"nxos":    {"show queuing interface Ethernet1/5 | json", "show queuing pfc-queue interface Ethernet1/5 detail | json"},
		"eos":     {"show interfaces Ethernet5 priority-flow-control counters detail | json", "show priority-flow-control counters watchdog | json", "show qos interfaces ecn counters queue | json", "show interfaces counters queue detail | json"},
		"cumulus": {"nv show interface swp5 counters qos -o json"},
		"junos":   {"show interfaces et-0/0/24 extensive | display json", "show interfaces queue et-0/0/24 | display json"},
	}
	port := map[string]string{"nxos": "Ethernet1/5", "eos": "Ethernet5", "cumulus": "swp5", "junos": "et-0/0/24"}
	if got := strings.Join(Platforms(reg), ","); got != "cumulus,eos,junos,nxos" {
		t.Fatalf("platforms %s", got)
	}
	for name, lines := range want {
		p, ok := For(reg, name)
		if !ok {
			t.Fatalf("no platform %s", name)
		}
		var got []string
		for _, c := range p.Commands([]string{port[name]}) {
			got = append(got, c.Line)
		}
		if strings.Join(got, "\n") != strings.Join(lines, "\n") {
			t.Errorf("%s commands:\n%s\nwant:\n%s", name, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
	if _, ok := For(reg, "sonic"); ok {
		t.Error("sonic reads its counters over gNMI, not show commands")
	}
}
