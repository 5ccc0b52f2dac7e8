package localize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// lab is the shape of examples/lab: two leaves of two hosts, two spines.
var lab = simFabric{leaves: 2, spines: 2, hosts: 2}

func localized(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Status == Localized {
			name := f.Element.String()
			if f.Both {
				name += " (both)"
			}
			out = append(out, string(f.Class)+" "+name)
		}
	}
	slices.Sort(out)
	return out
}

func inconclusive(r Result) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Status == Inconclusive {
			var names []string
			for _, c := range f.Candidates {
				names = append(names, c.String())
			}
			out = append(out, string(f.Class)+" "+strings.Join(names, " | "))
		}
	}
	return out
}

// TestSingleFaultOnEveryFabricLink: each class on each fabric link of the
// lab in each direction is named, and only it, with 3 flows per direction.
func TestSingleFaultOnEveryFabricLink(t *testing.T) {
	flows := meshFlows(lab, 3)
	var els []Element
	for l := 1; l <= 2; l++ {
		for s := 1; s <= 2; s++ {
			els = append(els, lab.up(l, s), lab.down(s, l))
		}
	}
	for _, c := range Classes {
		for _, el := range els {
			t.Run(string(c)+"/"+el.String(), func(t *testing.T) {
				share := 1.0
				if c == Loss {
					share = 0.05
				}
				r := Localize(observe(lab, flows, []fault{{el, c, share}}, simOptions{}), Options{})
				if got, want := localized(r), []string{string(c) + " " + el.String()}; !slices.Equal(got, want) {
					t.Fatalf("localized %v, want %v; inconclusive %v", got, want, inconclusive(r))
				}
				if r.Verdict != VerdictLocalized || len(r.Findings) != 1 {
					t.Fatalf("verdict %s, findings %+v", r.Verdict, r.Findings)
				}
				ev := r.Findings[0].Evidence
				// 3 flows per spine and leaf pair cross each direction; the
				// other 3 cross-leaf flows of that pair, the 3 of the other
				// pair and 4 within leaves do not.
				if ev.BadThrough != 3 || ev.FlowsThrough != 3 || ev.BadElsewhere != 0 || ev.FlowsElsewhere != 16-3 {
					t.Errorf("evidence %+v", ev)
				}
			})
		}
	}
}

func TestSummaryReadsLikeEvidence(t *testing.T) {
	el := lab.down(2, 1) // S2 down1 → L1 up2
	r := Localize(observe(lab, meshFlows(lab, 3), []fault{{el, DSCP, 1}}, simOptions{}), Options{})
	f := r.Findings[0]
	want := "S2 down1 → L1 up2: DSCP 26 arrived as 8 on 3 of 3 flows through it; 0 of 13 flows elsewhere"
	if f.Summary != want {
		t.Errorf("summary\n got %s\nwant %s", f.Summary, want)
	}
	if len(f.Details) == 0 || f.Details[0] != "hop replies: DSCP 26 entering S2 on 3 of 3 flows; DSCP 8 entering L1 on 3 of 3 flows" {
		t.Errorf("details %q", f.Details)
	}
}

func TestCleanFabricNamesNothing(t *testing.T) {
	for _, s := range []simFabric{lab, {leaves: 4, spines: 4, hosts: 4}} {
		r := Localize(observe(s, meshFlows(s, 3), nil, simOptions{}), Options{})
		if r.Verdict != VerdictClean || len(r.Findings) != 0 {
			t.Fatalf("%+v: %+v", s, r)
		}
		if r.Observations[DSCP] == 0 || r.BadObservations[DSCP] != 0 {
			t.Fatalf("counts %v %v", r.Observations, r.BadObservations)
		}
	}
}

func TestTwoIndependentFaults(t *testing.T) {
	big := simFabric{leaves: 4, spines: 4, hosts: 4}
	for _, tc := range []struct {
		name   string
		fab    simFabric
		faults []fault
	}{
		{"same class, lab", lab, []fault{{lab.up(1, 1), DSCP, 1}, {lab.down(2, 1), DSCP, 1}}},
		{"same class, a shared leaf", big, []fault{{big.up(1, 1), ECN, 1}, {big.up(1, 2), ECN, 1}}},
		{"loss and CE", big, []fault{{big.up(2, 3), Loss, 0.05}, {big.down(4, 1), CE, 1}}},
		{"two MTU holes", big, []fault{{big.down(1, 2), MTU, 1}, {big.up(3, 4), MTU, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Localize(observe(tc.fab, meshFlows(tc.fab, 3), tc.faults, simOptions{}), Options{})
			var want []string
			for _, f := range tc.faults {
				want = append(want, string(f.class)+" "+f.el.String())
			}
			slices.Sort(want)
			if got := localized(r); !slices.Equal(got, want) {
				t.Fatalf("localized %v, want %v; inconclusive %v", got, want, inconclusive(r))
			}
			if len(inconclusive(r)) != 0 {
				t.Errorf("left inconclusive: %v", inconclusive(r))
			}
		})
	}
}

// TestInconclusiveWithoutHopEvidence: end to end only, in a fabric of two
// leaves, a leaf's uplink to a spine and that spine's downlink to the
// other leaf carry exactly the same flows: no probe can tell them apart.
func TestInconclusiveWithoutHopEvidence(t *testing.T) {
	r := Localize(observe(lab, meshFlows(lab, 3), []fault{{lab.up(1, 2), DSCP, 1}}, simOptions{noHops: true}), Options{})
	if len(localized(r)) != 0 || r.Verdict != VerdictInconclusive {
		t.Fatalf("localized %v with no way to separate the candidates", localized(r))
	}
	got := inconclusive(r)
	want := []string{"dscp_remarked L1 up2 → S2 down1 | S2 down2 → L2 up2"}
	if !slices.Equal(got, want) {
		t.Fatalf("inconclusive %v, want %v", got, want)
	}
	if s := r.Findings[0].Summary; !strings.Contains(s, "cannot tell them apart") || !strings.Contains(s, "on 3 of 3 flows") {
		t.Errorf("summary %q", s)
	}
	// In a bigger fabric the other leaves' flows separate them, end to end.
	big := simFabric{leaves: 4, spines: 2, hosts: 2}
	r = Localize(observe(big, meshFlows(big, 3), []fault{{big.up(1, 2), DSCP, 1}}, simOptions{noHops: true}), Options{})
	if got := localized(r); !slices.Equal(got, []string{"dscp_remarked L1 up2 → S2 down1"}) {
		t.Fatalf("four leaves, end to end only: %v %v", got, inconclusive(r))
	}
}

// TestSilentHopLocalizesWhatItCan: spine S1 drops ICMP (no replies from
// it). A fault on a link through spine S2 is named as before; one on a
// link through S1 cannot be told from S1's link onwards, and says so.
func TestSilentHopLocalizesWhatItCan(t *testing.T) {
	opt := simOptions{silent: map[string]bool{"S1": true}}
	r := Localize(observe(lab, meshFlows(lab, 3), []fault{{lab.up(1, 1), DSCP, 1}}, opt), Options{})
	if got := inconclusive(r); !slices.Equal(got, []string{"dscp_remarked L1 up1 → S1 down1 | S1 down2 → L2 up1"}) || len(localized(r)) != 0 {
		t.Fatalf("inconclusive %v localized %v", got, localized(r))
	}
	for _, el := range []Element{lab.up(1, 2), lab.down(2, 1), lab.up(2, 2)} {
		r = Localize(observe(lab, meshFlows(lab, 3), []fault{{el, ECN, 1}, {lab.down(1, 2), DSCP, 1}}, opt), Options{})
		if got := localized(r); !slices.Equal(got, []string{"ecn_bleached " + el.String()}) {
			t.Fatalf("localized %v inconclusive %v", got, inconclusive(r))
		}
		if got := inconclusive(r); !slices.Equal(got, []string{"dscp_remarked L1 up1 → S1 down1 | S1 down2 → L2 up1"}) {
			t.Fatalf("the fault behind the silent spine: %v", got)
		}
	}
}

func TestDeviceFault(t *testing.T) {
	big := simFabric{leaves: 4, spines: 2, hosts: 3}
	// Every packet leaving L2 is bleached: all of its links, one device.
	var faults []fault
	faults = append(faults, fault{big.up(2, 1), ECN, 1}, fault{big.up(2, 2), ECN, 1})
	for k := 1; k <= 3; k++ {
		faults = append(faults, fault{big.hostUp(2, k).Reverse(), ECN, 1})
	}
	r := Localize(observe(big, meshFlows(big, 3), faults, simOptions{noHops: true}), Options{})
	if got := localized(r); !slices.Equal(got, []string{"ecn_bleached L2"}) {
		t.Fatalf("localized %v inconclusive %v", got, inconclusive(r))
	}
}

func TestBothDirectionsMerge(t *testing.T) {
	r := Localize(observe(lab, meshFlows(lab, 3), []fault{{lab.up(2, 1), MTU, 1}, {lab.down(1, 2), MTU, 1}}, simOptions{}), Options{})
	if got := localized(r); !slices.Equal(got, []string{"mtu_blackhole L2 up1 → S1 down2 (both)"}) {
		t.Fatalf("localized %v", got)
	}
	if s := r.Findings[0].Summary; s != "L2 up1 ↔ S1 down2 (both directions): packets of 9000 bytes lost on 6 of 6 flows through it; 0 of 10 flows elsewhere" {
		t.Errorf("summary %q", s)
	}
}

// TestNoiseIsNotAFault: one flow losing a packet names nothing (one flow
// is below MinFlows), but is reported.
func TestNoiseIsNotAFault(t *testing.T) {
	obs := observe(lab, meshFlows(lab, 3), nil, simOptions{})
	for i := range obs {
		if obs[i].Class == Loss && obs[i].Hop == 0 && strings.HasPrefix(obs[i].Flow, "L1h1→L2h1") {
			obs[i].Bad, obs[i].Affected = true, 1
			break
		}
	}
	r := Localize(obs, Options{})
	if len(localized(r)) != 0 || r.Verdict != VerdictInconclusive || len(r.Findings) != 1 {
		t.Fatalf("%v %v", localized(r), inconclusive(r))
	}
	if s := r.Findings[0].Summary; !strings.HasPrefix(s, "inconclusive: 1 of 200 packets lost (0.5%) on 1 flows that no single element explains") {
		t.Errorf("summary %q", s)
	}
}

// TestLossMissingSomeFlows: 0.5% loss leaves some flows through the link
// without a lost packet; the link is still named, never its neighbours.
func TestLossMissingSomeFlows(t *testing.T) {
	big := simFabric{leaves: 4, spines: 4, hosts: 4}
	for seed := range uint64(20) {
		el := big.down(1+int(seed%4), 1+int(seed/4%4))
		r := Localize(observe(big, meshFlows(big, 3), []fault{{el, Loss, 0.005}}, simOptions{rng: rand.New(rand.NewPCG(seed, 9))}), Options{})
		got := localized(r)
		if len(got) > 1 || (len(got) == 1 && got[0] != "loss "+el.String()) {
			t.Fatalf("seed %d: localized %v, want at most %s", seed, got, el)
		}
		if len(got) == 0 && r.Verdict == VerdictClean {
			t.Fatalf("seed %d: lossy link went unnoticed", seed)
		}
	}
}
