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
// Counters, OpenConfig (uint64; JSON_IETF strings in Get, uint_val in
// Subscribe), as openconfig-if-ethernet and openconfig-qos-interfaces
// define them (queue names from CounterOptions.QueueName):
//
//	/interfaces/interface[name=P]/ethernet/state/counters/in-mac-pause-frames   (sum over priorities)
//	/interfaces/interface[name=P]/ethernet/state/counters/out-mac-pause-frames
//	/qos/interfaces/interface[interface-id=P]/output/queues/queue[name=Q]/state/transmit-pkts
//	/qos/interfaces/interface[interface-id=P]/output/queues/queue[name=Q]/state/dropped-pkts
//	/qos/interfaces/interface[interface-id=P]/output/queues/queue[name=Q]/state/ecn-marked-pkts
//
// OpenConfig has no per-priority PFC counters and none are served. The
// SONiC personality (or Options.CountersDB) serves COUNTERS_DB under
// target COUNTERS_DB as sonic-net/sonic-gnmi's virtual paths present it
// (sonic_data_client/virtual_db.go, gnmi_server tests and testdata):
//
//	COUNTERS/P                 the port's fields as one JSON object
//	COUNTERS/P/FIELD           one field as string_val, e.g. SAI_PORT_STAT_PFC_3_RX_PKTS or _RX_PAUSE_DURATION_US
//	COUNTERS/P/Queues          {"P:N": {SAI_QUEUE_STAT_PACKETS, _DROPPED_PACKETS, _WRED_ECN_MARKED_PACKETS}}
//	COUNTERS/P/Pfcwd           {"P:N": {PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED, PFC_WD_STATUS, ...}}
//
// A port the switch lacks is NotFound, as sonic-gnmi answers.
package gnmisim
