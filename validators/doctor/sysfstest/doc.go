// Package sysfstest builds fake sysfs trees of RDMA hosts in a test's
// temporary directory, laid out (with symlinks) as a ConnectX host's /sys.
package sysfstest
