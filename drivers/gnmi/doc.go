// Package gnmi is the gNMI transport: Capabilities, Get, one atomic Set,
// commit-confirmed, and Subscribe for RoCE counters.
//
// Fetch reads the owned scope with one Get per origin (type CONFIG, or ALL
// where the mapping says so; JSON_IETF, or JSON when the target lacks it)
// and hands Platform.Parse a
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
// Platform.GNMI adapts this to a target's conventions (devcfg.GNMIMapping):
// Root elements every path of the platform's origin carries on the wire
// (SONiC: /CONFIG_DB/localhost), Get type ALL where the target serves no
// other (sonic-gnmi), and JSONPatch targets, which apply a SetRequest as one
// RFC 6902 patch (sonic-gnmi's sonic-db origin): the driver reads the
// tables a push touches, writes new entries and tables whole, removes an
// entry or table rather than leaving it empty, and takes JSON_IETF only.
// The scope's Reads are fetched beside the owned paths, and Fetch records
// the advertised models and any other origin the target would not answer
// in the running config's Facts, for the platform's Fit. A SetRequest that
// mixes origins is refused before sending to a target that advertises
// sonic-db (sonic-gnmi takes one origin per request).
//
// Push sends ONE SetRequest: deletes, replaces (leaf-list and container
// values, whose whole value is meant) and updates (scalars). Origin cli
// has no paths and no delete: its updates' CLI texts and the "no" forms of
// its deletes go out as one update at the empty cli path whose value is
// ascii_val (cli.go). A delete of an
// OpenConfig list entry's own key leaf (.../list[name=X]/config/name)
// deletes the entry, so defaults the target reports go with it. With a
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
