// Package wire encodes and decodes RoCEv2 transport headers (BTH and its
// extension headers, CNP) and computes the ICRC; it never touches a socket.
package wire
