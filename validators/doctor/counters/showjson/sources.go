package showjson

// Where each command and JSON shape comes from. The testdata fixtures are
// written in those shapes with rocefab's own numbers. The shared corpus
// holds no switch counter output yet, so the fuzz targets are seeded from
// the fixtures.
var Sources = map[string]string{
	"nxos show queuing interface": "Cisco Nexus 9000 Series NX-OS Show Commands 9.3(x), Q Show Commands (b_N9K_Show_Commands_93x_chapter_010000.html): " +
		"`show queuing` __readonly__ schema, TABLE_queuing_interface <dir> <if_name_str>, TABLE_qosgrp_egress_stats <eq-qosgrp> " +
		"TABLE_qosgrp_egress_stats_entry <eq-stat-type> <eq-stat-units> <eq-uc-stat-value> <eq-oobfc-uc-stat-value> <eq-mc-stat-value>, " +
		"TABLE_pfc_stats <cos> <pfc-qosgrp> <tx-pause-count> <rx-pause-count>; allenrobel/nxapi-netbox lib/nxapi/nxapi_interface_egress_queuing.py " +
		"(TABLE_module/ROW_module wrapper, eq-stat-type values Tx, ECN, \"WRED/AFD & Tail Drop\", units Pkts/Byts, CONTROL and SPAN QOS GROUP rows)",
	"nxos show queuing pfc-queue": "Cisco Nexus 9000 Series NX-OS Show Commands 9.3(x), Q Show Commands: `show queuing pfc-queue [interface] [detail]` " +
		"__readonly__ schema (TABLE_queuing_interface <if_name_str>, TABLE_qosgrp_stats <eq-qosgrp>, TABLE_qosgrp_stats_entry <q-stat-type> " +
		"<q-shutdown> <q-restored> <q-pkt-dropped>); paregupt/nexus_traffic_monitor telegraf/nexus_traffic_monitor_high_frequency.py " +
		"parse_pfcqueuedetail (the JSON over SSH is the body itself, if_name_str \"Ethernet1/1/1 Interface PFC watchdog ...\", eq-qosgrp \"3 \")",
	"eos show interfaces priority-flow-control counters detail": "facebook/DNE-TaaC taac/health_checks/dsf_health_checks/dsf_pfc_health_check.py " +
		"_get_eos_pfc_counters (`show interface <intf> priority-flow-control counters detail | json`, interfaces.<intf>.priorities.<prio> rxFrames/txFrames); " +
		"aristanetworks/anta anta/tests/interfaces.py VerifyInterfacesPFCCounters (rxFrames/txFrames per interface)",
	"eos show priority-flow-control counters watchdog": "facebook/DNE-TaaC taac/health_checks/device_health_checks/pfc_wd_health_check.py " +
		"_get_eos_pfc_wd_counters (interfaces.<intf>.txQueues.<queue> stuckCount/recoveryCount; {\"interfaces\": {}} until the first event); " +
		"Arista EOS User Manual, DCBX and Flow Control, PFC Watchdog (https://www.arista.com/en/um-eos/eos-dcbx-and-flow-control)",
	"eos show qos interfaces ecn counters queue": "aristanetworks/anta anta/tests/interfaces.py VerifyInterfacesECNCounters and " +
		"tests/units/anta_tests/test_interfaces.py (intfQueueCounters.<intf>.queueCounters.<queue> as a string, \"-\" where ECN is off)",
	"eos show interfaces counters queue detail": "aristanetworks/anta anta/tests/interfaces.py VerifyInterfacesEgressQueueDrops and " +
		"tests/units/anta_tests/test_interfaces.py (egressQueueCounters.interfaces.<intf>.ucastQueues|mcastQueues.trafficClasses.TC<n>" +
		".dropPrecedences.DP<k>.droppedPackets)",
	"cumulus nv show interface counters qos": "NVIDIA NVUE Command Reference, Show Commands, `nv show interface <interface-id> counters qos " +
		"pfc-stats|egress-queue-stats` (Cumulus Linux 5.5 and later; 5.4 and earlier `qos counters`), CumulusNetworks/docs " +
		"content/nvue-reference; aliaydemir/lldpq-src-edt lldpq/process_pfc_ecn_data.py and its tests (-o json keys pfc-stats.<prio> " +
		"rx-pause-frames/tx-pause-frames, egress-queue-stats.<tc> tx-frames/ecn-marked-frames/tx-uc-buffer-discards/wred-discards)",
	"junos show interfaces extensive": "Juniper, show interfaces extensive (https://www.juniper.net/documentation/us/en/software/junos/" +
		"interfaces-ethernet-switches/topics/ref/command/show-interfaces-extensive.html), \"MAC Priority Flow Control Statistics\"; " +
		"Junos 22.4 XML of a QFX et- port: ethernet-mac-pfc-statistics <mac-pfc-dot1p> <input-mac-pfc-frames> <output-mac-pfc-frames>, " +
		"ethernet-mac-statistics <input-mac-pause-frames> <output-mac-pause-frames>; `| display json` wraps elements in arrays and leaves in [{\"data\": ...}]",
	"junos show interfaces queue": "opendaylight/nic InterfaceInformationTest.java (Junos 17.2 `show interfaces queue | display json` of a QFX: " +
		"interface-information[].physical-interface[].queue-counters[].queue[] queue-number, queue-counters-trans-packets, " +
		"queue-counters-total-drop-packets, queue-counters-tail-drop-packets-na); Juniper, show interfaces queue " +
		"(https://www.juniper.net/documentation/us/en/software/junos/cos/topics/ref/command/show-interfaces-queue.html)",
}
