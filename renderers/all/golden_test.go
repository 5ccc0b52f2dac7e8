package all

import (
	"bytes"
	"testing"

	"github.com/rocefab/rocefab/internal/golden"
)

// TestGolden renders every scenario switch through the registry and
// compares the device-native text with renderers/<platform>/testdata.
// Regenerate with: go test ./renderers/all -update
func TestGolden(t *testing.T) {
	reg := Renderers()
	forEachSwitch(t, reg, func(t *testing.T, c renderCase) {
		first := encode(t, c)
		golden.Check(t, c.goldenPath(), first)
		if again := encode(t, c); !bytes.Equal(first, again) {
			t.Errorf("%s: two renders differ: output is not deterministic", c.name())
		}
	})
}

func encode(t *testing.T, c renderCase) []byte {
	t.Helper()
	cfg := mustRender(t, Renderers(), c.sw)
	data, err := c.entry.Attrs.Encode(cfg)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	if len(data) == 0 {
		t.Fatal("encode produced nothing")
	}
	return data
}
