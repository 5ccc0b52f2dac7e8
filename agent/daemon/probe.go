package daemon

import (
	"context"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/intent"
)

// ProbeRunner runs the RoCEv2 probe for the devices this agent owns
// (owns is nil for every device) and summarises the report. The probe
// library is wired through agent/daemon/probewire.
type ProbeRunner func(ctx context.Context, r *intent.Resolved, owns func(device string) bool) (ProbeSummary, error)

// Verdicts a ProbeSummary carries.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// ProbeSummary is what the agent keeps of a probe report.
type ProbeSummary struct {
	Verdict  string
	Pairs    []history.ProbePair
	Findings []history.Finding
}
