// Package gnmisim is an in-process gNMI target for tests and `rocefab demo`:
// a transactional in-memory tree per origin, commit-confirmed, moving
// RoCE counters, TLS and password auth, and fault injection.
//
// Personalities: OpenConfig (origin openconfig, plus origin "cli" for
// vendor-native fallbacks, taken as EOS takes it: one update at the empty
// path whose ascii_val is CLI text, "no" lines included; cli.go) and SONiC, which serves CONFIG_DB as
// sonic-net/sonic-gnmi does, written from its source (sonic.go): origin
// "sonic-db" with paths /CONFIG_DB/localhost/TABLE/key/field, a prefix
// target CONFIG_DB for read-only /TABLE/key/field Gets, Get type ALL only,
// JSON_IETF values, one origin per SetRequest, and Set applied as one JSON
// patch (an add needs its parent, no empty tables) followed by a check of
// the SONiC YANG constraints a QoS push meets. Under DEVICE_METADATA
// buffer_model other than "dynamic" it plays buffermgrd's traditional
// model: a pfc_enable, speed or cable change makes it write
// BUFFER_PG|<port>|<runs> = pg_lossless_<speed>_<cable>_profile. Tests load
// a factory CONFIG_DB (SONiCFactory) first, as a real switch has one.
// Internally the tree keeps rocefab's "sonic-db:/TABLE/key/field" keys.
//
// Counters (uint64; JSON_IETF strings in Get, uint_val in Subscribe):
//
//	/interfaces/interface[name=P]/ethernet/state/counters/in-mac-pause-frames   (sum over priorities)
//	/interfaces/interface[name=P]/ethernet/state/counters/out-mac-pause-frames
//	/interfaces/interface[name=P]/ethernet/pfc/priorities/priority[priority=N]/state/in-pause-frames
//	/interfaces/interface[name=P]/ethernet/pfc/priorities/priority[priority=N]/state/out-pause-frames
//	/interfaces/interface[name=P]/ethernet/pfc/priorities/priority[priority=N]/state/watchdog-storms
//	/qos/interfaces/interface[interface-id=P]/output/queues/queue[name=N]/state/ecn-marked-pkts
//
// The pfc subtree is this simulator's own augment (OpenConfig has no PFC
// model); the rest is OpenConfig. The SONiC personality also serves
// COUNTERS_DB names under origin "sonic-counters":
//
//	sonic-counters:/COUNTERS/P/SAI_PORT_STAT_PFC_N_RX_PKTS
//	sonic-counters:/COUNTERS/P/SAI_PORT_STAT_PFC_N_TX_PKTS
//	sonic-counters:/COUNTERS/P:N/SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS
//	sonic-counters:/COUNTERS/P:N/PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED
package gnmisim
