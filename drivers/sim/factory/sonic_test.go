package factory_test

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/internal/sonicyang"
)

// TestSONiCIsWhatSONiCAccepts: the factory CONFIG_DB, with and without
// its foreign configuration, under both buffer models, validates against
// SONiC's own YANG models with yanglint, as a switch checks what it
// loads.
func TestSONiCIsWhatSONiCAccepts(t *testing.T) {
	dir := sonicyang.Require(t)
	schema, err := sonicyang.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []factory.SONiCOptions{
		{Hostname: "leaf1", Ports: 4},
		{Hostname: "leaf1", Ports: 4, Foreign: true},
		{Hostname: "leaf1", Ports: 32, BufferModel: "traditional", Foreign: true},
	} {
		msgs, err := schema.Validate(toOracle(factory.SONiC(o)))
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if len(msgs) > 0 {
			t.Errorf("%+v: SONiC's YANG refuses the factory CONFIG_DB:\n%s", o, strings.Join(msgs, "\n"))
		}
	}
}

// TestSONiCMatchesTheStockBase: ports, lanes, aliases and the stock PGs
// agree with the ACS-MSN2700 base assembled from sonic-buildimage
// (port_config.ini, buffers_defaults), so simulators start where a real
// switch does.
func TestSONiCMatchesTheStockBase(t *testing.T) {
	dir := sonicyang.Require(t)
	bases, err := sonicyang.Bases(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bases {
		model, ok := strings.CutPrefix(b.Name, "MSN2700/")
		if !ok {
			continue
		}
		db := factory.SONiC(factory.SONiCOptions{Hostname: "leaf1", Ports: 8, BufferModel: model})
		for i := 0; i < 8; i++ {
			port := factory.SONiCPort(i)
			for _, f := range []string{"lanes", "alias", "index", "speed", "mtu"} {
				if got, want := db["PORT"][port][f], b.DB["PORT"][port][f]; got != want {
					t.Errorf("%s: PORT|%s %s = %q, the stock base has %v", b.Name, port, f, got, want)
				}
			}
			for _, pg := range []string{port + "|0", port + "|3-4"} {
				want, stock := b.DB["BUFFER_PG"][pg]["profile"]
				if got := db["BUFFER_PG"][pg]["profile"]; !stock || model == "dynamic" && got != want {
					t.Errorf("%s: BUFFER_PG|%s profile = %q, the stock base has %v", b.Name, pg, got, want)
				}
			}
		}
		if got, want := db["DEVICE_METADATA"]["localhost"]["hwsku"], b.DB["DEVICE_METADATA"]["localhost"]["hwsku"]; got != want {
			t.Errorf("%s: hwsku %q, the stock base has %v", b.Name, got, want)
		}
	}
}

func TestSONiCForeign(t *testing.T) {
	plain := factory.SONiC(factory.SONiCOptions{Hostname: "leaf1", Ports: 4})
	foreign := factory.SONiC(factory.SONiCOptions{Hostname: "leaf1", Ports: 4, Foreign: true})
	for _, table := range []string{"DSCP_TO_TC_MAP", "VLAN", "VLAN_MEMBER", "MGMT_INTERFACE", "LLDP"} {
		if _, ok := plain[table]; ok {
			t.Errorf("%s without foreign configuration", table)
		}
		if _, ok := foreign[table]; !ok {
			t.Errorf("no %s with foreign configuration", table)
		}
	}
	if got := foreign["PORT"]["Ethernet12"]["description"]; got != factory.UplinkDescription {
		t.Errorf("last port description %q", got)
	}
	if got := foreign["DSCP_TO_TC_MAP"]["AZURE"]["48"]; got != "7" {
		t.Errorf("AZURE maps DSCP 48 to %q, stock Mellanox QoS to 7", got)
	}
	if len(foreign["DSCP_TO_TC_MAP"]["AZURE"]) != 64 {
		t.Errorf("AZURE maps %d DSCPs, want 64", len(foreign["DSCP_TO_TC_MAP"]["AZURE"]))
	}
}

func toOracle(db factory.ConfigDB) sonicyang.DB {
	out := sonicyang.DB{}
	for table, entries := range db {
		out[table] = map[string]map[string]any{}
		for key, fields := range entries {
			out[table][key] = map[string]any{}
			for f, v := range fields {
				out[table][key][f] = v
			}
		}
	}
	return out
}
