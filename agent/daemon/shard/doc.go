// Package shard splits a fleet between N agents by rendezvous (highest
// random weight) hashing of device names, so resizing moves few devices.
package shard
