package probewire

import (
	"context"

	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
	"github.com/rocefab/rocefab/validators/probe/path"
)

// MeshRunner is the agent's MeshRunner over validators/probe/mesh, as
// `rocefab probe --mesh` runs it: each host's flows run where the host is
// (runner decides). The paths it learns are kept between runs (opt.Cache,
// or a cache of its own), so a run traces only flows it has not seen.
func MeshRunner(runner mesh.FlowRunner, opt mesh.Options) daemon.MeshRunner {
	if opt.Cache == nil {
		opt.Cache = path.NewCache(0)
	}
	return func(ctx context.Context, r *intent.Resolved) (daemon.MeshSummary, error) {
		rep, err := mesh.RunMesh(ctx, r, runner, opt)
		if err != nil {
			return daemon.MeshSummary{}, err
		}
		return SummariseMesh(path.New(r), rep), nil
	}
}

// SummariseMesh keeps what the agent records and exports of a mesh
// report: every fabric link of the topology in both directions with the
// flows the plan put on it, and the findings.
func SummariseMesh(topo *path.Topology, rep *mesh.Report) daemon.MeshSummary {
	s := daemon.MeshSummary{Verdict: daemon.VerdictFail, Localization: string(rep.Localization.Verdict), Flows: len(rep.Flows),
		PartlyUnknown: len(rep.PartlyUnknown), Notes: rep.Notes, Findings: []daemon.MeshFinding{}}
	if rep.Verdict == probe.VerdictPass {
		s.Verdict = daemon.VerdictPass
	}
	flows := map[path.DirLink]int{}
	for _, c := range rep.Plan.Coverage {
		flows[c.Link] = c.Flows
	}
	for _, l := range topo.FabricLinks() {
		a, b := port(l.A), port(l.B)
		ab := path.DirLink{From: l.A, To: l.B}
		s.Links = append(s.Links,
			daemon.MeshLink{A: a, B: b, From: a, To: b, Flows: flows[ab]},
			daemon.MeshLink{A: a, B: b, From: b, To: a, Flows: flows[ab.Reverse()]})
	}
	for _, f := range rep.Localization.Findings {
		mf := daemon.MeshFinding{Class: string(f.Class), Status: string(f.Status), Summary: f.Summary}
		if e := f.Element; e != nil {
			switch e.Kind {
			case localize.KindLink:
				mf.Links = append(mf.Links, dir(*e))
				if f.Both {
					mf.Links = append(mf.Links, dir(e.Reverse()))
				}
			case localize.KindDevice:
				mf.Device = e.Device
			}
		}
		for _, c := range f.Candidates {
			if c.Kind == localize.KindLink {
				mf.Candidates = append(mf.Candidates, dir(c))
			}
		}
		s.Findings = append(s.Findings, mf)
	}
	return s
}

func port(p path.PortRef) history.Port { return history.Port{Device: p.Device, Port: p.Port} }

func dir(e localize.Element) daemon.MeshDir {
	return daemon.MeshDir{From: history.Port{Device: e.Device, Port: e.Port}, To: history.Port{Device: e.Peer, Port: e.PeerPort}}
}
