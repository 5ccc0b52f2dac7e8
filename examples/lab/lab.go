// Package lab holds the lab fabric's topology and intent, so the tests that
// build it in network namespaces read the same files as up.sh and the user.
package lab

import _ "embed"

// Topology is ./topology: the steps that build the lab (see its header).
//
//go:embed topology
var Topology string

// Intent is ./fabric.yaml, the lab's intent.
//
//go:embed fabric.yaml
var Intent []byte
