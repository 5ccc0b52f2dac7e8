package all

import (
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/netlink"
	"github.com/rocefab/rocefab/drivers/ssh"
)

// registrations is the one list of transports.
var registrations = []func(*drivers.Registry) error{
	gnmi.Register,
	netlink.Register,
	ssh.Register,
}

// Drivers returns a registry with every transport.
func Drivers() *drivers.Registry {
	r := drivers.NewRegistry()
	for _, register := range registrations {
		if err := register(r); err != nil {
			panic(err) // a programming error: duplicate transport
		}
	}
	return r
}
