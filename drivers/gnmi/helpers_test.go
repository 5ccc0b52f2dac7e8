package gnmi_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

const (
	testUser = "rocefab"
	testPass = "s3cret-Pa55word"
)

// startSim starts a target with password auth and TLS and stops it at the
// end of the test.
func startSim(t testing.TB, opt gnmisim.Options) *gnmisim.Target {
	t.Helper()
	if !opt.NoAuth && opt.Username == "" {
		opt.Username, opt.Password = testUser, testPass
	}
	if opt.Name == "" {
		opt.Name = "sim"
	}
	sim, err := gnmisim.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Stop)
	return sim
}

// caFile writes the simulator's CA to a file, as a user's CA bundle.
func caFile(t testing.TB, sim *gnmisim.Target) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, sim.CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// options are driver options for a simulator, TLS verified against its CA.
func options(t testing.TB, sim *gnmisim.Target, platform devcfg.Platform, scope devcfg.Scope) drivers.Options {
	return drivers.Options{
		Device:   "leaf1",
		Address:  sim.Addr(),
		Platform: platform,
		Scope:    scope,
		Creds:    drivers.Credentials{Username: testUser, Password: testPass},
		TLS:      drivers.TLSOptions{CAFile: caFile(t, sim)},
		Timeout:  5 * time.Second,
		Backoff:  10 * time.Millisecond,
	}
}

func dial(t testing.TB, opt drivers.Options) *gnmi.Driver {
	t.Helper()
	d, err := gnmi.Dial(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// bufferLogger logs everything at debug level into a buffer.
func bufferLogger() (*zap.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	enc := zapcore.NewJSONEncoder(zap.NewDevelopmentEncoderConfig())
	core := zapcore.NewCore(enc, zapcore.AddSync(&buf), zapcore.DebugLevel)
	return zap.New(core), &buf
}

// ocPlatform is a plain OpenConfig platform: no Parse, so the driver's
// flat leaves are the config.
func ocPlatform() devcfg.Platform {
	return devcfg.Platform{Name: "openconfig", Shape: devcfg.ShapePaths, Commit: devcfg.CommitGNMI,
		Syntax: devcfg.Syntax{Style: devcfg.StylePaths}, Models: []string{"openconfig-interfaces", "openconfig-qos"}}
}

var ocScope = devcfg.Scope{
	Paths:        []string{"/interfaces/interface[name=Ethernet1]/config/mtu", "/qos/queues/queue[name=ROCEFAB_Q3]"},
	PathPrefixes: []string{"/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_", "cli:/interface Ethernet1 > priority-flow-control "},
}

var ocPatch = devcfg.Patch{Updates: []devcfg.PathUpdate{
	{Path: "/interfaces/interface[name=Ethernet1]/config/mtu", Value: devcfg.Int(9216)},
	{Path: "/qos/queues/queue[name=ROCEFAB_Q3]/config/name", Value: devcfg.String("ROCEFAB_Q3")},
	{Path: "/qos/queues/queue[name=ROCEFAB_Q3]/config/queue-id", Value: devcfg.Int(3)},
	{Path: "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold", Value: devcfg.Uint64(150000)},
	{Path: "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/enable-ecn", Value: devcfg.Bool(true)},
	{Path: "cli:/interface Ethernet1 > priority-flow-control priority 3 no-drop", Value: devcfg.String("interface Ethernet1\n   priority-flow-control priority 3 no-drop")},
}}
