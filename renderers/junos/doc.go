// Package junos renders the lossless RoCE configuration of Juniper QFX
// switches as Junos `set` statements, and parses `show configuration | display set`.
package junos
