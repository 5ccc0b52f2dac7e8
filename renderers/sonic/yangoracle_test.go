package sonic

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/sonicyang"
)

// The SONiC YANG oracle (issue: independent oracles): every config the
// renderer produces is fitted to a realistic device base, applied to it the
// way a push changes CONFIG_DB (owned paths the render drops are removed,
// rendered paths written), and the whole result is validated by yanglint
// against SONiC's own YANG models, as config apply-patch validates the
// result of a patch on a switch. Any error fails.

// runningOf is a base as the running config Fit sees.
func runningOf(t *testing.T, db sonicyang.DB) *devcfg.Config {
	t.Helper()
	p := devcfg.Paths{}
	for table, entries := range db {
		for key, fields := range entries {
			if len(fields) == 0 {
				p[EntryKey(table, key)] = devcfg.Empty
			}
			for f, v := range fields {
				raw, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				val, err := devcfg.ParseValue(raw)
				if err != nil {
					t.Fatal(err)
				}
				p[Key(table, key, f)] = val
			}
		}
	}
	return &devcfg.Config{Shape: devcfg.ShapePaths, Paths: p}
}

// applied is running after a push of desired: what the scope owns and the
// render lacks is gone, the render is written.
func applied(t *testing.T, running, desired *devcfg.Config) sonicyang.DB {
	t.Helper()
	out := running.Paths.Clone()
	for p := range out {
		if _, keep := desired.Paths[p]; !keep && desired.Owned.OwnsPath(p) {
			delete(out, p)
		}
	}
	for p, v := range desired.Paths {
		out[p] = v
	}
	db := sonicyang.DB{}
	for p, v := range out {
		table, key, field, ok := SplitKey(p)
		if !ok {
			t.Fatalf("bad key %q", p)
		}
		if db[table] == nil {
			db[table] = map[string]map[string]any{}
		}
		if db[table][key] == nil {
			db[table][key] = map[string]any{}
		}
		if field != "" {
			var x any
			if err := json.Unmarshal([]byte(v), &x); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			db[table][key][field] = x
		}
	}
	return db
}

// onBase moves the switch's ports onto the base's (in order, keeping each
// port's mode and LAG) and creates its port channels, as an operator would
// have before rocefab runs. ok is false when the base has too few ports.
func onBase(sw *intent.Switch, base sonicyang.Base) (*intent.Switch, sonicyang.DB, bool) {
	out := *sw
	db := base.DB.Clone()
	ports := base.Ports()
	if len(sw.Ports) > len(ports) {
		return nil, nil, false
	}
	out.Ports = make([]intent.Port, len(sw.Ports))
	for i, p := range sw.Ports {
		p.Name = ports[i]
		out.Ports[i] = p
		if p.LAG != "" {
			if db["PORTCHANNEL"] == nil {
				db["PORTCHANNEL"] = map[string]map[string]any{}
			}
			db["PORTCHANNEL"][p.LAG] = map[string]any{"admin_status": "up", "mtu": "9100"}
		}
	}
	return &out, db, true
}

var (
	oracleOnce  sync.Once
	oracleBases []sonicyang.Base
	oracle      *sonicyang.Schema
	oracleErr   error
)

func loadOracle(t *testing.T) (*sonicyang.Schema, []sonicyang.Base) {
	t.Helper()
	dir := sonicyang.Require(t)
	oracleOnce.Do(func() {
		if oracle, oracleErr = sonicyang.Load(dir); oracleErr == nil {
			oracleBases, oracleErr = sonicyang.Bases(dir)
		}
	})
	if oracleErr != nil {
		t.Fatal(oracleErr)
	}
	return oracle, oracleBases
}

// oracleCase is one rendered switch to check.
type oracleCase struct {
	name string
	sw   *intent.Switch
}

func oracleCases(t *testing.T) []oracleCase {
	var cs []oracleCase
	for _, v := range variants {
		cs = append(cs, oracleCase{"variant/" + v.name, variantSwitch(t, v.name)})
	}
	for _, scenario := range []string{"basic", "ai-cluster"} {
		for _, sw := range exampleSwitches(t, scenario) {
			if sw.Platform == Name {
				cs = append(cs, oracleCase{"example/" + scenario + "/" + sw.Name, sw})
			}
		}
	}
	return cs
}

// TestYANGOracle validates every variant (each profile, trunk, access and
// routed ports, port channels, static buffers, watchdog times, trust pcp,
// two lossless priorities) and every SONiC switch of the examples over the
// MSN2700, MSN4700 and SN4700-V64 bases under both buffer models.
func TestYANGOracle(t *testing.T) {
	schema, bases := loadOracle(t)
	var validated atomic.Int32
	t.Run("each", func(t *testing.T) { // parallel subtests end before the count below
		for _, c := range oracleCases(t) {
			for _, base := range bases {
				t.Run(c.name+"/"+base.Name, func(t *testing.T) {
					t.Parallel()
					sw, db, ok := onBase(c.sw, base)
					if !ok {
						t.Skipf("%s has %d ports, the intent %d", base.Name, len(base.Ports()), len(c.sw.Ports))
					}
					running := runningOf(t, db)
					desired := mustRender(t, sw)
					if err := Fit(sw, desired, running); err != nil {
						if strings.HasSuffix(base.Name, "traditional") && strings.Contains(err.Error(), "static profile") {
							return // refused before any push: nothing reaches the switch
						}
						t.Fatalf("refused: %v", err)
					}
					errs, err := schema.Validate(applied(t, running, desired))
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range errs {
						t.Error(e)
					}
					validated.Add(1)
				})
			}
		}
	})
	t.Logf("%d configs validated", validated.Load())
	if n := validated.Load(); n < 60 {
		t.Fatalf("only %d configs validated", n)
	}
}

// TestYANGOracleCatches: the oracle rejects what a SONiC switch rejects, so
// the test above cannot pass vacuously: a PORT entry with only mtu (lanes
// and speed are mandatory), a VLAN member that is a port channel member, a
// watchdog time out of range, an unknown field, a dangling map reference.
func TestYANGOracleCatches(t *testing.T) {
	schema, bases := loadOracle(t)
	base := bases[0]
	sw, db, _ := onBase(basicSwitch(t), base)
	running := runningOf(t, db)
	desired := mustRender(t, sw)
	if err := Fit(sw, desired, running); err != nil {
		t.Fatal(err)
	}
	good := applied(t, running, desired)
	cases := []struct {
		name string
		edit func(db sonicyang.DB)
		want string
	}{
		{"port with only mtu", func(db sonicyang.DB) { db["PORT"]["Ethernet252"] = map[string]any{"mtu": "9216"} }, "lanes"},
		{"vlan member in a port channel", func(db sonicyang.DB) {
			db["PORTCHANNEL"] = map[string]map[string]any{"PortChannel1": {"admin_status": "up"}}
			db["PORTCHANNEL_MEMBER"] = map[string]map[string]any{"PortChannel1|Ethernet0": {}}
		}, "member of a port channel"},
		{"watchdog range", func(db sonicyang.DB) { db["PFC_WD"]["Ethernet0"]["detection_time"] = "50" }, "detection_time"},
		{"dangling map", func(db sonicyang.DB) { db["PORT_QOS_MAP"]["Ethernet0"]["tc_to_queue_map"] = "NOPE" }, "tc_to_queue_map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := good.Clone()
			tc.edit(db)
			errs, err := schema.Validate(db)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Fatalf("no error mentions %q: %v", tc.want, errs)
			}
		})
	}
	bad := good.Clone()
	bad["PORT"]["Ethernet0"]["rocefab"] = "x"
	if _, err := schema.Validate(bad); err == nil || !strings.Contains(err.Error(), "field rocefab is not in the model") {
		t.Errorf("unknown field: %v", err)
	}
	if errs, err := schema.Validate(good); err != nil || len(errs) > 0 {
		t.Errorf("the good config: %v %v", err, errs)
	}
}
