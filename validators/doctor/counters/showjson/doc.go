// Package showjson reads switch counters from show commands with JSON
// output, for platforms driven over SSH without gNMI: NX-OS `| json`, EOS
// `| json`, Cumulus NVUE `-o json` and Junos `| display json`. Each
// platform's commands and JSON shapes are cited in sources.go.
package showjson
