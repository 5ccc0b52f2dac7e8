package lint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/lint"
)

// fabric is a small valid intent (one EOS leaf, one host, one cable, routed)
// whose parts a test case replaces. Its YAML starts spec on line 4.
type fabric struct {
	lossless, groups, switches, hosts, links, probe string
}

const (
	eosLeaf = `
    - name: leaf1
      platform: eos
      address: 192.0.2.11
      ports:
        - names: Ethernet1-8`
	gpuHost = `
    - name: gpu01
      address: 198.51.100.1
      nics:
        - {netdev: ens1f0np0, rdmaDevice: mlx5_0}`
	gpuLink = `
    - {a: gpu01:ens1f0np0, b: leaf1:Ethernet1}`
)

func base() fabric { return fabric{switches: eosLeaf, hosts: gpuHost, links: gpuLink} }

func (f fabric) yaml() []byte {
	var b strings.Builder
	b.WriteString("apiVersion: rocefab.io/v1alpha1\nkind: Fabric\nspec:\n")
	for _, s := range []struct{ key, body string }{
		{"lossless", f.lossless}, {"groups", f.groups}, {"switches", f.switches},
		{"hosts", f.hosts}, {"links", f.links}, {"probe", f.probe},
	} {
		if s.body != "" {
			fmt.Fprintf(&b, "  %s:%s\n", s.key, s.body)
		}
	}
	return []byte(b.String())
}

func (f fabric) with(mod func(*fabric)) fabric { mod(&f); return f }

func lossless(body string) func(*fabric) {
	return func(f *fabric) { f.lossless = body }
}

func validate(t *testing.T, f fabric) intent.Diagnostics {
	t.Helper()
	_, diags := lint.ValidateBytes(registry(t), "f.yaml", f.yaml())
	return diags
}

func strs(ds intent.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func TestBaseFabricIsClean(t *testing.T) {
	if diags := validate(t, base()); len(diags) > 0 {
		t.Fatalf("the base fabric is not clean:\n%s", strings.Join(strs(diags), "\n"))
	}
}

// ruleCase is one rule with fabrics that pass (no diagnostic at all) and
// fabrics that fail (only this rule's code, at least once).
type ruleCase struct {
	code string
	pass []fabric
	fail []fabric
}

func ruleCases() []ruleCase {
	b := base()
	junosLeaf := strings.NewReplacer("platform: eos", "platform: junos", "Ethernet1-8", "et-0/0/0-7").Replace(eosLeaf)
	junosLink := strings.Replace(gpuLink, "Ethernet1", "et-0/0/0", 1)
	ocLeaf := strings.NewReplacer("platform: eos", "platform: openconfig\n      transport: gnmi", "192.0.2.11", "192.0.2.11:57400").Replace(eosLeaf)
	secondHost := gpuHost + strings.NewReplacer("gpu01", "gpu02", "198.51.100.1", "198.51.100.2").Replace(gpuHost)
	cumulusLeaf := strings.NewReplacer("platform: eos", "platform: cumulus\n      portSpeed: 100G", "Ethernet1-8", "swp1-8").Replace(eosLeaf)
	cumulusLink := func(length string) string {
		return strings.Replace(gpuLink, "leaf1:Ethernet1}", "leaf1:swp1"+length+"}", 1)
	}
	nxosLeaf := strings.NewReplacer("platform: eos", "platform: nxos", "Ethernet1-8", "Ethernet1/1-8").Replace(eosLeaf)
	nxosLink := func(length string) string {
		return strings.Replace(gpuLink, "leaf1:Ethernet1}", "leaf1:Ethernet1/1"+length+"}", 1)
	}
	sonicLeaf := strings.NewReplacer("platform: eos", "platform: sonic\n      transport: gnmi", "192.0.2.11", "192.0.2.11:8080", "Ethernet1-8", "Ethernet0-7").Replace(eosLeaf)
	sonicLink := strings.Replace(gpuLink, "leaf1:Ethernet1}", "leaf1:Ethernet0}", 1)
	// Spectrum's 13.9 MB buffer holds 64 ports of 1 km cables for one
	// lossless priority, not for two.
	spectrumLeaf := strings.NewReplacer("platform: eos", "platform: cumulus\n      asic: spectrum\n      portSpeed: 100G", "Ethernet1-8", "swp1-64").Replace(eosLeaf)
	return []ruleCase{
		{code: lint.CodeVLANRange,
			pass: []fabric{b.with(lossless(" {vlan: 1}")), b.with(lossless(" {vlan: 4094}"))},
			fail: []fabric{b.with(lossless(" {vlan: 0}")), b.with(lossless(" {vlan: 4095}"))}},
		{code: lint.CodePriorityRange,
			pass: []fabric{b.with(lossless(" {cnp: {priority: 7}}")), b.with(lossless(" {noDropPriority: 0, cnp: {priority: 6}}"))},
			fail: []fabric{b.with(lossless(" {cnp: {priority: 8}}")), b.with(lossless(" {noDropPriority: -1}")), b.with(lossless(" {pfc: {priorities: [3, 9]}}"))}},
		{code: lint.CodeDSCPRange,
			pass: []fabric{b.with(lossless(" {roceDscp: [0, 63]}")), b.with(lossless(" {roceDscp: [26], cnp: {dscp: 0}}"))},
			fail: []fabric{b.with(lossless(" {roceDscp: [64]}")), b.with(lossless(" {roceDscp: []}")), b.with(lossless(" {cnp: {dscp: 64}}"))}},
		{code: lint.CodeECNOrder,
			pass: []fabric{b.with(lossless(" {ecn: {minThreshold: 150KB, maxThreshold: 150001B}}")), b.with(lossless(" {profile: pfc-only}"))},
			fail: []fabric{b.with(lossless(" {ecn: {minThreshold: 150KB, maxThreshold: 150KB}}")), b.with(lossless(" {ecn: {minThreshold: 2MB}}"))}},
		{code: lint.CodeECNNearXoff,
			// EOS keeps its own xoff (RF131): accepted, so only RF105 speaks.
			pass: []fabric{b.with(lossless(" {pfc: {xoff: 300KB}, platformDefaults: [pfc.xoff]}")), b.with(lossless(" {profile: ecn-only, pfc: {xoff: 100KB}}"))},
			fail: []fabric{b.with(lossless(" {pfc: {xoff: 299999B}, platformDefaults: [pfc.xoff]}"))}},
		{code: lint.CodeHostMTUFit,
			pass: []fabric{b.with(lossless(" {mtu: {host: 9214}}")), b.with(lossless(" {mtu: {switch: 9100, host: 9100}}"))},
			fail: []fabric{b.with(lossless(" {mtu: {host: 9215}}")), b.with(lossless(" {mtu: {host: 9217}}")), b.with(lossless(" {mtu: {switch: 9000, host: 9001}}"))}},
		{code: lint.CodeCNPIsNoDrop,
			pass: []fabric{b.with(lossless(" {profile: ecn-only, cnp: {priority: 4}}"))},
			fail: []fabric{b.with(lossless(" {profile: ecn-only, cnp: {priority: 3}}")), b.with(lossless(" {profile: ecn-only, noDropPriority: 6}"))}},
		{code: lint.CodeCNPPFC,
			pass: []fabric{b.with(lossless(" {pfc: {priorities: [3, 4]}}")), b.with(lossless(" {profile: ecn-only, pfc: {priorities: [3, 6]}}"))},
			fail: []fabric{b.with(lossless(" {pfc: {priorities: [3, 6]}}")), b.with(lossless(" {cnp: {priority: 4}, pfc: {priorities: [3, 4]}}"))}},
		{code: lint.CodeDSCPOverlap,
			pass: []fabric{b.with(lossless(" {roceDscp: [26, 47]}"))},
			fail: []fabric{b.with(lossless(" {roceDscp: [26, 48]}")), b.with(lossless(" {cnp: {dscp: 26}}"))}},
		{code: lint.CodeTooManyNoDrop,
			pass: []fabric{b.with(lossless(" {pfc: {priorities: [3, 4]}}")), b.with(func(f *fabric) {
				f.switches, f.links, f.lossless = junosLeaf+"\n      junos: {queueBufferSize: 15MB}", junosLink, " {cnp: {priority: 7}, pfc: {priorities: [0, 1, 2, 3, 4, 5]}}"
			})},
			fail: []fabric{b.with(lossless(" {pfc: {priorities: [2, 3, 4]}}"))}},
		{code: lint.CodeDuplicateAddress,
			pass: []fabric{b.with(func(f *fabric) { f.hosts = strings.Replace(gpuHost, "198.51.100.1", "192.0.2.11:2222", 1) })},
			fail: []fabric{
				b.with(func(f *fabric) { f.hosts = strings.Replace(gpuHost, "198.51.100.1", "192.0.2.11", 1) }),
				b.with(func(f *fabric) {
					f.switches = strings.Replace(eosLeaf, "192.0.2.11", "2001:db8::11", 1)
					f.hosts = strings.Replace(gpuHost, "198.51.100.1", "'[2001:db8::11]:22'", 1)
				}),
			}},
		{code: lint.CodePortName,
			pass: []fabric{b.with(func(f *fabric) { f.switches = eosLeaf + "\n        - names: Ethernet9/1-4" })},
			fail: []fabric{b.with(func(f *fabric) { f.switches = eosLeaf + "\n        - names: swp1-2" })}},
		{code: lint.CodeNICNotCabled,
			pass: []fabric{b.with(func(f *fabric) { f.hosts = gpuHost + "\n    - {name: idle, address: 198.51.100.9}" })},
			fail: []fabric{b.with(func(f *fabric) { f.hosts = gpuHost + "\n        - {netdev: ens1f1np1}" }), b.with(func(f *fabric) { f.links = "" })}},
		{code: lint.CodeUnknownPlatform,
			fail: []fabric{
				b.with(func(f *fabric) { f.switches = strings.Replace(eosLeaf, "platform: eos", "platform: ios", 1) }),
				b.with(func(f *fabric) { f.switches = strings.Replace(eosLeaf, "      platform: eos\n", "", 1) }),
			}},
		{code: lint.CodeTransport,
			pass: []fabric{b.with(func(f *fabric) {
				f.switches = strings.Replace(eosLeaf, "platform: eos", "platform: eos\n      transport: ssh", 1)
			})},
			fail: []fabric{b.with(func(f *fabric) {
				f.switches = strings.Replace(eosLeaf, "platform: eos", "platform: eos\n      transport: netlink", 1)
			})}},
		{code: lint.CodeMTUCeiling,
			pass: []fabric{b.with(lossless(" {mtu: {switch: 9214}}")), b.with(lossless(" {mtu: {switch: 4200, host: 4200}}"))},
			fail: []fabric{
				b.with(lossless(" {mtu: {switch: 9215}}")),
				// Below 1280 no host fits, so the fabric has switches only.
				b.with(func(f *fabric) { f.lossless, f.hosts, f.links = " {mtu: {switch: 1279}}", "", "" }),
			}},
		{code: lint.CodeQueueBuffer,
			pass: []fabric{
				b.with(func(f *fabric) { f.switches, f.links = junosLeaf+"\n      junos: {queueBufferSize: 15MB}", junosLink }),
				b.with(func(f *fabric) {
					f.switches, f.links = junosLeaf+"\n      junos: {fillLevelMin: 1, fillLevelMax: 10%}", junosLink
				}),
				b.with(func(f *fabric) { f.switches, f.links, f.lossless = junosLeaf, junosLink, " {profile: pfc-only}" }),
			},
			fail: []fabric{
				b.with(func(f *fabric) { f.switches, f.links = junosLeaf, junosLink }),
				b.with(func(f *fabric) { f.switches, f.links = junosLeaf+"\n      junos: {fillLevelMin: 1}", junosLink }),
			}},
		{code: lint.CodeOpenConfigPFC,
			pass: []fabric{
				b.with(func(f *fabric) { f.switches = ocLeaf + "\n      openconfig: {pfcFallback: {platform: eos}}" }),
				b.with(func(f *fabric) { f.switches, f.lossless = ocLeaf, " {profile: ecn-only}" }),
			},
			fail: []fabric{
				b.with(func(f *fabric) { f.switches = ocLeaf }),
				b.with(func(f *fabric) { f.switches = ocLeaf + "\n      openconfig: {pfcFallback: {platform: openconfig}}" }),
				b.with(func(f *fabric) { f.switches = ocLeaf + "\n      openconfig: {pfcFallback: {platform: ios}}" }),
			}},
		{code: lint.CodeOpenConfigNoPFC,
			pass: []fabric{
				b.with(func(f *fabric) { f.switches = ocLeaf + "\n      openconfig: {pfcFallback: {platform: eos}}" }),
				b.with(func(f *fabric) {
					f.switches, f.lossless = ocLeaf+"\n      openconfig: {pfcFallback: {platform: none}}", " {profile: ecn-only}"
				}),
			},
			fail: []fabric{
				b.with(func(f *fabric) { f.switches = ocLeaf + "\n      openconfig: {pfcFallback: {platform: none}}" }),
				b.with(func(f *fabric) { f.switches = ocLeaf + "\n      openconfig: {pfcFallback: {platform: sonic}}" }),
			}},
		{code: lint.CodeLinkNotRoCEPort,
			fail: []fabric{b.with(func(f *fabric) { f.links = strings.Replace(gpuLink, "Ethernet1}", "Ethernet9}", 1) })}},
		{code: lint.CodeMarkProbability,
			pass: []fabric{b.with(lossless(" {ecn: {markProbability: 1}}")), b.with(lossless(" {ecn: {markProbability: 100}}"))},
			fail: []fabric{b.with(lossless(" {ecn: {markProbability: 0}}")), b.with(lossless(" {ecn: {markProbability: 101}}"))}},
		{code: lint.CodeNoDropWithoutPFC,
			pass: []fabric{b.with(lossless(" {noDropPriority: 4}")), b.with(lossless(" {profile: ecn-only, pfc: {priorities: [4]}}"))},
			fail: []fabric{b.with(lossless(" {pfc: {priorities: [4]}}")), b.with(lossless(" {noDropPriority: 4, pfc: {priorities: [3]}}"))}},
		{code: lint.CodeProfileMismatch,
			pass: []fabric{b.with(lossless(" {profile: pfc-only}")), b.with(lossless(" {profile: ecn-only, pfc: {enabled: false}}"))},
			fail: []fabric{
				b.with(lossless(" {profile: pfc-only, ecn: {maxThreshold: 2MB}}")),
				b.with(lossless(" {profile: ecn-only, pfc: {enabled: true}}")),
				b.with(lossless(" {pfc: {enabled: false}}")),
			}},
		{code: lint.CodeProbeSettings,
			pass: []fabric{
				b.with(func(f *fabric) {
					f.probe = " {pkey: 0xFFFF, qpMin: 2, qpMax: 0xFFFFFF, sizes: [1, 9000], count: 1, ratePps: 1}"
				}),
				b.with(func(f *fabric) {
					f.hosts = secondHost
					f.links = gpuLink + "\n    - {a: gpu02:ens1f0np0, b: leaf1:Ethernet2}"
					f.probe = " {pairs: listed, list: [{from: gpu01, to: gpu02}]}"
				}),
			},
			fail: []fabric{
				b.with(func(f *fabric) { f.probe = " {pkey: 0}" }),
				b.with(func(f *fabric) { f.probe = " {pkey: 0x10000}" }),
				b.with(func(f *fabric) { f.probe = " {qpMin: 1}" }),
				b.with(func(f *fabric) { f.probe = " {qpMax: 0x1000000}" }),
				b.with(func(f *fabric) { f.probe = " {qpMin: 0x100, qpMax: 0xFF}" }),
				b.with(func(f *fabric) { f.probe = " {sizes: [64, 9001]}" }),
				b.with(func(f *fabric) { f.probe = " {count: 0}" }),
				b.with(func(f *fabric) { f.probe = " {ratePps: 0}" }),
				b.with(func(f *fabric) { f.probe = " {pairs: listed}" }),
				b.with(func(f *fabric) { f.probe = " {list: [{from: gpu01, to: gpu09}]}" }),
			}},
		{code: lint.CodeRoCEv1,
			pass: []fabric{b.with(lossless(" {roceMode: v2}"))},
			fail: []fabric{b.with(lossless(" {roceMode: v1}"))}},
		{code: lint.CodeCabledTwice,
			fail: []fabric{
				b.with(func(f *fabric) { f.links = gpuLink + "\n    - {a: gpu01:ens1f0np0, b: leaf1:Ethernet2}" }),
				b.with(func(f *fabric) {
					f.hosts = secondHost
					f.links = gpuLink + "\n    - {a: gpu02:ens1f0np0, b: leaf1:Ethernet1}"
				}),
			}},
		{code: lint.CodeRoCEActiveMTU,
			pass: []fabric{b.with(lossless(" {mtu: {host: 4200}}"))},
			fail: []fabric{b.with(lossless(" {mtu: {host: 4199}}")), b.with(lossless(" {mtu: {host: 1500}}"))}},
		{code: lint.CodeMissingAddress,
			pass: []fabric{b.with(func(f *fabric) { f.hosts = strings.Replace(gpuHost, "address: 198.51.100.1", "netns: gpu01", 1) })},
			fail: []fabric{
				b.with(func(f *fabric) { f.switches = strings.Replace(eosLeaf, "      address: 192.0.2.11\n", "", 1) }),
				b.with(func(f *fabric) { f.hosts = strings.Replace(gpuHost, "      address: 198.51.100.1\n", "", 1) }),
			}},
		{code: lint.CodePCPNeedsVLAN,
			pass: []fabric{b.with(lossless(" {trust: pcp, vlan: 100}"))},
			fail: []fabric{b.with(lossless(" {trust: pcp}"))}},
		// EOS takes the watchdog timeout and recovery-time with at most two
		// decimals of a second (AVD schema ^\d+(\.\d{1,2})?$): the platform's
		// registry attributes say so, and lint reads them.
		{code: lint.CodeWatchdogTime,
			pass: []fabric{
				b.with(lossless(" {pfc: {watchdog: {detectionTime: 200ms, restorationTime: 1110ms}}}")),
				b.with(lossless(" {pfc: {watchdog: {enabled: false, detectionTime: 205ms}}}")),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = sonicLeaf, sonicLink, " {pfc: {watchdog: {detectionTime: 150ms, restorationTime: 60s}}}"
				}),
			},
			fail: []fabric{
				b.with(lossless(" {pfc: {watchdog: {detectionTime: 205ms, restorationTime: 2s}}}")),
				b.with(lossless(" {pfc: {watchdog: {detectionTime: 200ms, restorationTime: 1500us}}}")),
				b.with(func(f *fabric) {
					f.switches = ocLeaf + "\n      openconfig: {pfcFallback: {platform: eos}}"
					f.lossless = " {pfc: {watchdog: {detectionTime: 205ms, restorationTime: 2s}}}"
				}),
				// SONiC's pfcwd takes whole milliseconds, detection_time
				// 100..5000 and restoration_time 100..60000
				// (sonic-yang-models sonic-pfcwd.yang).
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = sonicLeaf, sonicLink, " {pfc: {watchdog: {detectionTime: 50ms, restorationTime: 2s}}}"
				}),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = sonicLeaf, sonicLink, " {pfc: {watchdog: {detectionTime: 200ms, restorationTime: 61s}}}"
				}),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = sonicLeaf, sonicLink, " {pfc: {watchdog: {detectionTime: 200ms, restorationTime: 1500us}}}"
				}),
			}},
		// Junos, NX-OS and NVUE render no watchdog times (they keep the
		// platform's own: renderers/junos, nxos, cumulus doc.go), so a time
		// the intent sets is an error naming the platform.
		{code: lint.CodeWatchdogDefault,
			pass: []fabric{b.with(func(f *fabric) { f.switches, f.links, f.lossless = junosLeaf, junosLink, " {profile: pfc-only}" })},
			fail: []fabric{
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = junosLeaf, junosLink, " {profile: pfc-only, pfc: {watchdog: {detectionTime: 200ms}}}"
				}),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = nxosLeaf, nxosLink(""), " {profile: pfc-only, pfc: {watchdog: {restorationTime: 2s}}}"
				}),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = cumulusLeaf, cumulusLink(""), " {profile: pfc-only, pfc: {watchdog: {detectionTime: 200ms}}}"
				}),
			}},
		// A 100G port on a 300 m cable still receives about 83 KB after it
		// pauses (intent/headroom); NVUE and NX-OS render an explicit xoff.
		{code: lint.CodeXoffBelowHeadroom,
			pass: []fabric{
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = cumulusLeaf, cumulusLink(", length: 300m"), " {profile: pfc-only, pfc: {xoff: 100KB}}"
				}),
				// EOS renders no xoff: nothing to check (and the setting
				// keeps EOS's own, accepted: RF131).
				b.with(lossless(" {profile: pfc-only, pfc: {xoff: 10KB}, platformDefaults: [pfc.xoff]}")),
			},
			fail: []fabric{
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = cumulusLeaf, cumulusLink(", length: 300m"), " {profile: pfc-only, pfc: {xoff: 40KB}}"
				}),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = nxosLeaf+"\n      portSpeed: 100G", nxosLink(", length: 3m"), " {profile: pfc-only, pfc: {xoff: 20KB}}"
				}),
			}},
		{code: lint.CodeHeadroomOverBuffer,
			pass: []fabric{b.with(func(f *fabric) {
				f.switches, f.links, f.lossless = spectrumLeaf, cumulusLink(""), " {pfc: {cableLength: 1km}}"
			})},
			fail: []fabric{b.with(func(f *fabric) {
				f.switches, f.links, f.lossless = spectrumLeaf, cumulusLink(""), " {cnp: {priority: 6}, pfc: {priorities: [3, 4], cableLength: 1km}}"
			})}},
		{code: lint.CodeHeadroomAssumed,
			pass: []fabric{
				b.with(func(f *fabric) { f.switches, f.links = nxosLeaf+"\n      portSpeed: 100G", nxosLink(", length: 300m") }),
				// Up to 100 m NX-OS sizes headroom itself: nothing computed.
				b.with(func(f *fabric) { f.switches, f.links = nxosLeaf, nxosLink(", length: 30m") }),
			},
			fail: []fabric{
				b.with(func(f *fabric) { f.switches, f.links = nxosLeaf, nxosLink(", length: 300m") }),
				b.with(func(f *fabric) {
					f.switches, f.links = strings.Replace(nxosLeaf, "Ethernet1/1-8", "Ethernet1/1-8\n          speed: unknown", 1), nxosLink(", length: 300m")
				}),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = cumulusLeaf, cumulusLink(""), " {profile: pfc-only, pfc: {xoff: 300KB}}"
				}),
			}},
		{code: lint.CodeNotRendered,
			pass: []fabric{
				// Cumulus renders xoff; EOS keeps its own, accepted.
				b.with(func(f *fabric) {
					f.switches, f.links = cumulusLeaf, cumulusLink(", length: 5m")
					f.lossless = " {pfc: {xoff: 400KB}}"
				}),
				b.with(lossless(" {pfc: {xoff: 400KB}, platformDefaults: [pfc.xoff]}")),
				b.with(func(f *fabric) {
					f.lossless = " {pfc: {xoff: 400KB}}"
					f.switches = eosLeaf + "\n      overrides: {platformDefaults: [pfc.xoff]}"
				}),
			},
			fail: []fabric{
				b.with(lossless(" {pfc: {xoff: 400KB}}")),
				b.with(lossless(" {pfc: {cableLength: 300m}}")),
				b.with(func(f *fabric) {
					f.switches, f.links, f.lossless = strings.Replace(eosLeaf, "platform: eos", "platform: nxos", 1), gpuLink, " {pfc: {watchdog: {action: forward}}}"
					f.switches = strings.Replace(f.switches, "Ethernet1-8", "Ethernet1/1-8", 1)
					f.links = strings.Replace(gpuLink, "Ethernet1", "Ethernet1/1", 1)
				}),
			}},
		{code: lint.CodeRender,
			pass: []fabric{b.with(func(f *fabric) {
				f.switches, f.links = junosLeaf+"\n      junos: {queueBufferSize: 20MB}", junosLink
				f.lossless = " {ecn: {minThreshold: 200KB, maxThreshold: 2MB}}"
			})},
			fail: []fabric{
				// 200KB is 1.33 % of 15MB: Junos takes whole percent only.
				b.with(func(f *fabric) {
					f.switches, f.links = junosLeaf+"\n      junos: {queueBufferSize: 15MB}", junosLink
					f.lossless = " {ecn: {minThreshold: 200KB}}"
				}),
				// A VLAN netdev name longer than Linux takes.
				b.with(func(f *fabric) {
					f.lossless = " {vlan: 100}"
					f.switches = strings.Replace(eosLeaf, "Ethernet1-8", "Ethernet1-8\n          mode: trunk", 1)
					f.hosts = strings.Replace(gpuHost, "netdev: ens1f0np0", "netdev: enp65s0f0np0xx", 1)
					f.links = strings.Replace(gpuLink, "ens1f0np0", "enp65s0f0np0xx", 1)
				}),
			}},
		{code: lint.CodeLinkEnds,
			pass: []fabric{
				b.with(func(f *fabric) { f.switches, f.links = twoSwitches, spineLink("", "") }),
				b.with(func(f *fabric) {
					f.switches, f.links = strings.Replace(twoSwitches, "platform: eos\n      address: 192.0.2.21", "platform: nxos\n      address: 192.0.2.21", 1), spineLink("", "")
					f.switches = strings.Replace(f.switches, "192.0.2.21\n      ports:\n        - names: Ethernet1-8", "192.0.2.21\n      ports:\n        - names: Ethernet1/1-8", 1)
					f.links = strings.Replace(f.links, "spine1:Ethernet1", "spine1:Ethernet1/1", 1)
				}),
			},
			fail: []fabric{
				b.with(func(f *fabric) {
					f.switches, f.links = twoSwitches+"\n      overrides: {noDropPriority: 4}", spineLink("", "")
				}),
				b.with(func(f *fabric) {
					f.switches, f.links = twoSwitches+"\n      overrides: {roceDscp: [24]}", spineLink("", "")
				}),
				b.with(func(f *fabric) {
					f.switches, f.links = twoSwitches+"\n      overrides: {cnp: {dscp: 46}}", spineLink("", "")
				}),
				b.with(func(f *fabric) {
					f.switches, f.links = twoSwitches+"\n      overrides: {pfc: {priorities: [3, 4]}}", spineLink("", "")
				}),
			}},
		{code: lint.CodeHostLink,
			pass: []fabric{b},
			fail: []fabric{
				b.with(func(f *fabric) { f.hosts = gpuHost + "\n      overrides: {pfc: {priorities: [3, 4]}}" }),
				b.with(func(f *fabric) { f.hosts = gpuHost + "\n      overrides: {cnp: {priority: 5}}" }),
			}},
		{code: lint.CodePlatformDefaults,
			pass: []fabric{b.with(lossless(" {platformDefaults: [pfc.cableLength, pfc.watchdog.detectionTime]}"))},
			fail: []fabric{b.with(lossless(" {platformDefaults: [pfc.cablelength]}")), b.with(lossless(" {platformDefaults: [vlan]}"))}},
		{code: lint.CodeSwitchedNeedsVLAN,
			pass: []fabric{b.with(func(f *fabric) { f.switches = eosLeaf + "\n          mode: routed" })},
			fail: []fabric{
				b.with(func(f *fabric) { f.switches = eosLeaf + "\n          mode: trunk" }),
				b.with(func(f *fabric) { f.switches = eosLeaf + "\n          mode: access" }),
			}},
		{code: lint.CodeLinkAddress,
			pass: []fabric{
				b.with(func(f *fabric) { f.switches, f.links = twoSwitches, spineLink("192.0.2.128", "192.0.2.129") }),
				b.with(func(f *fabric) { f.switches, f.links = twoSwitches, spineLink("2001:db8::1", "") }),
			},
			fail: []fabric{
				b.with(func(f *fabric) { f.switches, f.links = twoSwitches, spineLink("192.0.2.128/31", "192.0.2.129") }),
				b.with(func(f *fabric) { f.switches, f.links = twoSwitches, spineLink("leaf1-swp8", "") }),
				b.with(func(f *fabric) { f.switches, f.links = twoSwitches, spineLink("192.0.2.128", "192.0.2.128") }),
				b.with(func(f *fabric) {
					f.hosts = strings.Replace(gpuHost, "rdmaDevice: mlx5_0", "rdmaDevice: mlx5_0, address: 198.51.100.1", 1)
					f.switches, f.links = twoSwitches, spineLink("198.51.100.1", "")
				}),
				b.with(func(f *fabric) { f.links = "\n    - {a: gpu01:ens1f0np0, b: leaf1:Ethernet1, aAddress: 198.51.100.1}" }),
			}},
	}
}

// twoSwitches is a leaf and a spine; spineLink cables them with the given
// end addresses besides the host's link.
const twoSwitches = eosLeaf + `
    - name: spine1
      platform: eos
      address: 192.0.2.21
      ports:
        - names: Ethernet1-8`

func spineLink(a, b string) string {
	l := gpuLink + "\n    - {a: leaf1:Ethernet8, b: spine1:Ethernet1"
	if a != "" {
		l += ", aAddress: " + fmt.Sprintf("%q", a)
	}
	if b != "" {
		l += ", bAddress: " + fmt.Sprintf("%q", b)
	}
	return l + "}"
}

func TestRules(t *testing.T) {
	severity := map[string]intent.Severity{}
	for _, r := range lint.Rules {
		severity[r.Code] = r.Severity
	}
	covered := map[string]bool{}
	for _, rc := range ruleCases() {
		covered[rc.code] = true
		for i, f := range rc.pass {
			t.Run(fmt.Sprintf("%s/pass%d", rc.code, i), func(t *testing.T) {
				if diags := validate(t, f); len(diags) > 0 {
					t.Errorf("want no diagnostics, got:\n%s\nintent:\n%s", strings.Join(strs(diags), "\n"), f.yaml())
				}
			})
		}
		for i, f := range rc.fail {
			t.Run(fmt.Sprintf("%s/fail%d", rc.code, i), func(t *testing.T) {
				diags := validate(t, f)
				if len(diags) == 0 {
					t.Fatalf("want %s, got nothing; intent:\n%s", rc.code, f.yaml())
				}
				for _, d := range diags {
					if d.Code != rc.code {
						t.Errorf("want only %s, got %s\nintent:\n%s", rc.code, d, f.yaml())
					}
					if d.Severity != severity[rc.code] {
						t.Errorf("%s has severity %s, lint.Rules says %s", d, d.Severity, severity[rc.code])
					}
					if d.File != "f.yaml" || d.Line < 4 || d.Col < 1 || !strings.HasPrefix(d.Field, "spec.") {
						t.Errorf("%s: want a position inside spec", d)
					}
				}
			})
		}
	}
	for _, r := range lint.Rules {
		if !covered[r.Code] {
			t.Errorf("rule %s has no test case", r.Code)
		}
	}
}

// TestRulesTable: codes are unique, in order, and each has a summary.
func TestRulesTable(t *testing.T) {
	for i, r := range lint.Rules {
		if want := fmt.Sprintf("RF%d", 101+i); r.Code != want || r.Summary == "" {
			t.Errorf("Rules[%d] = %+v, want code %s with a summary", i, r, want)
		}
	}
}

// TestExactMessages pins the full text of a few diagnostics: position,
// field, and wording.
func TestExactMessages(t *testing.T) {
	tests := []struct {
		name string
		f    fabric
		want []string
	}{
		{
			name: "fabric-wide value",
			f:    base().with(lossless("\n    vlan: 100\n    cnp:\n      priority: 3")),
			want: []string{
				// pfc.priorities holds its default: reported at the section.
				"f.yaml:5:5: RF108 error spec.lossless.pfc.priorities: PFC is enabled on the CNP priority 3: CNPs must not be paused",
				"f.yaml:7:7: RF107 error spec.lossless.cnp.priority: CNP priority 3 is the no-drop priority: CNPs belong in a strict-priority lossy class",
			},
		},
		{
			name: "platform ceiling",
			f:    base().with(lossless(" {mtu: {switch: 9216}}")),
			want: []string{`f.yaml:4:20: RF116 error spec.lossless.mtu.switch: switch leaf1: MTU 9216 exceeds the eos ceiling 9214 (use 9214, or "max")`},
		},
		{
			// A LAG number the platform does not take is refused where the
			// lag is written, naming the field and the platform's range.
			name: "LAG number",
			f: base().with(func(f *fabric) {
				f.switches = strings.Replace(eosLeaf, "- names: Ethernet1-8", "- {names: Ethernet1-8, lag: Port-Channel0}", 1)
			}),
			want: []string{`f.yaml:9:32: RF137 error spec.switches[0].ports[0].lag: switch leaf1: eos cannot render lag Port-Channel0 of port Ethernet1: LAG "Port-Channel0": EOS port-channel numbers are 1..999999`},
		},
		{
			name: "host MTU",
			f:    base().with(lossless(" {mtu: {host: 9216}}")),
			want: []string{"f.yaml:4:20: RF106 error spec.lossless.mtu.host: host gpu01: MTU 9216 does not fit switch leaf1 MTU 9214: RoCE never fragments, so the largest RoCE packets would be dropped"},
		},
		{
			name: "uncabled NIC",
			f:    base().with(func(f *fabric) { f.links = "" }),
			want: []string{"f.yaml:14:11: RF113 error spec.hosts[0].nics[0]: host gpu01 NIC ens1f0np0 is not cabled to a RoCE port (add a link gpu01:ens1f0np0 – switch:port)"},
		},
		{
			name: "probe field",
			f:    base().with(func(f *fabric) { f.probe = "\n    count: 10\n    qpMin: 0x100\n    qpMax: 0xFF" }),
			want: []string{"f.yaml:20:5: RF123 error spec.probe.qpMax: probe QP range 0x100..0xff is empty: qpMin must not exceed qpMax"},
		},
		{
			name: "watchdog time the platform cannot express",
			f:    base().with(lossless(" {pfc: {watchdog: {detectionTime: 205ms, restorationTime: 2s}}}")),
			want: []string{"f.yaml:4:31: RF130 error spec.lossless.pfc.watchdog.detectionTime: switch leaf1: PFC watchdog detection time 205ms cannot be expressed on eos, which takes seconds with at most two decimals (a multiple of 10ms)"},
		},
		{
			name: "watchdog time outside SONiC's range",
			f: fabric{
				switches: strings.NewReplacer("platform: eos", "platform: sonic\n      transport: gnmi", "192.0.2.11", "192.0.2.11:8080", "Ethernet1-8", "Ethernet0-7").Replace(eosLeaf),
				hosts:    gpuHost, links: strings.Replace(gpuLink, "leaf1:Ethernet1}", "leaf1:Ethernet0}", 1),
				lossless: " {pfc: {watchdog: {detectionTime: 50ms, restorationTime: 2s}}}",
			},
			want: []string{"f.yaml:4:31: RF130 error spec.lossless.pfc.watchdog.detectionTime: switch leaf1: PFC watchdog detection time 50ms is below sonic's minimum 100ms"},
		},
		{
			name: "watchdog time NX-OS does not render",
			f: fabric{
				switches: strings.NewReplacer("platform: eos", "platform: nxos", "Ethernet1-8", "Ethernet1/1-8").Replace(eosLeaf),
				hosts:    gpuHost, links: strings.Replace(gpuLink, "leaf1:Ethernet1}", "leaf1:Ethernet1/1}", 1),
				lossless: " {pfc: {watchdog: {detectionTime: 200ms}}}",
			},
			want: []string{"f.yaml:4:31: RF131 error spec.lossless.pfc.watchdog.detectionTime: switch leaf1: nxos does not render pfc.watchdog.detectionTime 200ms: its configuration is the same as with the default, so the setting would be dropped; remove it for these switches, or accept the platform's own behaviour with lossless.platformDefaults: [pfc.watchdog.detectionTime]"},
		},
		{
			name: "missing address names the field",
			f:    base().with(func(f *fabric) { f.switches = strings.Replace(eosLeaf, "      address: 192.0.2.11\n", "", 1) }),
			want: []string{"f.yaml:5:7: RF127 error spec.switches[0].address: switch leaf1 has no management address (address: host or host:port)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, strs(validate(t, tt.f))); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\nintent:\n%s", diff, tt.f.yaml())
			}
		})
	}
}

// manyDevices is the base fabric with n EOS leaves (in group "leaves") and
// n cabled hosts.
func manyDevices(n int, groupAttrs string) fabric {
	var sw, hosts, links strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sw, "\n    - {name: leaf%d, group: leaves, address: 192.0.2.%d, ports: [{names: Ethernet1-8}]}", i, i)
		fmt.Fprintf(&hosts, "\n    - {name: gpu%02d, address: 198.51.100.%d, nics: [{netdev: eth0}]}", i, i)
		fmt.Fprintf(&links, "\n    - {a: gpu%02d:eth0, b: leaf%d:Ethernet1}", i, i)
	}
	return fabric{groups: "\n    - {name: leaves" + groupAttrs + "}", switches: sw.String(), hosts: hosts.String(), links: links.String()}
}

// TestDedupe: a bad value written once is reported once, however many
// devices share it, and names how many it affects.
func TestDedupe(t *testing.T) {
	tests := []struct {
		name string
		f    fabric
		want []string
	}{
		{
			name: "fabric-wide priority",
			f:    manyDevices(12, ", platform: eos").with(lossless(" {cnp: {priority: 8}}")),
			want: []string{"f.yaml:4:20: RF102 error spec.lossless.cnp.priority: priority 8 is outside 0..7"},
		},
		{
			name: "fabric-wide switch MTU",
			f:    manyDevices(12, ", platform: eos").with(lossless(" {mtu: {switch: 9216, host: 9000}}")),
			want: []string{`f.yaml:4:20: RF116 error spec.lossless.mtu.switch: 12 switches (leaf1, leaf2, ...): MTU 9216 exceeds the eos ceiling 9214 (use 9214, or "max")`},
		},
		{
			name: "group platform",
			f:    manyDevices(2, ", platform: ios"),
			want: []string{`f.yaml:5:22: RF114 error spec.groups[0].platform: switches leaf1 and leaf2: unknown platform "ios" (known: ` + strings.Join(registry(t).Names(), ", ") + ")"},
		},
		{
			name: "group transport",
			f:    manyDevices(3, ", platform: eos, transport: netlink"),
			want: []string{"f.yaml:5:37: RF115 error spec.groups[0].transport: 3 switches (leaf1, leaf2, ...): platform eos does not support transport netlink (supported: ssh)"},
		},
		{
			name: "host MTU for many hosts",
			f:    manyDevices(5, ", platform: eos").with(lossless(" {mtu: {host: 9216}}")),
			want: []string{"f.yaml:4:20: RF106 error spec.lossless.mtu.host: 5 hosts (gpu01, gpu02, ...): MTU 9216 does not fit switch leaf1 MTU 9214: RoCE never fragments, so the largest RoCE packets would be dropped"},
		},
		{
			name: "warning shared by every host",
			f:    manyDevices(5, ", platform: eos").with(lossless(" {mtu: {host: 1500}}")),
			want: []string{"f.yaml:4:20: RF126 warning spec.lossless.mtu.host: host MTU 1500 limits RoCE to an active MTU below 4096 (needs about 4200)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, strs(validate(t, tt.f))); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
	// Values written per device are reported per device.
	f := manyDevices(3, ", platform: eos")
	f.switches = strings.ReplaceAll(f.switches, "ports:", "overrides: {mtu: {switch: 9216}}, ports:")
	if diags := validate(t, f); len(diags) != 3 {
		t.Errorf("per-device overrides: want 3 diagnostics, got:\n%s", strings.Join(strs(diags), "\n"))
	}
}

// TestLoaderProblemsAreNotRepeated: a value the loader rejected is not
// reported again by lint as a zero or a missing value.
func TestLoaderProblemsAreNotRepeated(t *testing.T) {
	f := base().with(lossless(" {ecn: {markProbability: 50%, maxThreshold: 1.5Mb}}"))
	f.switches = strings.Replace(eosLeaf, "192.0.2.11", "192.0.2.300", 1)
	f.links = gpuLink + "\n    - {a: gpu01, b: leaf1:Ethernet2}"
	var codes []string
	for _, d := range validate(t, f) {
		codes = append(codes, d.Code)
	}
	if got := strings.Join(codes, " "); got != "RF003 RF012 RF010 RF011" {
		t.Errorf("codes = %s, want only the loader's", got)
	}
}

func TestValidateFiles(t *testing.T) {
	reg := registry(t)
	r, diags := lint.Validate(reg, "../../examples/basic")
	if r == nil || len(diags) > 0 {
		t.Errorf("examples/basic: %v", strs(diags))
	}
	r, diags = lint.Validate(reg, "testdata/does-not-exist")
	if r != nil || len(diags) != 1 || diags[0].Code != intent.CodeNoInput {
		t.Errorf("missing path: %v, %v", r, strs(diags))
	}
}

// TestBrokenExamples runs every examples/broken file through lint with the
// stand-ins, so the examples for platforms not registered yet are checked
// too (agent/cli checks them through the CLI once they are): each reports
// its own code, only that, at the line marked "# <- CODE".
func TestBrokenExamples(t *testing.T) {
	files, err := filepath.Glob("../../examples/broken/*.yaml")
	if err != nil || len(files) < 44 {
		t.Fatalf("broken examples: %d, %v", len(files), err)
	}
	reg := registry(t)
	for _, f := range files {
		code := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(code, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			line := 0
			for i, l := range strings.Split(string(data), "\n") {
				if strings.Contains(l, "# <- "+code) {
					line = i + 1
				}
			}
			_, diags := lint.Validate(reg, f)
			found := false
			for _, d := range diags {
				if d.Code != code {
					t.Errorf("trips %s too: %s", d.Code, d)
				}
				found = found || d.Line == line
			}
			if !found {
				t.Errorf("%s not reported at line %d: %v", code, line, strs(diags))
			}
		})
	}
}

// TestXoffBelowHeadroom: an explicit xoff below what a port still receives
// after it pauses names the port, the computed minimum and what it was
// computed from, where pfc.xoff is written; only the ports short of it are
// counted.
func TestXoffBelowHeadroom(t *testing.T) {
	f := base().with(func(f *fabric) {
		f.switches = `
    - name: leaf1
      platform: cumulus
      model: SN3700
      address: 192.0.2.11
      ports:
        - {names: swp1-2, speed: 100G}
        - {names: swp3, speed: 200G}`
		f.hosts = gpuHost + "\n        - {netdev: ens1f1np1}"
		f.links = `
    - {a: gpu01:ens1f0np0, b: leaf1:swp1, length: 3m}
    - {a: gpu01:ens1f1np1, b: leaf1:swp2, length: 300m}`
		f.lossless = `
    profile: pfc-only
    pfc:
      xoff: 60KB`
	})
	diags := validate(t, f)
	if len(diags) != 1 {
		t.Fatalf("want one diagnostic, got:\n%s", strings.Join(strs(diags), "\n"))
	}
	d := diags[0]
	// SN3700 is Spectrum-2 (cell 144). swp2 is 100G over 300 m to a host,
	// 9022-byte frames from it and 9238 from the switch: SONiC's formula
	// (intent/headroom) gives cable 37879 B, response 394 quanta = 25216 B,
	// occupancy 1.028, xoff 87040 B. swp3, uncabled at 200G, is taken at
	// 100 m: 77824 B. swp1 (3 m) needs 48128 B, below 60 KB.
	for _, want := range []string{
		"RF134 error spec.lossless.pfc.xoff:",
		"switch leaf1: pfc.xoff 60000 B is below the 87040 B port swp2 still receives after it pauses (2 ports are short: swp2-3)",
		"100G, 300 m, frames 9238/9022 B, Spectrum-2",
		"cable 37879 B, peer response 25216 B, MAC/PHY 819 B, cell occupancy 1.03",
	} {
		if !strings.Contains(d.String(), want) {
			t.Errorf("diagnostic lacks %q:\n%s", want, d)
		}
	}
	if d.Line != 7 {
		t.Errorf("reported at line %d, want 7 where pfc.xoff is written: %s", d.Line, d)
	}
	// Raising xoff to the largest need clears it.
	f.lossless = strings.Replace(f.lossless, "60KB", "87040B", 1)
	if diags := validate(t, f); len(diags) != 0 {
		t.Errorf("xoff at the minimum still reported:\n%s", strings.Join(strs(diags), "\n"))
	}
}
