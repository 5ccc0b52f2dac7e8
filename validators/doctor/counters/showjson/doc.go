// Package showjson reads switch counters from show commands with JSON
// output, for platforms driven over SSH without gNMI. Each platform
// registers its commands and parsers, cited beside them
// (renderers.Attributes.ShowCounters); this package runs them and keeps
// the lossless priorities' counters.
package showjson
