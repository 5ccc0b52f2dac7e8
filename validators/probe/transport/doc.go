// Package transport moves probe datagrams: UDP sockets with DF, per-packet
// DSCP/ECN, kernel timestamps and batching, an in-memory network for tests, and pcap.
package transport
