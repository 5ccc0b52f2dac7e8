// Package perftest runs linux-rdma perftest (ib_write_bw, ib_send_lat, ...)
// between two hosts over SSH and parses its text and JSON reports.
package perftest
