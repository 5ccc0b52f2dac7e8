package engine

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/renderers"
)

// TestDriverGetsEverySingleOriginModel: a switch managed as one platform may
// run on another platform's gNMI server, so the driver is handed the
// single-origin models of every registered platform, not its own.
func TestDriverGetsEverySingleOriginModel(t *testing.T) {
	reg := fakeRegistry()
	if err := reg.Register(renderers.Entry{Name: "otherplat", New: func() renderers.Renderer { return fakeRenderer{} },
		Attrs: renderers.Attributes{SingleOriginModels: []string{"other-db"}, Transports: []string{"fake"}}}); err != nil {
		t.Fatal(err)
	}
	var got drivers.Options
	errSeen := errors.New("seen")
	drv := drivers.NewRegistry()
	if err := drv.Register("fake", func(_ context.Context, opt drivers.Options) (drivers.Driver, error) {
		got = opt
		return nil, errSeen
	}); err != nil {
		t.Fatal(err)
	}
	e := New(reg, drv, nil, Options{Parallelism: 1})
	_, err := e.openDriver(context.Background(), &compliance.DevicePlan{Device: "leaf1", Platform: "fakeplat", Transport: "fake"}, devcfg.Scope{})
	if !errors.Is(err, errSeen) {
		t.Fatalf("openDriver: %v", err)
	}
	if !slices.Equal(got.SingleOriginModels, []string{"other-db"}) {
		t.Errorf("SingleOriginModels = %v, want [other-db] from the other platform", got.SingleOriginModels)
	}
}
