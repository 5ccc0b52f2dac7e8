package mesh

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/internal/golden"
	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe/path"
)

func named(rep *Report) []string {
	var out []string
	for _, f := range rep.Localization.Findings {
		if f.Status == localize.Localized {
			out = append(out, string(f.Class)+" "+f.Element.String())
		}
	}
	slices.Sort(out)
	return out
}

// TestRunMeshOnASimulatedFabric runs the whole pipeline on paper: plan,
// learn the paths it needs through the runner, measure, drill into the
// lossy flows, localize.
func TestRunMeshOnASimulatedFabric(t *testing.T) {
	s := newSimFabric(t, 4, 2, 3)
	opt := Options{Plan: PlanConfig{Interval: 30 * time.Second}}
	classes := map[string]localize.Class{"dscp": localize.DSCP, "ecn": localize.ECN, "ce": localize.CE, "loss": localize.Loss, "mtu": localize.MTU}
	for _, class := range []string{"dscp", "ecn", "ce", "loss", "mtu"} {
		for _, link := range []path.DirLink{s.upLink(2, 1), s.upLink(3, 2).Reverse()} {
			t.Run(class+"/"+link.String(), func(t *testing.T) {
				sr := &simRunner{s: s, faults: []simFault{{link, class}}}
				rep, err := RunMesh(context.Background(), s.res, sr, opt)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{string(classes[class]) + " " + elem(link).String()}
				if got := named(rep); !slices.Equal(got, want) {
					t.Fatalf("named %v, want %v\n%s", got, want, text(rep))
				}
				if rep.Pass() || rep.Plan.Traced == 0 || len(rep.Plan.Short) != 0 {
					t.Fatalf("verdict %s traced %d short %v", rep.Verdict, rep.Plan.Traced, rep.Plan.Short)
				}
			})
		}
	}
	t.Run("clean", func(t *testing.T) {
		cache := path.NewCache(time.Hour)
		for run := range 3 {
			sr := &simRunner{s: s}
			rep, err := RunMesh(context.Background(), s.res, sr, Options{Plan: opt.Plan, Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Pass() || len(rep.Localization.Findings) != 0 || len(rep.PathChanges) != 0 {
				t.Fatalf("run %d of a clean fabric: %s", run, text(rep))
			}
			// The cache makes later runs trace nothing but the plan's flows.
			if run > 0 && rep.Plan.Traced != 0 {
				t.Fatalf("run %d traced %d candidates again", run, rep.Plan.Traced)
			}
		}
	})
}

// TestRunMeshWithoutPathDiscovery: without paths the mesh still measures,
// names nothing it cannot place, and says why.
func TestRunMeshWithoutPathDiscovery(t *testing.T) {
	s := newSimFabric(t, 2, 2, 2)
	sr := &simRunner{s: s, faults: []simFault{{s.upLink(2, 1), "dscp"}}, noICMP: true}
	rep, err := RunMesh(context.Background(), s.res, sr, Options{Plan: PlanConfig{Interval: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "no path discovery from l1h1: path discovery needs a raw ICMP socket") || !strings.Contains(notes, "gave up learning paths") {
		t.Fatalf("notes:\n%s", notes)
	}
	if len(named(rep)) != 0 || rep.Localization.Verdict != localize.VerdictInconclusive || rep.Pass() || rep.Plan.CrossLeaf == 0 {
		t.Fatalf("named %v, verdict %s\n%s", named(rep), rep.Localization.Verdict, text(rep))
	}
}

func text(rep *Report) string {
	var b bytes.Buffer
	_ = rep.WriteText(&b)
	return b.String()
}

// TestMeshReports: the lab's shape on paper, a DSCP remark on spine2's
// link to leaf1 and an MTU hole on leaf2's uplink to spine1, in every
// format.
func TestMeshReports(t *testing.T) {
	s := newSimFabric(t, 2, 2, 2)
	sr := &simRunner{s: s, faults: []simFault{{s.upLink(1, 2).Reverse(), "dscp"}, {s.upLink(2, 1), "mtu"}}}
	rep, err := RunMesh(context.Background(), s.res, sr, Options{Plan: PlanConfig{Interval: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if got := named(rep); !slices.Equal(got, []string{"dscp_remarked spine2 down1 → leaf1 up2", "mtu_blackhole leaf2 up1 → spine1 down2"}) {
		t.Fatalf("named %v\n%s", got, text(rep))
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"mesh.txt", func(b *bytes.Buffer) error { return rep.WriteText(b) }},
		{"mesh.md", func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", f.name), b.Bytes())
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(&b)
	if err != nil || back.Verdict != rep.Verdict || len(back.Flows) != len(rep.Flows) || len(back.Localization.Findings) != 2 {
		t.Fatalf("JSON round trip: %v", err)
	}
	if !strings.Contains(fmt.Sprint(back.Flows[0].Steps), "leaf") {
		t.Fatalf("steps lost in JSON: %+v", back.Flows[0].Steps)
	}
}
