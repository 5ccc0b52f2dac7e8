// Package gnmisim is an in-process gNMI target for tests and `rocefab demo`:
// a transactional in-memory tree per origin, commit-confirmed, moving
// RoCE counters, TLS and password auth, and fault injection.
//
// Personalities: OpenConfig (origin openconfig, plus an opaque "cli"
// origin for vendor-native fallbacks) and SONiC (origin "sonic-db" holding
// config_db tables as /TABLE/key/field; it generates
// BUFFER_PROFILE pg_lossless_<speed>_<cable>_profile for ports with
// pfc_enable, points BUFFER_PG entries written as "NULL" at it, and fills
// WRED_PROFILE wred_yellow_enable/wred_red_enable = "false").
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
