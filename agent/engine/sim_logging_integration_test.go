package engine_test

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
)

// TestDriverLogsNameTheDeviceOnce: the engine gives each driver a logger
// that names the device and platform; no driver adds them a second time,
// so every entry that carries them carries each once.
func TestDriverLogsNameTheDeviceOnce(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	h := newSimHarness(t, oneOfEach())
	h.opt.Logger = zap.New(core)
	res := h.intent("fabric.yaml", enginetest.Params{})
	h.apply(h.plan(res), engine.ApplyOptions{AllowDisruptive: true})

	drivers := map[string]bool{}
	for _, e := range logs.All() {
		count := map[string]int{}
		for _, f := range e.Context {
			count[f.Key]++
		}
		if count["device"] > 1 || count["platform"] > 1 {
			t.Errorf("%s %q carries device %d times and platform %d times: %v", e.LoggerName, e.Message, count["device"], count["platform"], e.Context)
		}
		if e.LoggerName == "ssh" || e.LoggerName == "gnmi" {
			drivers[e.LoggerName] = true
			if count["device"] != 1 || count["platform"] != 1 {
				t.Errorf("%s %q does not name the device and platform: %v", e.LoggerName, e.Message, e.Context)
			}
		}
	}
	if !drivers["ssh"] || !drivers["gnmi"] {
		t.Fatalf("no log entries of both drivers were seen (%v): the test proves nothing", drivers)
	}
}
