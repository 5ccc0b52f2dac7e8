// Package gnmi is the gNMI transport: Capabilities, Get, one atomic Set,
// commit-confirmed, and Subscribe for RoCE counters.
//
// Fetch reads the owned scope with one Get per origin (type CONFIG,
// JSON_IETF, or JSON when the target lacks it) and hands Platform.Parse a
// flat JSON object of leaf path → JSON value, keys sorted, e.g.
//
//	{"/interfaces/interface[name=Ethernet1]/config/mtu":9216,
//	 "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold":"150000",
//	 "sonic-db:/PORT_QOS_MAP/Ethernet0/pfc_enable":"3"}
//
// Paths are devcfg.Paths strings: "/a/b[k=v]/c", keys sorted by name, an
// "origin:" prefix unless the origin is openconfig. Values are canonical
// JSON as the target sent them (RFC 7951: uint64 as strings). Without a
// schema, JSON_IETF subtrees are flattened by the OpenConfig convention
// that a list entry's keys are its direct scalar members (siblings of
// config/state); module prefixes ("openconfig-qos:qos") are stripped; in
// other origins (sonic-db, cli) objects are maps and arrays are values.
// See package gnmipath. A path the target does not have reads as empty.
//
// Push sends ONE SetRequest: deletes, replaces (leaf-list and container
// values, whose whole value is meant) and updates (scalars). With a
// confirm window it carries the gnmi_ext Commit extension (id,
// rollback_duration; Confirm and Rollback send confirm and cancel) when
// the target advertised it in Capabilities; otherwise rocefab snapshots
// the region the patch touches, and a timer restores it with one Set
// unless confirmed (Close rolls back what is still pending).
//
// Security: TLS with verification against Options.TLS.CAFile (or the
// system roots) by default, mTLS with CertFile/KeyFile, Insecure only by
// option, Plaintext for tests. Username and password travel as gRPC
// metadata and never appear in logs or errors. Unavailable,
// ResourceExhausted and Aborted are retried with backoff;
// Unauthenticated/PermissionDenied map to drivers.ErrAuth and an
// unverified certificate to drivers.ErrTrust, neither retried.
//
// Counters and Subscribe (ONCE, SAMPLE) read PFC pause and ECN-mark
// counters; see drivers/sim/gnmisim for the paths the simulator serves
// (OpenConfig in-/out-mac-pause-frames and queue ecn-marked-pkts, and the
// SONiC COUNTERS_DB names).
package gnmi
