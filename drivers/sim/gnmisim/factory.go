package gnmisim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// SONiCFactory is the CONFIG_DB a Mellanox SONiC switch boots with, for
// tests that need a realistic device (a push to a CONFIG_DB without PORT
// lanes fails validation, as on a switch): DEVICE_METADATA|localhost with
// the buffer model ("dynamic" or "traditional"), PORT entries
// Ethernet0, Ethernet4, ... (4 lanes each, 100G, admin up, mtu 9100), the
// ingress pools and profiles and each port's lossy PG 0 and stock lossless
// PGs 3-4, CABLE_LENGTH|AZURE 5m. Its shape follows sonic-buildimage's
// buffers_config.j2 and the Mellanox buffers_defaults templates
// (BUFFER_PG|<port>|3-4 is "NULL" under the dynamic model and
// buffermgrd's generated pg_lossless_100000_5m_profile under the
// traditional one).
func SONiCFactory(hostname string, ports int, bufferModel string) devcfg.Paths {
	p := devcfg.Paths{}
	set := func(table, key, field, value string) { p[sonicKey(table, key, field)] = devcfg.String(value) }
	set("DEVICE_METADATA", "localhost", "hostname", hostname)
	set("DEVICE_METADATA", "localhost", "hwsku", "ACS-MSN2700")
	set("DEVICE_METADATA", "localhost", "platform", "x86_64-mlnx_msn2700-r0")
	set("DEVICE_METADATA", "localhost", "type", "LeafRouter")
	set("DEVICE_METADATA", "localhost", "mac", "98:03:9b:00:00:01")
	set("DEVICE_METADATA", "localhost", "buffer_model", bufferModel)
	for _, pool := range []string{"ingress_lossless_pool", "ingress_lossy_pool"} {
		set("BUFFER_POOL", pool, "type", "ingress")
		set("BUFFER_POOL", pool, "mode", "dynamic")
	}
	set("BUFFER_POOL", "egress_lossless_pool", "type", "egress")
	set("BUFFER_POOL", "egress_lossless_pool", "mode", "dynamic")
	set("BUFFER_PROFILE", "ingress_lossless_profile", "pool", "ingress_lossless_pool")
	set("BUFFER_PROFILE", "ingress_lossless_profile", "size", "0")
	set("BUFFER_PROFILE", "ingress_lossless_profile", "dynamic_th", "7")
	set("BUFFER_PROFILE", "ingress_lossy_profile", "pool", "ingress_lossy_pool")
	set("BUFFER_PROFILE", "ingress_lossy_profile", "size", "0")
	set("BUFFER_PROFILE", "ingress_lossy_profile", "dynamic_th", "3")
	stockPG := "NULL"
	if bufferModel != "dynamic" {
		stockPG = generatedProfile + "100000_5m_profile"
		set("BUFFER_PROFILE", stockPG, "pool", "ingress_lossless_pool")
		set("BUFFER_PROFILE", stockPG, "size", "19456")
		set("BUFFER_PROFILE", stockPG, "xon", "19456")
		set("BUFFER_PROFILE", stockPG, "xoff", headroomFor("100000", "5m"))
		set("BUFFER_PROFILE", stockPG, "dynamic_th", "1")
	}
	for i := 0; i < ports; i++ {
		name := "Ethernet" + strconv.Itoa(4*i)
		lanes := make([]string, 4)
		for l := range lanes {
			lanes[l] = strconv.Itoa(4*i + l)
		}
		set("PORT", name, "lanes", strings.Join(lanes, ","))
		set("PORT", name, "alias", fmt.Sprintf("etp%d", i+1))
		set("PORT", name, "index", strconv.Itoa(i+1))
		set("PORT", name, "speed", "100000")
		set("PORT", name, "admin_status", "up")
		set("PORT", name, "mtu", "9100")
		set("BUFFER_PG", name+"|0", "profile", "ingress_lossy_profile")
		set("BUFFER_PG", name+"|3-4", "profile", stockPG)
		set("CABLE_LENGTH", "AZURE", name, "5m")
	}
	return p
}
