package demo

import _ "embed"

// Template is fabric.yaml.tmpl: a text/template over the intent YAML. The
// demo (agent/demo) fills in the simulators' addresses, the trust files and
// the namespace names.
//
//go:embed fabric.yaml.tmpl
var Template string
