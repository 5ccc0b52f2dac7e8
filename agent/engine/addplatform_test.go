package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

// toyoc is a test-only OpenConfig-path platform: the MTU of every port and
// the ECN minimum of one queue-management profile. It exists to prove
// docs/platforms.md: its entry holds only the fields the document's table
// marks for every platform or for gNMI.

const toyName = "toyoc"

func toyMTUPath(port string) string { return "/interfaces/interface[name=" + port + "]/config/mtu" }

const toyECNPath = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold"

type toyRenderer struct{ ceiling int }

func (r toyRenderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := devcfg.Paths{}
	owned := devcfg.Scope{PathPrefixes: []string{"/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_"}}
	for _, port := range sw.Ports {
		p[toyMTUPath(port.Name)] = devcfg.Int(int64(renderers.SwitchMTU(sw.Policy, r.ceiling)))
		owned.Paths = append(owned.Paths, toyMTUPath(port.Name))
	}
	p[toyECNPath] = devcfg.Uint64(sw.Policy.ECNMin)
	return &devcfg.Config{Shape: devcfg.ShapePaths, Paths: p, Owned: owned}, nil
}

// toyFields sets each entry field docs/platforms.md may mark for every
// platform or for gNMI, keyed as the document writes it.
var toyFields = map[string]func(e *renderers.Entry){
	"Name": func(e *renderers.Entry) { e.Name = toyName },
	"New": func(e *renderers.Entry) {
		e.New = func() renderers.Renderer { return toyRenderer{ceiling: e.Attrs.MTUCeiling} }
	},
	"Attrs.Platform.Shape":        func(e *renderers.Entry) { e.Attrs.Platform.Shape = devcfg.ShapePaths },
	"Attrs.Platform.Commit":       func(e *renderers.Entry) { e.Attrs.Platform.Commit = devcfg.CommitGNMI },
	"Attrs.Platform.Syntax.Style": func(e *renderers.Entry) { e.Attrs.Platform.Syntax.Style = devcfg.StylePaths },
	"Attrs.Transports":            func(e *renderers.Entry) { e.Attrs.Transports = []string{"gnmi"} },
	"Attrs.MTUCeiling":            func(e *renderers.Entry) { e.Attrs.MTUCeiling = 9216 },
	"Attrs.PortPattern":           func(e *renderers.Entry) { e.Attrs.PortPattern = regexp.MustCompile(`^Ethernet\d+$`) },
	"Attrs.PortExample":           func(e *renderers.Entry) { e.Attrs.PortExample = "Ethernet1" },
	"Attrs.MaxNoDropPriorities":   func(e *renderers.Entry) { e.Attrs.MaxNoDropPriorities = 2 },
	"Attrs.Classify": func(e *renderers.Entry) {
		e.Attrs.Classify = renderers.ClassifyByKeywords(map[string]string{"/mtu": "an MTU change flaps the link"})
	},
	"Attrs.Encode": func(e *renderers.Entry) {
		e.Attrs.Encode = func(c *devcfg.Config) ([]byte, error) { return []byte(c.Text()), nil }
	},
	"Attrs.FileExt": func(e *renderers.Entry) { e.Attrs.FileExt = ".paths" },
	"Attrs.Sources": func(e *renderers.Entry) {
		e.Attrs.Sources = renderers.Sourced(
			`/interfaces/interface\[name=[^\]]+\]/config/mtu`, "openconfig-interfaces.yang (interfaces/interface/config/mtu)",
			`/qos/queue-management-profiles/.*`, "openconfig-qos (queue-management-profiles)")
	},
}

// documentedEntry is the table of docs/platforms.md's "The entry": field
// name to what needs it.
func documentedEntry(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "platforms.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## The entry\n")
	if !ok {
		t.Fatal(`docs/platforms.md has no "## The entry" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z.]+)` \\| ([^|]+) \\|")
	out := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		out[m[1]] = strings.TrimSpace(m[2])
	}
	if len(out) == 0 {
		t.Fatal("docs/platforms.md: the entry table has no rows")
	}
	return out
}

// entryField reports whether a dotted name is a field of renderers.Entry.
func entryField(name string) bool {
	typ := reflect.TypeOf(renderers.Entry{})
	for _, part := range strings.Split(name, ".") {
		if typ.Kind() != reflect.Struct {
			return false
		}
		f, ok := typ.FieldByName(part)
		if !ok {
			return false
		}
		typ = f.Type
	}
	return true
}

// registerToy is the toy's Register, as a platform package writes it, with
// the entry built from the documented fields only.
func registerToy(t *testing.T, doc map[string]string) func(*renderers.Registry) error {
	var e renderers.Entry
	names := make([]string, 0, len(doc))
	for name := range doc {
		names = append(names, name)
	}
	slices.Sort(names) // New reads MTUCeiling when called, not when set
	for _, name := range names {
		if !entryField(name) {
			t.Errorf("docs/platforms.md names %s, which renderers.Entry does not have", name)
			continue
		}
		if need := doc[name]; need != "every platform" && need != "gNMI" {
			continue
		}
		set, ok := toyFields[name]
		if !ok {
			t.Errorf("docs/platforms.md says %s needs %s: the test platform has no value for it (add one to toyFields)", doc[name], name)
			continue
		}
		set(&e)
	}
	return func(r *renderers.Registry) error { return r.Register(e) }
}

func TestAddPlatformAsDocumented(t *testing.T) {
	doc := documentedEntry(t)
	reg, err := all.Registry(registerToy(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	entry, err := reg.Lookup(toyName)
	if err != nil {
		t.Fatal(err)
	}
	// Held to what every registered platform is held to.
	for _, what := range all.Check(entry) {
		t.Errorf("the documented entry leaves %s missing or wrong", what)
	}

	const user, pass = "rocefab", "toy-Pa55word"
	sim, err := gnmisim.Start(gnmisim.Options{Name: "leaf1", Username: user, Password: pass, Ports: []string{"Ethernet1", "Ethernet2"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Stop)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, sim.CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	fabric := filepath.Join(dir, "fabric.yaml")
	yaml := fmt.Sprintf(`apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: toy}
spec:
  lossless:
    ecn: {minThreshold: 150KB, maxThreshold: 1500KB}
    mtu: {switch: max, host: 9000}
  security:
    caBundle: %s
  switches:
    - name: leaf1
      platform: %s
      transport: gnmi
      address: "%s"
      credentials: {username: %s, passwordEnv: ROCEFAB_TEST_TOY_PASSWORD}
      ports: [{names: Ethernet1-2, mode: routed}]
`, ca, toyName, sim.Addr(), user)
	if err := os.WriteFile(fabric, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}

	// validate: lint knows the platform from its entry alone.
	res, diags := lint.Validate(reg, fabric)
	if diags.HasErrors() {
		t.Fatalf("validate: %v", diags.Err())
	}
	sw := res.Switch("leaf1")
	// and refuses what the platform cannot take: more lossless priorities
	// than MaxNoDropPriorities (RF110), a port name outside PortPattern
	// (RF112), an MTU above MTUCeiling (RF116).
	for code, edit := range map[string][2]string{
		lint.CodeTooManyNoDrop: {"ecn: {", "pfc: {priorities: [2, 3, 4]}\n    ecn: {"},
		lint.CodePortName:      {"names: Ethernet1-2", "names: swp1-2"},
		lint.CodeMTUCeiling:    {"switch: max", "switch: 9300"},
	} {
		_, diags := lint.ValidateBytes(reg, fabric, []byte(strings.Replace(yaml, edit[0], edit[1], 1)))
		if !strings.Contains(fmt.Sprint(diags), code) {
			t.Errorf("validate with %q: %v, want %s", edit[1], diags, code)
		}
	}

	// render, as `rocefab render` does: every statement cited.
	cfg, err := reg.Render(sw)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Paths[toyMTUPath("Ethernet1")]; got != devcfg.Int(9216) {
		t.Errorf("rendered MTU %v, want the ceiling 9216 for mtu: max", got)
	}
	text, err := entry.Attrs.Encode(cfg)
	if err != nil || len(text) == 0 {
		t.Fatalf("encode: %q, %v", text, err)
	}
	for path := range cfg.Paths {
		if renderers.Cite(entry.Attrs.Sources, path) == "" {
			t.Errorf("rendered %s has no source", path)
		}
	}

	// plan, apply and plan again through the engine and the real gNMI
	// driver.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := engine.RunStore{Dir: t.TempDir()}
	eng := func() *engine.Engine {
		return engine.New(reg, driversall.Drivers(), nil, engine.Options{Timeout: 10 * time.Second, Parallelism: 1,
			LastApplied: store.LastApplied(),
			Secrets: func(compliance.Connection) (drivers.Credentials, error) {
				return drivers.Credentials{Username: user, Password: pass}, nil
			}})
	}
	ref := compliance.IntentRef{Fabric: res.Name}
	plan, err := eng().Plan(ctx, res, ref, engine.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	dp := devicePlan(t, plan, "leaf1")
	if dp.Status != compliance.StatusChanges || dp.Patch.Empty() {
		t.Fatalf("fresh device: status %s, error %q", dp.Status, dp.Error)
	}
	if !dp.Disruptive() {
		t.Errorf("an MTU change is not classified traffic-affecting: %s", changeList(dp.Changes))
	}
	rep, err := eng().Apply(ctx, plan, engine.ApplyOptions{AllowDisruptive: true, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Devices[0]; d.Outcome != engine.OutcomeApplied {
		t.Fatalf("apply: %s: %s", d.Outcome, d.Reason)
	}
	leaves := sim.Leaves()
	for path, want := range cfg.Paths {
		if got, ok := leaves[path]; !ok || got != want {
			t.Errorf("device %s = %v, want %v", path, got, want)
		}
	}
	again, err := eng().Plan(ctx, res, ref, engine.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if dp := devicePlan(t, again, "leaf1"); dp.Status != compliance.StatusNoChanges {
		t.Errorf("after apply: status %s, changes %s, error %q", dp.Status, changeList(dp.Changes), dp.Error)
	}
}
