package intent

// APIVersion and Kind every intent document carries.
const (
	APIVersion = "rocefab.io/v1alpha1"
	Kind       = "Fabric"
)

// Document is one intent file. A fabric may span several documents in a
// directory; lists are merged and fabric-wide sections may be set once.
type Document struct {
	Src
	APIVersion string   `yaml:"apiVersion" rf:"required"`
	Kind       string   `yaml:"kind" rf:"required"`
	Metadata   Metadata `yaml:"metadata"`
	Spec       Spec     `yaml:"spec" rf:"required"`
}

// Metadata names the fabric.
type Metadata struct {
	Src
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

// Spec is the body of a fabric intent.
type Spec struct {
	Src
	// Lossless is the fabric-wide lossless policy; every field defaults.
	Lossless *LosslessSpec `yaml:"lossless"`
	Security *SecuritySpec `yaml:"security"`
	Probe    *ProbeSpec    `yaml:"probe"`
	Groups   []GroupSpec   `yaml:"groups"`
	Switches []SwitchSpec  `yaml:"switches"`
	Hosts    []HostSpec    `yaml:"hosts"`
	Links    []LinkSpec    `yaml:"links"`
}

// LosslessSpec is the lossless policy. At fabric level it is the base;
// groups and devices override single fields (device > group > fabric).
// Pointer fields distinguish "not written" from a zero value.
type LosslessSpec struct {
	Src
	// Profile is how this fabric runs RoCE: dcqcn (ECN and PFC), pfc-only,
	// or ecn-only (lossy).
	Profile *string `yaml:"profile" enum:"dcqcn|pfc-only|ecn-only"`
	// VLAN is the lossless VLAN; omit it on routed fabrics.
	VLAN *int `yaml:"vlan"`
	// NoDropPriority is the lossless priority / traffic class.
	NoDropPriority *int `yaml:"noDropPriority"`
	// RoCEDSCP is the set of DSCP values that carry RoCE.
	RoCEDSCP []int `yaml:"roceDscp"`
	// Trust classifies by dscp or pcp.
	Trust *string  `yaml:"trust" enum:"dscp|pcp"`
	CNP   *CNPSpec `yaml:"cnp"`
	ECN   *ECNSpec `yaml:"ecn"`
	PFC   *PFCSpec `yaml:"pfc"`
	MTU   *MTUSpec `yaml:"mtu"`
	// RoCEMode is the RoCE version hosts must use.
	RoCEMode *string `yaml:"roceMode" enum:"v2|v1"`
	// PlatformDefaults lists fields (e.g. pfc.cableLength) whose explicit
	// value a platform that cannot render it may leave at its own default.
	// Without it, such a setting is an error (RF131): never dropped
	// silently.
	PlatformDefaults []string `yaml:"platformDefaults"`
}

// CNPSpec is how congestion notification packets are classified.
type CNPSpec struct {
	Src
	DSCP     *int `yaml:"dscp"`
	Priority *int `yaml:"priority"`
}

// ECNSpec is WRED/ECN marking on the lossless queue.
type ECNSpec struct {
	Src
	MinThreshold    *Bytes `yaml:"minThreshold"`
	MaxThreshold    *Bytes `yaml:"maxThreshold"`
	MarkProbability *int   `yaml:"markProbability"`
}

// PFCSpec is priority flow control.
type PFCSpec struct {
	Src
	Enabled    *bool  `yaml:"enabled"`
	Priorities []int  `yaml:"priorities"`
	Headroom   *Bytes `yaml:"headroom"`
	Xoff       *Bytes `yaml:"xoff"`
	Xon        *Bytes `yaml:"xon"`
	// CableLength sizes headroom where the platform computes it.
	CableLength *Meters       `yaml:"cableLength"`
	Watchdog    *WatchdogSpec `yaml:"watchdog"`
}

// WatchdogSpec is the PFC watchdog (storm detection).
type WatchdogSpec struct {
	Src
	Enabled         *bool     `yaml:"enabled"`
	DetectionTime   *Duration `yaml:"detectionTime"`
	RestorationTime *Duration `yaml:"restorationTime"`
	Action          *string   `yaml:"action" enum:"drop|forward"`
}

// MTUSpec holds L3 (IP) MTUs; renderers add the L2 header where a platform
// counts it.
type MTUSpec struct {
	Src
	Switch *SwitchMTU `yaml:"switch"`
	Host   *int       `yaml:"host"`
}

// SecuritySpec may carry only paths. Turning verification off is a CLI flag,
// never an intent field, so a pull request cannot switch it off.
type SecuritySpec struct {
	Src
	CABundle   string `yaml:"caBundle"`
	KnownHosts string `yaml:"knownHosts"`
}

// Credentials are a reference to a secret, never the secret.
type Credentials struct {
	Src
	Username     string `yaml:"username"`
	UsernameEnv  string `yaml:"usernameEnv"`
	PasswordEnv  string `yaml:"passwordEnv"`
	PasswordFile string `yaml:"passwordFile"`
	// Password and Token exist only to reject inline secrets (RF008).
	Password string `yaml:"password"`
	Token    string `yaml:"token"`
}

// TLSSpec is the client side of gNMI TLS.
type TLSSpec struct {
	Src
	ClientCert string `yaml:"clientCert"`
	ClientKey  string `yaml:"clientKey"`
	ServerName string `yaml:"serverName"`
}

// DeviceAttrs are the switch attributes a group can set for its members.
type DeviceAttrs struct {
	Platform    string       `yaml:"platform"`
	Transport   string       `yaml:"transport" enum:"gnmi|ssh|netlink"`
	Credentials *Credentials `yaml:"credentials"`
	TLS         *TLSSpec     `yaml:"tls"`
	// Model and OSVersion pick output variants (EOS uc-tx-queue vs tx-queue,
	// NX-OS 8q vs 4q classes).
	Model     string `yaml:"model"`
	OSVersion string `yaml:"osVersion"`
	// PortSpeed is the speed of the switch's ports (100G, 400G or
	// unknown); a ports entry's speed wins. It sizes PFC headroom.
	PortSpeed *Speed `yaml:"portSpeed"`
	// ASIC is the switch chip (spectrum-3, tomahawk-4, ...), whose buffer
	// facts size headroom, or only SONiC's asic_type (mellanox, broadcom).
	ASIC       string          `yaml:"asic"`
	OpenConfig *OpenConfigSpec `yaml:"openconfig"`
	// Netns is the network namespace of a linux switch on this machine.
	Netns string `yaml:"netns"`
	// Sections are the platforms' own settings, each under a key named
	// after its platform, which owns and decodes it.
	Sections
}

// OpenConfigSpec: OpenConfig has no PFC model, so a device on it declares
// the vendor-native fallback that carries PFC.
type OpenConfigSpec struct {
	Src
	PFCFallback *PFCFallbackSpec `yaml:"pfcFallback"`
}

// PFCFallbackSpec names the native platform whose PFC configuration is sent
// alongside the OpenConfig paths, or PFCFallbackNone.
type PFCFallbackSpec struct {
	Src
	Platform string `yaml:"platform" rf:"required"`
}

// PFCFallbackNone declares that the device's PFC is not rocefab's: it
// renders the OpenConfig part only, and the plan says PFC is not
// expressible there.
const PFCFallbackNone = "none"

// GroupSpec shares attributes and overrides among many devices.
type GroupSpec struct {
	Src
	Name        string `yaml:"name" rf:"required"`
	DeviceAttrs `yaml:",inline"`
	Overrides   *LosslessSpec `yaml:"overrides"`
}

// SwitchSpec is one switch.
type SwitchSpec struct {
	Src
	Name        string   `yaml:"name" rf:"required"`
	Group       string   `yaml:"group"`
	Address     *Address `yaml:"address"`
	DeviceAttrs `yaml:",inline"`
	Ports       []PortSpec    `yaml:"ports"`
	Overrides   *LosslessSpec `yaml:"overrides"`
}

// PortSpec is a set of RoCE-facing ports sharing a mode.
type PortSpec struct {
	Src
	Names PortNames `yaml:"names" rf:"required"`
	Mode  string    `yaml:"mode" enum:"routed|trunk|access"`
	// LAG is the port-channel the ports belong to, if any.
	LAG string `yaml:"lag"`
	// Speed of these ports (100G, 400G or unknown); overrides portSpeed.
	Speed *Speed `yaml:"speed"`
}

// HostSpec is one server with RDMA NICs.
type HostSpec struct {
	Src
	Name        string        `yaml:"name" rf:"required"`
	Group       string        `yaml:"group"`
	Address     *Address      `yaml:"address"`
	Credentials *Credentials  `yaml:"credentials"`
	NICs        []NICSpec     `yaml:"nics"`
	Overrides   *LosslessSpec `yaml:"overrides"`
	// Netns is the network namespace of a lab host on this machine.
	Netns string `yaml:"netns"`
}

// NICSpec is one RDMA NIC port.
type NICSpec struct {
	Src
	Netdev     string `yaml:"netdev" rf:"required"`
	RDMADevice string `yaml:"rdmaDevice"`
	RDMAPort   int    `yaml:"rdmaPort"`
	// Address is the NIC's RoCE address, used by the probe.
	Address string `yaml:"address"`
}

// LinkSpec is one cable: "host:netdev" or "switch:port" at each end.
type LinkSpec struct {
	Src
	A Endpoint `yaml:"a" rf:"required"`
	B Endpoint `yaml:"b" rf:"required"`
	// Length of the cable (30m, 1km); it sizes PFC headroom at both ends.
	Length *Meters `yaml:"length"`
	// AAddress and BAddress are the IP addresses of switch ends on a routed
	// link. Routers answer path discovery from them, so they map a hop to
	// its port and link.
	AAddress string `yaml:"aAddress"`
	BAddress string `yaml:"bAddress"`
}

// ProbeSpec configures the RoCEv2 probe.
type ProbeSpec struct {
	Src
	// Pairs: "cabling" derives pairs (all hosts under one leaf, plus a sample
	// across leaves); "listed" uses List only.
	Pairs *string `yaml:"pairs" enum:"cabling|listed"`
	// CrossLeafSample is how many cross-leaf pairs to probe per leaf pair.
	CrossLeafSample *int       `yaml:"crossLeafSample"`
	List            []PairSpec `yaml:"list"`
	// Sizes are payload sizes to send; the MTU sweep adds its own.
	Sizes    []int     `yaml:"sizes"`
	Count    *int      `yaml:"count"`
	Duration *Duration `yaml:"duration"`
	RatePPS  *int      `yaml:"ratePps"`
	PKey     *int      `yaml:"pkey"`
	QPMin    *int      `yaml:"qpMin"`
	QPMax    *int      `yaml:"qpMax"`
	// MaxLossPercent is tolerated loss, for the lossy ecn-only profile.
	MaxLossPercent *float64 `yaml:"maxLossPercent"`
}

// PairSpec is a listed probe pair of host names.
type PairSpec struct {
	Src
	From string `yaml:"from" rf:"required"`
	To   string `yaml:"to" rf:"required"`
}
