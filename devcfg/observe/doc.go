// Package observe holds what rocefab reads back from a device, shared by
// the platforms that parse it and the validators that judge it: LLDP
// neighbours, counter samples and the show commands that read them, and
// the JSON walking their parsers have in common. Like devcfg it imports
// nothing else of rocefab.
package observe
