// Package eos renders the lossless RoCE configuration of Arista EOS switches
// as a CLI tree (three-space indentation), and parses `show running-config`.
package eos
