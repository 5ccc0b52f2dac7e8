package intent

import "time"

// Defaults follow the reference values in shared/reference/vendor-configs.md
// (NVIDIA's lossless RoCE conventions). docs/intent.md lists them.
const (
	DefaultProfile          = ProfileDCQCN
	DefaultNoDropPriority   = 3
	DefaultRoCEDSCP         = 26
	DefaultTrust            = "dscp"
	DefaultCNPDSCP          = 48
	DefaultCNPPriority      = 6
	DefaultECNMin           = 150000  // bytes
	DefaultECNMax           = 1500000 // bytes
	DefaultMarkProbability  = 100     // percent
	DefaultHostMTU          = 9000
	DefaultRoCEMode         = "v2"
	DefaultProbePairs       = "cabling"
	DefaultCrossLeafSample  = 2
	DefaultProbeCount       = 200
	DefaultProbeRatePPS     = 2000
	DefaultProbePKey        = 0x8F00 // the probe's own partition (full member); not the default 0xFFFF
	DefaultProbeQPMin       = 0xF00000
	DefaultProbeQPMax       = 0xF0FFFF
	DefaultLossyLossPercent = 1.0 // tolerated loss for ecn-only
	// DefaultWatchdogAction drops the stormed queue's traffic until it
	// restores. Platforms whose own default is harsher (EOS error-disables
	// the whole port) get it rendered explicitly; docs/intent.md lists what
	// each platform does.
	DefaultWatchdogAction = "drop"
)

// Congestion profiles.
const (
	ProfileDCQCN   = "dcqcn"    // ECN marking and PFC
	ProfilePFCOnly = "pfc-only" // PFC, no ECN (as Meta runs its AI fabric)
	ProfileECNOnly = "ecn-only" // ECN, no PFC: lossy RoCE
)

// DefaultProbeSizes are payload sizes probed besides the MTU sweep.
var DefaultProbeSizes = []int{64, 1024, 4096}

// DefaultProbeDuration bounds a probe run when Count is not reached.
const DefaultProbeDuration = 5 * time.Second

// DefaultPolicy is the lossless policy of a fabric that writes none.
func DefaultPolicy() Policy { return defaultPolicy(&Fabric{}) }
