package intent

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Bytes is a size written with an explicit unit. KB is 1000 bytes and KiB
// 1024, so "150KB" is exactly 150000 bytes, NVIDIA's convention.
type Bytes struct{ N uint64 }

var byteUnits = []struct {
	names []string
	mult  uint64
}{
	{[]string{"b", "byte", "bytes"}, 1},
	{[]string{"kb"}, 1000},
	{[]string{"kib"}, 1024},
	{[]string{"mb"}, 1000 * 1000},
	{[]string{"mib"}, 1024 * 1024},
	{[]string{"gb"}, 1000 * 1000 * 1000},
	{[]string{"gib"}, 1024 * 1024 * 1024},
}

func (b *Bytes) parseScalar(text, _ string) error {
	num, unit := splitNumberUnit(text)
	if num == "" {
		return codedf(CodeBadUnit, "%q is not a size: write a number and a unit, e.g. 150KB or 150000B", text)
	}
	if unit == "" {
		return codedf(CodeBadUnit, "size %q has no unit: write e.g. 150000B, 150KB (KB is 1000 bytes) or 150KiB (KiB is 1024 bytes)", text)
	}
	switch unit {
	case "b", "kb", "Kb", "mb", "Mb", "gb", "Gb":
		// A lowercase b is bits, as in link rates: eight times off.
		return codedf(CodeBadUnit, "unit %q is bits; sizes are in bytes: write %sB", unit, strings.TrimSuffix(unit, "b"))
	}
	for _, u := range byteUnits {
		for _, name := range u.names {
			if strings.EqualFold(unit, name) {
				n, err := exactMultiple(num, u.mult)
				if err != nil {
					return codedf(CodeBadUnit, "size %q: %v", text, err)
				}
				b.N = n
				return nil
			}
		}
	}
	return codedf(CodeBadUnit, "unknown unit %q (use B, KB, KiB, MB or MiB)", unit)
}

func (b Bytes) String() string { return strconv.FormatUint(b.N, 10) + "B" }

// exactMultiple multiplies a decimal by mult and refuses a fraction of a
// byte: renderers never emit a silent approximation.
func exactMultiple(num string, mult uint64) (uint64, error) {
	r, ok := new(big.Rat).SetString(num)
	if !ok || r.Sign() < 0 {
		return 0, fmt.Errorf("%q is not a non-negative number", num)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).SetUint64(mult)))
	if !r.IsInt() {
		return 0, fmt.Errorf("is not a whole number of bytes")
	}
	if !r.Num().IsUint64() {
		return 0, fmt.Errorf("is too large")
	}
	return r.Num().Uint64(), nil
}

func splitNumberUnit(text string) (num, unit string) {
	s := strings.TrimSpace(text)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// Duration is a Go duration such as 200ms.
type Duration struct{ D time.Duration }

func (d *Duration) parseScalar(text, _ string) error {
	v, err := time.ParseDuration(strings.TrimSpace(text))
	if err != nil || v < 0 {
		return codedf(CodeBadUnit, "%q is not a duration (e.g. 200ms, 1s)", text)
	}
	d.D = v
	return nil
}

func (d Duration) String() string { return d.D.String() }

// Meters is a cable length such as "5m" or "1km".
type Meters struct{ N int }

func (m *Meters) parseScalar(text, _ string) error {
	num, unit := splitNumberUnit(text)
	mult := map[string]uint64{"m": 1, "km": 1000}[strings.ToLower(unit)]
	if num == "" || mult == 0 {
		return codedf(CodeBadUnit, "cable length %q needs a unit: m or km (e.g. 5m)", text)
	}
	n, err := exactMultiple(num, mult)
	if err != nil || n > 1<<20 {
		return codedf(CodeBadUnit, "cable length %q is not a whole number of meters", text)
	}
	m.N = int(n)
	return nil
}

func (m Meters) String() string { return strconv.Itoa(m.N) + "m" }

// Speed is a port speed in Mb/s, written with its unit (100G, 400G, 25G,
// 2.5G, 1.6T, 100M; "Gb/s" and "Gbps" also read), or "unknown". The zero
// value is "not written".
type Speed struct {
	Mbps    int
	Unknown bool
}

var speedUnits = map[string]uint64{"m": 1, "g": 1000, "t": 1000000}

// bareSpeeds are the Ethernet rates a bare number may name, in Mb/s (as
// a PORT table writes them).
var bareSpeeds = map[int]bool{1000: true, 10000: true, 25000: true, 40000: true, 50000: true, 100000: true, 200000: true, 400000: true, 800000: true, 1600000: true}

func (s *Speed) parseScalar(text, _ string) error {
	t := strings.TrimSpace(text)
	if strings.EqualFold(t, "unknown") {
		*s = Speed{Unknown: true}
		return nil
	}
	num, unit := splitNumberUnit(t)
	if num != "" && unit == "" {
		// SONiC's PORT table writes speeds in Mb/s (100000): a known
		// Ethernet rate reads as such, any other bare number is refused.
		if n, err := strconv.Atoi(num); err == nil && bareSpeeds[n] {
			*s = Speed{Mbps: n}
			return nil
		}
	}
	if num == "" || unit == "" {
		return codedf(CodeBadUnit, "port speed %q needs a unit: write e.g. 100G, 400G, 25G (Gb/s) or unknown", text)
	}
	prefix, rest := strings.ToLower(unit[:1]), unit[1:]
	mult, ok := speedUnits[prefix]
	switch {
	case ok && (rest == "B" || rest == "Bps" || rest == "B/s"):
		return codedf(CodeBadUnit, "port speed %q is in bytes; speeds are bits per second: write %s%s", text, num, strings.ToUpper(prefix))
	case !ok || (rest != "" && rest != "b/s" && rest != "bps" && rest != "bE"):
		return codedf(CodeBadUnit, "port speed %q: unknown unit %q (write e.g. 100G, 400G, 25G or unknown)", text, unit)
	}
	n, err := exactMultiple(num, mult)
	if err != nil || n == 0 || n > 100_000_000 {
		return codedf(CodeBadUnit, "port speed %q is not a whole number of Mb/s above zero", text)
	}
	*s = Speed{Mbps: int(n)}
	return nil
}

// Written reports whether a speed (or "unknown") was written.
func (s Speed) Written() bool { return s.Mbps > 0 || s.Unknown }

func (s Speed) String() string {
	switch {
	case s.Unknown:
		return "unknown"
	case s.Mbps == 0:
		return ""
	case s.Mbps >= 1000000 && s.Mbps%100000 == 0:
		return strconv.FormatFloat(float64(s.Mbps)/1e6, 'f', -1, 64) + "T"
	case s.Mbps >= 1000:
		return strconv.FormatFloat(float64(s.Mbps)/1000, 'f', -1, 64) + "G"
	}
	return strconv.Itoa(s.Mbps) + "M"
}

// SwitchMTU is an L3 MTU or "max", each platform's jumbo ceiling.
type SwitchMTU struct {
	Max   bool
	Value int
}

func (m *SwitchMTU) parseScalar(text, tag string) error {
	if strings.EqualFold(strings.TrimSpace(text), "max") {
		m.Max = true
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || tag == "!!float" {
		return codedf(CodeBadEnum, "switch MTU %q must be \"max\" or a whole number", text)
	}
	m.Value = n
	return nil
}

func (m SwitchMTU) String() string {
	if m.Max {
		return "max"
	}
	return strconv.Itoa(m.Value)
}

// Percent is a whole percentage, written as 40 or "40%".
type Percent struct{ N int }

func (p *Percent) parseScalar(text, _ string) error {
	s := strings.TrimSuffix(strings.TrimSpace(text), "%")
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return codedf(CodeWrongType, "%q is not a whole percentage", text)
	}
	p.N = n
	return nil
}
