package openconfig

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/lemmingtest"
)

// The lemming oracle (independent oracles): OpenConfig's reference gNMI
// server checks every Set against the full OpenConfig schema. Every render
// goes to it through rocefab's own gNMI driver over TLS, as a plan and an
// apply would: fetch, Fit, diff, push, read back.

func dialLemming(t *testing.T, lm *lemmingtest.Target, scope devcfg.Scope) *gnmi.Driver {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, lm.CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := gnmi.Dial(context.Background(), drivers.Options{Device: "spine-oc", Address: lm.Addr(), Platform: Attributes().Platform,
		Scope: scope, TLS: drivers.TLSOptions{CAFile: ca}, Timeout: 20 * time.Second, Creds: drivers.Credentials{Username: "rocefab", Password: "lemming-takes-no-password"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// planPush is the plan and apply of one render: it returns how many
// changes it pushed.
func planPush(t *testing.T, lm *lemmingtest.Target, sw *intent.Switch, last devcfg.Scope) int {
	t.Helper()
	ctx := context.Background()
	plat := Attributes().Platform
	desired := mustRender(t, sw)
	desired.Owned.Merge(last)
	d := dialLemming(t, lm, desired.Owned)
	running, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := testFit(sw, desired, running.Config); err != nil {
		t.Fatal(err)
	}
	changes := devcfg.Diff(desired, running.Owned, plat.Syntax, nil)
	if len(changes) == 0 {
		return 0
	}
	if _, err := d.Push(ctx, devcfg.BuildPatch(changes, plat.Syntax), drivers.PushOptions{}); err != nil {
		t.Fatalf("lemming rejected the push of %d changes: %v", len(changes), err)
	}
	after, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if left := devcfg.Diff(desired, after.Owned, plat.Syntax, nil); len(left) != 0 {
		for _, c := range left {
			t.Errorf("read back from lemming differs: %s %s (%s → %s)", c.Action.Symbol(), c.Where(), c.Old, c.New)
		}
		t.FailNow()
	}
	return len(changes)
}

// TestLemmingAcceptsEveryRender: every variant (each profile, trunk,
// access, routed, port channels, watchdog times, two lossless priorities)
// pushed to lemming and read back equal, then changed (VLAN, lossless
// priority, profile, MTU) and pushed again, so additions, modifications and
// deletions are all schema-checked. lemming is a strict OpenConfig server:
// a variant with a cli or sonic-db fallback is refused by Fit (PFC is not
// expressible there) and pushed as pfcFallback none.
func TestLemmingAcceptsEveryRender(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			lm := lemmingtest.Start(t)
			sw := variantSwitch(t, v.name)
			if len(sw.Ports) > 4 {
				// Four ports show every statement; lemming re-validates the
				// whole tree on each Set, which is slow with 32.
				sw.Ports = sw.Ports[:4]
			}
			if fallbackOf(testRegistry, sw.OCFallback) != nil && sw.Policy.PFCOn() {
				desired := mustRender(t, sw)
				d := dialLemming(t, lm, desired.Owned)
				running, err := d.Fetch(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if err := testFit(sw, desired, running.Config); err == nil || !strings.Contains(err.Error(), "PFC is not expressible on spine-oc") {
					t.Fatalf("a strict target must refuse the %s fallback at plan time: %v", sw.OCFallback, err)
				}
				sw.OCFallback = intent.PFCFallbackNone
			}
			if n := planPush(t, lm, sw, devcfg.Scope{}); n == 0 {
				t.Fatal("nothing pushed: the step proves nothing")
			}
			changed := *sw
			changed.Policy.VLAN, changed.Policy.NoDropPriority, changed.Policy.PFCPriorities = 200, 4, []int{4}
			changed.Policy.Profile = intent.ProfilePFCOnly
			changed.Policy.SwitchMTU = intent.SwitchMTU{Value: 9000}
			if changed.OCFallback == "" {
				changed.OCFallback = intent.PFCFallbackNone // now with PFC
			}
			if n := planPush(t, lm, &changed, mustRender(t, sw).Owned); n == 0 {
				t.Fatal("the change pushed nothing")
			}
			if n := planPush(t, lm, &changed, mustRender(t, sw).Owned); n != 0 {
				t.Fatalf("a second plan still has %d changes", n)
			}
		})
	}
}

// TestLemmingRejectsTheMixedRequest: the finding behind Fit. Pushed anyway,
// the eos fallback's cli paths make lemming reject the whole SetRequest, and
// nothing of the OpenConfig part is applied.
func TestLemmingRejectsTheMixedRequest(t *testing.T) {
	lm := lemmingtest.Start(t)
	desired := mustRender(t, variantSwitch(t, "eos-fallback"))
	d := dialLemming(t, lm, desired.Owned)
	plat := Attributes().Platform
	changes := devcfg.Diff(desired, &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{}}, plat.Syntax, nil)
	_, err := d.Push(context.Background(), devcfg.BuildPatch(changes, plat.Syntax), drivers.PushOptions{})
	if err == nil || !strings.Contains(err.Error(), "cli") {
		t.Fatalf("err = %v, want lemming's rejection of origin cli", err)
	}
	notifs, err := lm.Once(context.Background(), &gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "qos"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notifs {
		for _, u := range n.GetUpdate() {
			if strings.Contains(u.String(), "ROCEFAB") {
				t.Fatalf("part of the rejected request was applied: %v", u)
			}
		}
	}
}
