// Package factory is what a simulated switch carries before rocefab
// touches it: one state per platform, shared by the SSH and gNMI
// simulators, the demo and the test fleets, so that all of them start
// from the same device. It is written from the vendors' stock
// configurations, never from rocefab's renderers.
package factory

import (
	"fmt"
	"strconv"
	"strings"
)

// ConfigDB is SONiC's config_db as tables: table → key → field → value.
type ConfigDB map[string]map[string]map[string]string

// Set writes one field, creating its table and entry.
func (db ConfigDB) Set(table, key, field, value string) {
	if db[table] == nil {
		db[table] = map[string]map[string]string{}
	}
	if db[table][key] == nil {
		db[table][key] = map[string]string{}
	}
	db[table][key][field] = value
}

// SONiCOptions choose a SONiC switch.
type SONiCOptions struct {
	Hostname string
	// Ports is the number of front-panel ports, Ethernet0, Ethernet4, ...
	Ports int
	// BufferModel is DEVICE_METADATA's buffer_model: "dynamic" (the
	// default) or "traditional".
	BufferModel string
	// Foreign adds what a production switch carries that rocefab does not
	// own: a description on the last port, the stock AZURE DSCP map, VLAN
	// 10 tagged on the last port, the management port and LLDP.
	Foreign bool
}

// SONiCPort is the name of front-panel port i (four lanes each).
func SONiCPort(i int) string { return "Ethernet" + strconv.Itoa(4*i) }

// UplinkDescription is the description Foreign puts on the last port.
const UplinkDescription = "storage-uplink"

// SONiC is the CONFIG_DB a Mellanox SN2700 SONiC switch boots with. A push
// to a CONFIG_DB without PORT lanes fails validation, as on a switch, so
// every port has its lanes. The buffer tables follow sonic-buildimage's
// buffers_config.j2 and the Mellanox buffers_defaults templates: ingress
// lossless and lossy pools, their profiles, each port's lossy PG 0 and
// stock lossless PGs 3-4, CABLE_LENGTH|AZURE 5m. BUFFER_PG|<port>|3-4 is
// "NULL" under the dynamic model and buffermgrd's generated
// pg_lossless_100000_5m_profile under the traditional one.
func SONiC(o SONiCOptions) ConfigDB {
	model := o.BufferModel
	if model == "" {
		model = "dynamic"
	}
	db := ConfigDB{}
	for f, v := range map[string]string{
		"hostname": o.Hostname, "hwsku": "ACS-MSN2700", "platform": "x86_64-mlnx_msn2700-r0",
		"mac": "98:03:9b:00:00:01", "type": "LeafRouter", "buffer_model": model, "bgp_asn": "65100",
	} {
		db.Set("DEVICE_METADATA", "localhost", f, v)
	}
	for _, pool := range []string{"ingress_lossless_pool", "ingress_lossy_pool"} {
		db.Set("BUFFER_POOL", pool, "type", "ingress")
		db.Set("BUFFER_POOL", pool, "mode", "dynamic")
	}
	db.Set("BUFFER_POOL", "egress_lossless_pool", "type", "egress")
	db.Set("BUFFER_POOL", "egress_lossless_pool", "mode", "dynamic")
	for name, f := range map[string][3]string{
		"ingress_lossless_profile": {"ingress_lossless_pool", "0", "7"},
		"ingress_lossy_profile":    {"ingress_lossy_pool", "0", "3"},
	} {
		db.Set("BUFFER_PROFILE", name, "pool", f[0])
		db.Set("BUFFER_PROFILE", name, "size", f[1])
		db.Set("BUFFER_PROFILE", name, "dynamic_th", f[2])
	}
	stockPG := "NULL"
	if model != "dynamic" {
		stockPG = LosslessProfile("100000", "5m")
		db.Set("BUFFER_PROFILE", stockPG, "pool", "ingress_lossless_pool")
		db.Set("BUFFER_PROFILE", stockPG, "size", "19456")
		db.Set("BUFFER_PROFILE", stockPG, "xon", "19456")
		db.Set("BUFFER_PROFILE", stockPG, "xoff", LosslessXoff("100000", "5m"))
		db.Set("BUFFER_PROFILE", stockPG, "dynamic_th", "1")
	}
	for i := 0; i < o.Ports; i++ {
		name := SONiCPort(i)
		lanes := make([]string, 4)
		for l := range lanes {
			lanes[l] = strconv.Itoa(4*i + l)
		}
		for f, v := range map[string]string{
			"lanes": strings.Join(lanes, ","), "alias": fmt.Sprintf("etp%d", i+1), "index": strconv.Itoa(i + 1),
			"speed": "100000", "admin_status": "up", "mtu": "9100",
		} {
			db.Set("PORT", name, f, v)
		}
		db.Set("BUFFER_PG", name+"|0", "profile", "ingress_lossy_profile")
		db.Set("BUFFER_PG", name+"|3-4", "profile", stockPG)
		db.Set("CABLE_LENGTH", "AZURE", name, "5m")
	}
	if !o.Foreign || o.Ports == 0 {
		return db
	}
	last := SONiCPort(o.Ports - 1)
	db.Set("PORT", last, "description", UplinkDescription)
	for dscp := 0; dscp < 64; dscp++ {
		db.Set("DSCP_TO_TC_MAP", "AZURE", strconv.Itoa(dscp), AzureTC(dscp))
	}
	db.Set("VLAN", "Vlan10", "vlanid", "10")
	db.Set("VLAN_MEMBER", "Vlan10|"+last, "tagging_mode", "tagged")
	// MGMT_INTERFACE names its port, which sonic-mgmt_interface.yang
	// requires in MGMT_PORT.
	db.Set("MGMT_PORT", "eth0", "alias", "eth0")
	db.Set("MGMT_PORT", "eth0", "admin_status", "up")
	db.Set("MGMT_INTERFACE", "eth0|192.0.2.13/24", "gwaddr", "192.0.2.1")
	db.Set("LLDP", "GLOBAL", "enabled", "true")
	return db
}

// AzureTC is the traffic class SONiC's stock AZURE DSCP map gives a DSCP
// on a Mellanox switch (sonic-buildimage's Mellanox qos templates, as
// sonic-config-engine's sample output qos-mellanox4600c-c64.json renders
// them): 2, 3, 4 and 6 to their own class, 8 to 0, 46 to 5, 48 to 7 and
// every other DSCP to 1.
func AzureTC(dscp int) string {
	switch dscp {
	case 2, 3, 4, 6:
		return strconv.Itoa(dscp)
	case 8:
		return "0"
	case 46:
		return "5"
	case 48:
		return "7"
	}
	return "1"
}

// LosslessProfile is the name buffermgrd gives the lossless profile of a
// port speed and cable length: pg_lossless_<speed>_<cable>_profile.
func LosslessProfile(speed, cable string) string {
	return "pg_lossless_" + speed + "_" + cable + "_profile"
}

// LosslessXoff is a plausible xoff in bytes for a generated lossless
// profile: more for faster and longer links. Real values come from the
// SKU's pg_profile_lookup.ini; a simulator only needs them to grow.
func LosslessXoff(speed, cable string) string {
	switch {
	case strings.HasPrefix(speed, "400"):
		return "154112"
	case strings.HasPrefix(speed, "200"):
		return "87040"
	case strings.HasPrefix(speed, "100"):
		if cable == "5m" {
			return "50176"
		}
		return "62464"
	}
	return "38912"
}
