package headroom

import (
	"regexp"
	"strings"
)

// ASIC is one switch chip's buffer facts. A zero fact has no published
// source; the calculation uses the generic value documented on the field.
type ASIC struct {
	// Key is how the intent names the chip (asic: spectrum-3).
	Key  string
	Name string
	// Family is SONiC's asic_type for the chip: mellanox, broadcom, barefoot.
	Family string
	// CellSize is the buffer cell in bytes; 0: no cell overhead counted.
	CellSize int
	// PipelineLatency is the ASIC's pipeline latency in bytes, SONiC's xon;
	// 0: not published, xon is 0.
	PipelineLatency int
	// MACPHYDelay is the MAC/PHY delay in bytes; 0: GenericMACPHYDelay.
	MACPHYDelay float64
	// TileBytesPerGbps is extra headroom per Gb/s of port speed (SONiC:
	// 120 bit per Gb/s on Spectrum-4 and -5).
	TileBytesPerGbps float64
	// XoffCompensation is added to xoff (SONiC: 18 KiB on Spectrum-6).
	XoffCompensation int
	// Buffer is the packet buffer all ports share, in bytes; 0: unknown,
	// and the total headroom is not checked against it.
	Buffer uint64
	// MaxSpeedMbps is the fastest port, the speed assumed for a port whose
	// speed is not written; 0: unknown.
	MaxSpeedMbps int
	// Source cites every fact above.
	Source string
}

// Generic is the ASIC used when the chip is not known: no cell overhead,
// the generic MAC/PHY delay, no pipeline latency, no buffer check.
var Generic = ASIC{Key: "", Name: "ASIC unknown", Source: "generic: no cell overhead, SONiC's 0.8 KB MAC/PHY delay, no pipeline latency"}

func (a ASIC) macPHY() float64 {
	if a.MACPHYDelay > 0 {
		return a.MACPHYDelay
	}
	return GenericMACPHYDelay
}

// Known reports whether the chip's facts come from a published source.
func (a ASIC) Known() bool { return a.Key != "" }

// Citations of the per-ASIC facts. Paths are in github.com/sonic-net/
// sonic-buildimage and github.com/facebook/fboss.
const (
	srcSpectrum = "SONiC platform/mellanox/asic_table.j2 (NVIDIA: cell_size, pipeline_latency, mac_phy_delay), sonic-swss cfgmgr/buffer_headroom_mellanox.lua (Spectrum-4/5 tile, Spectrum-6 compensation, 8-lane ports)"
	srcTofino   = "SONiC platform/barefoot/asic_table.j2 (Intel: cell_size, pipeline_latency, mac_phy_delay), sonic-swss cfgmgr/buffer_headroom_barefoot.lua"
	srcFBOSS    = "FBOSS fboss/agent/hw/switch_asics/%sAsic.h (Meta: getMMUCellSize, getMMUSizeBytes, getMaxPortSpeed)"
)

func fboss(name string) string { return strings.Replace(srcFBOSS, "%s", name, 1) }

// ASICs are the chips with published facts.
var ASICs = []ASIC{
	{Key: "spectrum", Name: "Spectrum", Family: "mellanox", CellSize: 96, PipelineLatency: 19 * 1024, MACPHYDelay: 0.8 * 1024,
		Buffer: 13945824, MaxSpeedMbps: 100000,
		Source: srcSpectrum + "; buffer: device/mellanox/x86_64-mlnx_msn2700-r0/ACS-MSN2700/buffers_defaults_t1.j2 egress_lossless_pool_size; fastest port: its platform.json (1x100G)"},
	{Key: "spectrum-2", Name: "Spectrum-2", Family: "mellanox", CellSize: 144, PipelineLatency: 19 * 1024, MACPHYDelay: 0.8 * 1024,
		Buffer: 34287552, MaxSpeedMbps: 200000,
		Source: srcSpectrum + "; buffer: device/mellanox/x86_64-mlnx_msn3700-r0/ACS-MSN3700/buffers_defaults_t1.j2 egress_lossless_pool_size; fastest port: its platform.json (1x200G)"},
	{Key: "spectrum-3", Name: "Spectrum-3", Family: "mellanox", CellSize: 144, PipelineLatency: 19 * 1024, MACPHYDelay: 0.8 * 1024,
		Buffer: 60817392, MaxSpeedMbps: 400000,
		Source: srcSpectrum + "; buffer: device/mellanox/x86_64-mlnx_msn4700-r0/ACS-MSN4700/buffers_defaults_t1.j2 egress_lossless_pool_size; fastest port: its platform.json (1x400G)"},
	{Key: "spectrum-4", Name: "Spectrum-4", Family: "mellanox", CellSize: 192, PipelineLatency: 19 * 1024, MACPHYDelay: 0.8 * 1024,
		TileBytesPerGbps: 15, Buffer: 158229504, MaxSpeedMbps: 800000,
		Source: srcSpectrum + "; buffer: device/mellanox/x86_64-nvidia_sn5600-r0/Mellanox-SN5600-V256/buffers_defaults_t1.j2 egress_lossless_pool_size; fastest port: its platform.json (1x800G)"},
	{Key: "spectrum-5", Name: "Spectrum-5", Family: "mellanox", CellSize: 192, PipelineLatency: 19 * 1024, MACPHYDelay: 0.8 * 1024,
		TileBytesPerGbps: 15, Source: srcSpectrum},
	{Key: "spectrum-6", Name: "Spectrum-6", Family: "mellanox", CellSize: 256, PipelineLatency: 42 * 1024, MACPHYDelay: 0.8 * 1024,
		XoffCompensation: 18 * 1024, Source: srcSpectrum},
	{Key: "tofino-2", Name: "Tofino-2", Family: "barefoot", CellSize: 176, PipelineLatency: 68 * 1024, MACPHYDelay: 0.8 * 1024,
		Source: srcTofino},
	{Key: "trident-2", Name: "Trident2", Family: "broadcom", CellSize: 208, Buffer: 16 * 1024 * 1024, MaxSpeedMbps: 40000,
		Source: fboss("Trident2")},
	{Key: "tomahawk", Name: "Tomahawk", Family: "broadcom", CellSize: 208, Buffer: 16 * 1024 * 1024, MaxSpeedMbps: 100000,
		Source: fboss("Tomahawk")},
	{Key: "tomahawk-3", Name: "Tomahawk3", Family: "broadcom", CellSize: 254, Buffer: 64 * 1024 * 1024, MaxSpeedMbps: 400000,
		Source: fboss("Tomahawk3")},
	{Key: "tomahawk-4", Name: "Tomahawk4", Family: "broadcom", CellSize: 254, Buffer: 2 * 234606 * 254, MaxSpeedMbps: 400000,
		Source: fboss("Tomahawk4")},
	{Key: "tomahawk-5", Name: "Tomahawk5", Family: "broadcom", CellSize: 254, Buffer: 2 * 341080 * 254, MaxSpeedMbps: 800000,
		Source: fboss("Tomahawk5")},
	// FBOSS marks the Tomahawk6 buffer size as to be revisited: no buffer.
	{Key: "tomahawk-6", Name: "Tomahawk6", Family: "broadcom", CellSize: 420, MaxSpeedMbps: 800000,
		Source: fboss("Tomahawk6") + "; cell size also SONiC device/nokia/x86_64-nokia_ixr7220_h6_128-r0 pg_profile_lookup.ini (TH6: 420 bytes)"},
	{Key: "jericho-2", Name: "Jericho2", Family: "broadcom", CellSize: 254, Buffer: 6 * 1024 * 1024 * 1024, MaxSpeedMbps: 400000,
		Source: fboss("Jericho2") + " (usable on-chip and HBM buffer)"},
	{Key: "jericho-3", Name: "Jericho3", Family: "broadcom", CellSize: 254, Buffer: 12 * 1024 * 1024 * 1024, MaxSpeedMbps: 400000,
		Source: fboss("Jericho3") + " (usable on-chip and HBM buffer)"},
}

var keyNoise = strings.NewReplacer("-", "", "_", "", " ", "")

// Lookup finds a chip by its key, ignoring case, dashes and spaces
// ("Spectrum-3", "spectrum3", "tomahawk 4"). "spectrum-1" is Spectrum.
func Lookup(name string) (ASIC, bool) {
	n := keyNoise.Replace(strings.ToLower(strings.TrimSpace(name)))
	if n == "spectrum1" {
		n = "spectrum"
	}
	if n == "" {
		return ASIC{}, false
	}
	for _, a := range ASICs {
		if keyNoise.Replace(a.Key) == n {
			return a, true
		}
	}
	return ASIC{}, false
}

// nvidiaModels maps NVIDIA switch models to their Spectrum generation, as
// SONiC's platform/mellanox/asic_table.j2 maps its platforms
// (x86_64-mlnx_msn2700-r0 is Spectrum, msn3700 Spectrum-2, msn4700
// Spectrum-3, sn5600 Spectrum-4, sn5640 Spectrum-5, sn6600 Spectrum-6).
var nvidiaModels = []struct {
	model *regexp.Regexp
	key   string
}{
	{regexp.MustCompile(`^(M|MSN|SN)2\d{3}`), "spectrum"},
	{regexp.MustCompile(`^(M|MSN|SN)3\d{3}`), "spectrum-2"},
	{regexp.MustCompile(`^(M|MSN|SN)4\d{3}`), "spectrum-3"},
	{regexp.MustCompile(`^SN56[4-9]\d`), "spectrum-5"},
	{regexp.MustCompile(`^SN5\d{3}`), "spectrum-4"},
	{regexp.MustCompile(`^SN6\d{3}`), "spectrum-6"},
}

// ForModel finds the chip of a switch model where a published mapping
// exists (NVIDIA's SN series): "SN4700" is Spectrum-3.
func ForModel(model string) (ASIC, bool) {
	m := strings.ToUpper(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "MELLANOX-")
	m = strings.TrimPrefix(m, "NVIDIA-")
	for _, e := range nvidiaModels {
		if e.model.MatchString(m) {
			return Lookup(e.key)
		}
	}
	return ASIC{}, false
}

// Family is the SONiC asic_type of a chip key, or the name itself when it
// already is one (mellanox, broadcom, ...).
func Family(name string) string {
	if a, ok := Lookup(name); ok {
		return a.Family
	}
	return strings.ToLower(strings.TrimSpace(name))
}
