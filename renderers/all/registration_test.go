package all

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/rocefab/rocefab/renderers"
)

// notPlatforms are folders under renderers/ that hold no platform.
var notPlatforms = []string{"all", "devcfg", "host", "iosstyle", "testdata"}

// TestEveryFolderIsRegistered fails when a platform folder exists under
// renderers/ but its Register is missing from the registrations list.
func TestEveryFolderIsRegistered(t *testing.T) {
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	reg := Renderers()
	for _, e := range entries {
		if !e.IsDir() || slices.Contains(notPlatforms, e.Name()) {
			continue
		}
		if _, err := reg.Lookup(e.Name()); err != nil {
			t.Errorf("renderers/%s is not registered: add %s.Register to registrations in renderers/all/all.go (%v)", e.Name(), e.Name(), err)
		}
	}
}

// TestRegisteredAttributes checks that each platform gives the driver,
// lint and render everything they rely on.
func TestRegisteredAttributes(t *testing.T) {
	reg := Renderers()
	if len(reg.Names()) == 0 {
		t.Fatal("no platform registered")
	}
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			e, err := reg.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, what := range Check(e) {
				t.Errorf("%s: %s is missing or wrong", name, what)
			}
		})
	}
}

func TestUnknownPlatformListsKnown(t *testing.T) {
	_, err := Renderers().Lookup("no-such-os")
	if !errors.Is(err, renderers.ErrUnknownPlatform) {
		t.Fatalf("want ErrUnknownPlatform, got %v", err)
	}
}
