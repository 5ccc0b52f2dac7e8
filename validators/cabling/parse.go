package cabling

import "github.com/rocefab/rocefab/devcfg/observe"

// Parser turns one device's LLDP neighbour output into neighbours, with
// Device set to the name the intent gives that device.
type Parser = observe.LLDPParser

// Parsers are the LLDP parsers of the outputs no one vendor owns, by
// platform: lldpd's lldpcli ("linux" and "host") and openconfig-lldp. A
// switch platform registers its own (renderers.Attributes.LLDP).
var Parsers = map[string]Parser{
	"linux":      ParseLLDPCLI,
	"host":       ParseLLDPCLI,
	"openconfig": ParseOpenConfig,
}

// The JSON walking is shared with the platforms' parsers.
var (
	decode     = observe.DecodeJSON
	str        = observe.Str
	list       = observe.List
	obj        = observe.Obj
	field      = observe.Field
	sortedKeys = observe.SortedKeys
	finish     = observe.FinishNeighbors
)
