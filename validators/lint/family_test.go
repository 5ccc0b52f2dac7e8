package lint_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

// familyPlatform is how a generated intent writes one platform's switch.
type familyPlatform struct {
	name, ports, first, attrs, transport string
}

var familyPlatforms = []familyPlatform{
	{"nxos", "Ethernet1/1-8", "Ethernet1/1", "      model: N9K-C9364C\n", ""},
	{"eos", "Ethernet1-8", "Ethernet1", "", ""},
	{"sonic", "Ethernet0-28 step 4", "Ethernet0", "      asic: mellanox\n      portSpeed: 100G\n", "gnmi"},
	{"cumulus", "swp1-8", "swp1", "", ""},
	{"junos", "et-0/0/0-7", "et-0/0/0", "      junos: {queueBufferSize: 10MB}\n", ""},
	{"openconfig", "Ethernet1-8", "Ethernet1", "      openconfig: {pfcFallback: {platform: %s}}\n", "gnmi"},
	{"linux", "swp1-8", "swp1", "      netns: rflint-sw\n", "netlink"},
}

// familyIntent writes one intent of the family from the random source: a
// profile, a port mode, thresholds in one of the units, watchdog timers a
// platform can take, overrides on a group and on the switch, one switch of
// the platform with two hosts.
func familyIntent(r *rand.Rand, pl familyPlatform) string {
	profile := []string{"dcqcn", "pfc-only", "ecn-only"}[r.IntN(3)]
	mode := []string{"routed", "trunk", "access"}[r.IntN(3)]
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: rocefab.io/v1alpha1\nkind: Fabric\nmetadata: {name: family}\nspec:\n  lossless:\n    profile: %s\n", profile)
	if mode != "routed" {
		fmt.Fprintf(&b, "    vlan: %d\n", 100+r.IntN(3000))
	}
	vlan := mode != "routed" || r.IntN(2) == 0
	switch {
	case vlan && mode == "trunk" && r.IntN(3) == 0 && pl.name != "linux" && pl.name != "openconfig":
		// PCP needs tagged frames: trunks only. OpenConfig classifiers
		// match DSCP only, which validate refuses (RF134, tested below).
		b.WriteString("    trust: pcp\n")
	case r.IntN(2) == 0:
		b.WriteString("    trust: dscp\n")
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, "    noDropPriority: %d\n", []int{3, 4, 2}[r.IntN(3)])
	}
	if r.IntN(2) == 0 {
		fmt.Fprintf(&b, "    cnp: {dscp: %d, priority: %d}\n", []int{46, 48, 40}[r.IntN(3)], []int{6, 7}[r.IntN(2)])
	}
	// Thresholds in whole percent of the Junos buffer (10MB), written in
	// each unit: 100KB, 0.1MB, 97.65625KiB, 100000B are the same size.
	if profile != "pfc-only" {
		lo, hi := 1+r.IntN(5), 10+r.IntN(40) // percent
		unit := r.IntN(3)
		size := func(pct int) string {
			bytes := pct * 100_000
			switch unit {
			case 0:
				return fmt.Sprintf("%dKB", bytes/1000)
			case 1:
				return fmt.Sprintf("%dB", bytes)
			}
			return fmt.Sprintf("%gMB", float64(bytes)/1e6)
		}
		fmt.Fprintf(&b, "    ecn: {minThreshold: %s, maxThreshold: %s, markProbability: %d}\n", size(lo), size(hi), 1+r.IntN(100))
	}
	var accept []string
	if profile != "ecn-only" {
		b.WriteString("    pfc:\n      enabled: true\n")
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "      cableLength: %dm\n", []int{5, 40, 100, 300}[r.IntN(4)])
			accept = append(accept, "pfc.cableLength")
		}
		if r.IntN(4) == 0 {
			// Explicit buffers, in whole kilobytes, xoff well above the
			// ECN minimum (RF105).
			// The headroom holds the pause point and xoff; xoff is far
			// above what any generated port still receives.
			xoff := 1100 + r.IntN(100)
			fmt.Fprintf(&b, "      headroom: %dKB\n      xoff: %dKB\n      xon: %dKB\n", xoff+200+r.IntN(100), xoff, 20+r.IntN(20))
			accept = append(accept, "pfc.headroom", "pfc.xoff", "pfc.xon")
		}
		switch r.IntN(3) {
		case 0:
			b.WriteString("      watchdog: {enabled: false}\n")
		case 1:
			// Times every platform that renders them can take: whole
			// hundreds of milliseconds.
			action := []string{"drop", "forward"}[r.IntN(2)]
			fmt.Fprintf(&b, "      watchdog: {detectionTime: %dms, restorationTime: %dms, action: %s}\n", 100*(2+r.IntN(8)), 100*(4+r.IntN(20)), action)
			accept = append(accept, "pfc.watchdog.detectionTime", "pfc.watchdog.restorationTime", "pfc.watchdog.action")
		}
	}
	fmt.Fprintf(&b, "    mtu: {switch: %s, host: %d}\n", []string{"max", "9000"}[r.IntN(2)], []int{9000, 4200, 8000}[r.IntN(3)])
	if len(accept) > 0 {
		fmt.Fprintf(&b, "    platformDefaults: [%s]\n", strings.Join(accept, ", "))
	}
	transport := pl.transport
	if transport == "" {
		transport = "ssh"
	}
	fmt.Fprintf(&b, "  groups:\n    - name: leaves\n      transport: %s\n      credentials: {username: rocefab, passwordEnv: ROCEFAB_SWITCH_PASSWORD}\n", transport)
	if profile != "pfc-only" && r.IntN(2) == 0 {
		b.WriteString("      overrides: {ecn: {markProbability: 50}}\n")
	}
	attrs := pl.attrs
	if pl.name == "openconfig" {
		attrs = fmt.Sprintf(attrs, []string{"eos", "nxos", "sonic"}[r.IntN(3)])
	}
	fmt.Fprintf(&b, "  switches:\n    - name: leaf1\n      group: leaves\n      platform: %s\n", pl.name)
	if transport != "netlink" {
		b.WriteString("      address: 192.0.2.11\n")
	}
	b.WriteString(attrs)
	fmt.Fprintf(&b, "      ports: [{names: %q, mode: %s, speed: %s}]\n", pl.ports, mode, []string{"100G", "200G", "400G"}[r.IntN(3)])
	if profile != "pfc-only" && r.IntN(2) == 0 {
		// A switch-only override that does not touch what the hosts see.
		fmt.Fprintf(&b, "      overrides: {ecn: {markProbability: %d}}\n", 10+r.IntN(90))
	}
	b.WriteString("  hosts:\n")
	for i := 1; i <= 2; i++ {
		fmt.Fprintf(&b, "    - name: gpu0%d\n      address: 198.51.100.%d\n      nics: [{netdev: ens1f0np0, rdmaDevice: mlx5_0}]\n", i, i)
	}
	second := strings.Replace(pl.first, "1/1", "1/2", 1)
	switch {
	case second != pl.first:
	case strings.HasSuffix(pl.first, "0/0/0"):
		second = "et-0/0/1"
	case pl.first == "Ethernet0":
		second = "Ethernet4"
	case pl.first == "swp1":
		second = "swp2"
	default:
		second = "Ethernet2"
	}
	length := []string{"2m", "5m", "30m", "100m"}[r.IntN(4)]
	fmt.Fprintf(&b, "  links:\n    - {a: gpu01:ens1f0np0, b: leaf1:%s, length: %s}\n    - {a: gpu02:ens1f0np0, b: leaf1:%s, length: %s}\n", pl.first, length, second, length)
	return b.String()
}

// TestGeneratedFamilyRendersEverywhere: every intent of a generated family
// (profiles, port modes, units, timers, overrides, on every platform) that
// validate passes renders and encodes on its platform; and validate passes
// nearly all of them, so the family is not emptied by lint.
func TestGeneratedFamilyRendersEverywhere(t *testing.T) {
	reg := all.Renderers()
	r := rand.New(rand.NewPCG(18, 18))
	const perPlatform = 60
	for _, pl := range familyPlatforms {
		t.Run(pl.name, func(t *testing.T) {
			clean := 0
			for i := 0; i < perPlatform; i++ {
				y := familyIntent(r, pl)
				res, diags := lint.ValidateBytes(reg, "family.yaml", []byte(y))
				if diags.HasErrors() {
					t.Errorf("generated intent %d does not validate:\n%s\n%s", i, strings.Join(strs(diags), "\n"), y)
					continue
				}
				clean++
				for _, sw := range res.Switches {
					cfg, err := reg.Render(sw)
					if err != nil {
						t.Errorf("validate passed, render failed: %v\n%s", err, y)
						continue
					}
					e, _ := reg.Lookup(sw.Platform)
					if _, err := e.Attrs.Encode(cfg); err != nil {
						t.Errorf("validate passed, encode failed: %v\n%s", err, y)
					}
				}
				for _, h := range res.Hosts {
					_ = h // hosts render in validate (RF137); a failure is a diagnostic above
				}
				if res == nil {
					t.Fatal("no resolved intent")
				}
			}
			if clean < perPlatform {
				t.Errorf("%d of %d generated intents validate", clean, perPlatform)
			}
		})
	}
}

// TestValidateCatchesWhatPlanWould: intents that lint alone passed but that
// plan could not carry out, each caught by validate with its code.
func TestValidateCatchesWhatPlanWould(t *testing.T) {
	reg := all.Renderers()
	cases := []struct{ name, code, yaml, want string }{
		{"Junos ECN not a whole percentage", lint.CodeRender, `apiVersion: rocefab.io/v1alpha1
kind: Fabric
spec:
  lossless: {ecn: {minThreshold: 200KB}}
  groups:
    - {name: junos-leaves, platform: junos, junos: {queueBufferSize: 15MB}}
  switches:
    - {name: leaf1, group: junos-leaves, address: 192.0.2.11, ports: [{names: et-0/0/0-3}]}
    - {name: leaf2, group: junos-leaves, address: 192.0.2.12, ports: [{names: et-0/0/0-3}]}
    - {name: leaf3, group: junos-leaves, address: 192.0.2.13, ports: [{names: et-0/0/0-3}]}
`, "RF137 error spec.lossless.ecn.minThreshold: 3 switches (leaf1, leaf2, ...): junos cannot render ecn.minThreshold 200000 bytes: ECN minimum 200000 bytes is 1.333 % of the 15000000-byte queue buffer"},
		{"OpenConfig cannot classify by PCP", lint.CodeRender, `apiVersion: rocefab.io/v1alpha1
kind: Fabric
spec:
  lossless: {vlan: 100, trust: pcp}
  switches:
    - {name: spine-oc, platform: openconfig, transport: gnmi, address: 192.0.2.31, openconfig: {pfcFallback: {platform: eos}}, ports: [{names: Ethernet1-4, mode: trunk}]}
`, "RF137 error spec.lossless.trust: switch spine-oc: openconfig cannot render trust pcp"},
		{"cable length EOS keeps its own", lint.CodeNotRendered, `apiVersion: rocefab.io/v1alpha1
kind: Fabric
spec:
  lossless: {pfc: {cableLength: 300m}}
  switches:
    - {name: leaf1, platform: eos, address: 192.0.2.11, ports: [{names: Ethernet1-4}]}
`, "RF131 error spec.lossless.pfc.cableLength: switch leaf1: eos does not render pfc.cableLength 300m"},
		{"no-drop priority differs across a link", lint.CodeLinkEnds, `apiVersion: rocefab.io/v1alpha1
kind: Fabric
spec:
  switches:
    - {name: leaf2, platform: eos, address: 192.0.2.12, ports: [{names: Ethernet1-8, mode: routed}], overrides: {noDropPriority: 4}}
    - {name: spine1, platform: eos, address: 192.0.2.21, ports: [{names: Ethernet1-8, mode: routed}]}
  links:
    - {a: leaf2:Ethernet8, b: spine1:Ethernet1}
`, "leaf2 carries RoCE on no-drop priority 4 but spine1 on 3"},
		{"host marks RoCE with a DSCP its leaf does not classify", lint.CodeHostLink, `apiVersion: rocefab.io/v1alpha1
kind: Fabric
spec:
  switches:
    - {name: leaf1, platform: eos, address: 192.0.2.11, ports: [{names: Ethernet1-8, mode: routed}]}
  hosts:
    - {name: gpu01, address: 198.51.100.1, nics: [{netdev: ens1f0np0, rdmaDevice: mlx5_0}], overrides: {roceDscp: [24]}}
  links:
    - {a: gpu01:ens1f0np0, b: leaf1:Ethernet1}
`, "gpu01 mlx5_0 marks RoCE with DSCP 24 (ToS 98) but leaf1 Ethernet1 classifies DSCP 26 as RoCE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := lint.ValidateBytes(reg, "f.yaml", []byte(tc.yaml))
			found := false
			for _, d := range diags {
				if d.Code == tc.code && d.Severity == intent.SeverityError && strings.Contains(d.String(), tc.want) {
					found = true
				}
			}
			if !found {
				t.Fatalf("want %s containing %q, got:\n%s", tc.code, tc.want, strings.Join(strs(diags), "\n"))
			}
		})
	}
	// Accepted, the platform's own cable length is no error.
	_, diags := lint.ValidateBytes(reg, "f.yaml", []byte(strings.Replace(cases[2].yaml, "{pfc: {cableLength: 300m}}", "{pfc: {cableLength: 300m}, platformDefaults: [pfc.cableLength]}", 1)))
	if len(diags) > 0 {
		t.Fatalf("accepted with platformDefaults, still: %v", strs(diags))
	}
}
