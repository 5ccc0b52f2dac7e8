package junos

import "github.com/rocefab/rocefab/renderers"

// Vendor sources of the statements this renderer emits (Attributes.Sources;
// renderers/all tests that every rendered statement matches one form).
// Juniper's pages are under juniper.net/documentation/us/en/software/junos/.
const (
	srcClassifiers = "Juniper, Understanding CoS Classifiers / Defining CoS BA Classifiers (classifiers dscp|ieee-802.1 NAME forwarding-class FC loss-priority low code-points BITS); Juniper Apstra DCQCN configlet"
	srcFC          = "Juniper, Understanding CoS Forwarding Classes (QFX): class NAME queue-num N no-loss, pfc-priority; forwarding classes sharing a queue share its drop attribute; default classes best-effort 0, fcoe 3, no-loss 4, network-control 7"
	srcCNP         = "Juniper, Configure CoS PFC with Congestion Notification Profiles (input dscp code-point BITS pfc for untagged traffic, input ieee-802.1 code-point BITS pfc, output ieee-802.1 code-point BITS flow-control-queue Q); Juniper PFC Watchdog, cos/topics/topic-map/cos-pfc-watchdog-configure.html (pfc-watchdog watches only flow-control-queue queues; defaults 100 ms poll, detection 2, 200 ms recovery)"
	srcCableLength = "Juniper, cable-length (Congestion Notification): [edit class-of-service congestion-notification-profile profile-name input] cable-length meters; Junos sizes the PFC headroom of the interface from the cable length and the MRU; default 100 m; Configure CoS PFC with Congestion Notification Profiles (the input CNP may set the length of the attached cable)"
	srcDrop        = "Juniper, Configuring CoS WRED Drop Profiles (drop-profiles NAME interpolate fill-level / drop-probability, paired in order); Juniper Apstra DCQCN configlet"
	srcSchedulers  = "Juniper, Configuring Schedulers and Scheduler Maps (transmit-rate percent, priority strict-high, drop-profile-map loss-priority any protocol any drop-profile, explicit-congestion-notification; a forwarding class without a scheduler may drop even short bursts); Juniper Apstra DCQCN configlet"
	srcInterfaces  = "Juniper, Interfaces (mtu: media MTU incl. the L2 header; unit 0 family ethernet-switching interface-mode trunk|access, vlan members; ether-options 802.3ad aeN), VLANs (vlans NAME vlan-id N), CoS interfaces (scheduler-map, congestion-notification-profile, unit 0 classifiers)"
)

// Sources are the vendor sources of every Junos statement form.
var Sources = renderers.Sourced(
	`class-of-service classifiers (dscp|ieee-802\.1) ROCEFAB_\w+ forwarding-class \S+ loss-priority low code-points [01]+`, srcClassifiers,
	`class-of-service forwarding-classes class ROCEFAB_\w+ (queue-num \d( no-loss)?|pfc-priority \d)`, srcFC,
	`class-of-service congestion-notification-profile ROCEFAB_\w+ (input (dscp|ieee-802\.1) code-point [01]+ pfc|output ieee-802\.1 code-point [01]+ flow-control-queue \d|pfc-watchdog)`, srcCNP,
	`class-of-service congestion-notification-profile ROCEFAB_\w+ input cable-length \d+`, srcCableLength,
	`class-of-service drop-profiles ROCEFAB_ECN interpolate (fill-level|drop-probability) \d+`, srcDrop,
	`class-of-service schedulers ROCEFAB_\w+ (transmit-rate percent \d+|priority strict-high|drop-profile-map loss-priority any protocol any drop-profile ROCEFAB_ECN|explicit-congestion-notification)`, srcSchedulers,
	`class-of-service scheduler-maps ROCEFAB_SM forwarding-class \S+ scheduler ROCEFAB_\w+`, srcSchedulers,
	`class-of-service interfaces \S+ (scheduler-map ROCEFAB_SM|congestion-notification-profile ROCEFAB_\w+|unit 0 classifiers (dscp|ieee-802\.1) ROCEFAB_\w+)`, srcInterfaces,
	`interfaces \S+ (mtu \d+|unit 0 family ethernet-switching (interface-mode (trunk|access)|vlan members ROCEFAB_LOSSLESS)|ether-options 802\.3ad ae\d+)|vlans ROCEFAB_LOSSLESS vlan-id \d+`, srcInterfaces,
)
