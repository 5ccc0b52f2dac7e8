package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/rocefab/rocefab/drivers"
)

func TestOpenSwitch(t *testing.T) {
	h := newHarness(t, 1)
	res := h.resolve(fakeIntent(2, "9000"))
	drv, transport, err := h.eng.OpenSwitch(context.Background(), res, res.Switch("sw01"))
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close()
	fd, ok := drv.(*fakeDriver)
	if !ok || transport != "fake" || fd.opt.Device != "sw01" || fd.opt.Address != "192.0.2.2" {
		t.Fatalf("opened %T %+v over %q", drv, fd, transport)
	}
	h.fleet.device("192.0.2.1").unreachable = true
	if _, _, err := h.eng.OpenSwitch(context.Background(), res, res.Switch("sw00")); !errors.Is(err, drivers.ErrUnreachable) {
		t.Fatalf("unreachable switch: %v", err)
	}
}
