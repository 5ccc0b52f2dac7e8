package gnmisim

import (
	"strconv"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/sim/factory"
)

// SONiCFactory is the factory CONFIG_DB of a SONiC switch (factory.SONiC)
// as sonic-db leaves, for Load: a push to a CONFIG_DB without PORT lanes
// fails validation, as on a switch.
func SONiCFactory(o factory.SONiCOptions) devcfg.Paths {
	p := devcfg.Paths{}
	for table, entries := range factory.SONiC(o) {
		for key, fields := range entries {
			for field, v := range fields {
				p[sonicKey(table, key, field)] = devcfg.String(v)
			}
		}
	}
	return p
}

// OpenConfigFactory is what an OpenConfig target carries before rocefab:
// its hostname, ports Ethernet1..N enabled at the 1514-byte factory MTU
// and, configuration rocefab does not own, a description on the last.
func OpenConfigFactory(hostname string, ports int) devcfg.Paths {
	p := devcfg.Paths{"/system/config/hostname": devcfg.String(hostname)}
	for i := 1; i <= ports; i++ {
		port := "/interfaces/interface[name=Ethernet" + strconv.Itoa(i) + "]/config/"
		p[port+"name"] = devcfg.String("Ethernet" + strconv.Itoa(i))
		p[port+"enabled"] = devcfg.Bool(true)
		p[port+"mtu"] = devcfg.Int(1514)
	}
	if ports > 0 {
		p["/interfaces/interface[name=Ethernet"+strconv.Itoa(ports)+"]/config/description"] = devcfg.String(factory.UplinkDescription)
	}
	return p
}
