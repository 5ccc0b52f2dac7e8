package lint

import (
	"github.com/rocefab/rocefab/intent"
)

// Rule is one documented lint rule.
type Rule struct {
	Code     string
	Severity intent.Severity
	Summary  string
}

// Rule codes. They are stable: never renumber, only add.
const (
	CodeVLANRange          = "RF101"
	CodePriorityRange      = "RF102"
	CodeDSCPRange          = "RF103"
	CodeECNOrder           = "RF104"
	CodeECNNearXoff        = "RF105"
	CodeHostMTUFit         = "RF106"
	CodeCNPIsNoDrop        = "RF107"
	CodeCNPPFC             = "RF108"
	CodeDSCPOverlap        = "RF109"
	CodeTooManyNoDrop      = "RF110"
	CodeDuplicateAddress   = "RF111"
	CodePortName           = "RF112"
	CodeNICNotCabled       = "RF113"
	CodeUnknownPlatform    = "RF114"
	CodeTransport          = "RF115"
	CodeMTUCeiling         = "RF116"
	CodeQueueBuffer        = "RF117"
	CodeOpenConfigPFC      = "RF118"
	CodeLinkNotRoCEPort    = "RF119"
	CodeMarkProbability    = "RF120"
	CodeNoDropWithoutPFC   = "RF121"
	CodeProfileMismatch    = "RF122"
	CodeProbeSettings      = "RF123"
	CodeRoCEv1             = "RF124"
	CodeCabledTwice        = "RF125"
	CodeRoCEActiveMTU      = "RF126"
	CodeMissingAddress     = "RF127"
	CodePCPNeedsVLAN       = "RF128"
	CodeSwitchedNeedsVLAN  = "RF129"
	CodeWatchdogTime       = "RF130"
	CodeNotRendered        = "RF131"
	CodeLinkAddress        = "RF132"
	CodeOpenConfigNoPFC    = "RF133"
	CodeXoffBelowHeadroom  = "RF134"
	CodeHeadroomOverBuffer = "RF135"
	CodeHeadroomAssumed    = "RF136"
	CodeRender             = "RF137"
	CodeLinkEnds           = "RF138"
	CodeHostLink           = "RF139"
	CodePlatformDefaults   = "RF140"

	// CodeWatchdogDefault is RF131's first name, when it covered watchdog
	// times only.
	CodeWatchdogDefault = CodeNotRendered
)

// Rules lists every lint rule, for documentation and `rocefab validate --rules`.
var Rules = []Rule{
	{CodeVLANRange, intent.SeverityError, "the lossless VLAN is 1..4094"},
	{CodePriorityRange, intent.SeverityError, "priorities (no-drop, CNP, PFC) are 0..7"},
	{CodeDSCPRange, intent.SeverityError, "DSCP values are 0..63 and the RoCE DSCP set is not empty"},
	{CodeECNOrder, intent.SeverityError, "ECN minimum threshold is below the maximum"},
	{CodeECNNearXoff, intent.SeverityWarning, "ECN minimum is well below an explicit PFC xoff, so DCQCN reacts before pauses"},
	{CodeHostMTUFit, intent.SeverityError, "host MTU plus RoCE headers fits every switch MTU: RoCE never fragments"},
	{CodeCNPIsNoDrop, intent.SeverityError, "the CNP priority differs from the no-drop priority"},
	{CodeCNPPFC, intent.SeverityError, "the CNP priority is not PFC-enabled"},
	{CodeDSCPOverlap, intent.SeverityError, "the RoCE and CNP DSCP sets do not overlap"},
	{CodeTooManyNoDrop, intent.SeverityError, "no more no-drop priorities than the platform supports"},
	{CodeDuplicateAddress, intent.SeverityError, "no two devices share a management address"},
	{CodePortName, intent.SeverityError, "port names are valid for the platform"},
	{CodeNICNotCabled, intent.SeverityError, "every host NIC is cabled to a RoCE port"},
	{CodeUnknownPlatform, intent.SeverityError, "every switch names a known platform"},
	{CodeTransport, intent.SeverityError, "the platform supports the transport"},
	{CodeMTUCeiling, intent.SeverityError, "the switch MTU is within the platform's ceiling"},
	{CodeQueueBuffer, intent.SeverityError, "ECN needs the queue buffer size or fill levels in percent where the platform takes thresholds so"},
	{CodeOpenConfigPFC, intent.SeverityError, "an OpenConfig device declares a vendor-native PFC fallback"},
	{CodeLinkNotRoCEPort, intent.SeverityError, "a cabled switch port is one of the switch's RoCE ports"},
	{CodeMarkProbability, intent.SeverityError, "the ECN mark probability is 1..100 percent"},
	{CodeNoDropWithoutPFC, intent.SeverityError, "PFC covers the no-drop priority"},
	{CodeProfileMismatch, intent.SeverityWarning, "settings the congestion profile ignores (PFC on ecn-only, ECN on pfc-only)"},
	{CodeProbeSettings, intent.SeverityError, "probe P_Key, QP range, sizes, count and listed pairs are valid"},
	{CodeRoCEv1, intent.SeverityError, "RoCE v1 is not routable; fabrics run RoCE v2"},
	{CodeCabledTwice, intent.SeverityError, "a port or NIC is cabled once"},
	{CodeRoCEActiveMTU, intent.SeverityWarning, "host MTU of at least 4200 lets RoCE use its 4096-byte active MTU"},
	{CodeMissingAddress, intent.SeverityError, "switches and hosts managed remotely have a management address"},
	{CodePCPNeedsVLAN, intent.SeverityError, "trust pcp needs a lossless VLAN: untagged frames carry no PCP"},
	{CodeSwitchedNeedsVLAN, intent.SeverityError, "trunk and access ports need the lossless VLAN"},
	{CodeWatchdogTime, intent.SeverityError, "PFC watchdog times are ones the platform can express"},
	{CodeNotRendered, intent.SeverityError, "an explicit setting the platform does not render (it keeps its own default), unless lossless.platformDefaults accepts it"},
	{CodeLinkAddress, intent.SeverityError, "a link address is an IP address of a switch end, used once"},
	{CodeOpenConfigNoPFC, intent.SeverityWarning, "an OpenConfig device whose PFC rocefab cannot express (pfcFallback none, or a platform whose gNMI server takes one origin per request)"},
	{CodeXoffBelowHeadroom, intent.SeverityError, "an explicit PFC xoff holds what every lossless port still receives after it pauses"},
	{CodeHeadroomOverBuffer, intent.SeverityError, "the headroom of all lossless ports fits the ASIC's packet buffer"},
	{CodeHeadroomAssumed, intent.SeverityWarning, "port speed and cable length are written where rocefab computes headroom"},
	{CodeRender, intent.SeverityError, "every switch and host renders: what plan would refuse, validate refuses, at the field that causes it"},
	{CodeLinkEnds, intent.SeverityError, "both ends of a switch link agree on the lossless class: no-drop priority, PFC priorities, RoCE DSCPs, trust, CNP class (MTU: a warning)"},
	{CodeHostLink, intent.SeverityError, "a host NIC and its switch port agree: DSCP/PCP classification, PFC, trust, CNP, MTU, VLAN, ToS (some are warnings)"},
	{CodePlatformDefaults, intent.SeverityError, "lossless.platformDefaults lists fields a platform may keep at its default"},
}
