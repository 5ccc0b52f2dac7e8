package all

import (
	"strings"
	"testing"
)

// TestSingleOriginModels: sonic-gnmi's sonic-db model is the one registered
// single-origin model, so the gnmi driver refuses a mixed SetRequest there.
func TestSingleOriginModels(t *testing.T) {
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	if got := reg.SingleOriginModels(); strings.Join(got, ",") != "sonic-db" {
		t.Errorf("SingleOriginModels = %v, want [sonic-db]", got)
	}
}
