package probe

import (
	"errors"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/validators/probe/transport"
)

// A responder configured for a smaller host MTU than the run (a `probe
// serve --intent` whose hosts say 4200, a `probe run` with the default
// 9000, or the other way round) must not turn the difference into a black
// hole: nothing on this fabric limits packets below 9000.
func TestPoliciesWithDifferentHostMTUsStillPass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                 string
		responderMTU, runMTU int
	}{
		{"responder 4200, run 9000", 4200, 9000},
		{"responder 9000, run 4200", 9000, 4200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := transport.NewMemFabric()
			rpol, spol := fastPolicy(), fastPolicy()
			rpol.HostMTU, spol.HostMTU = tc.responderMTU, tc.runMTU
			memEndpoint(t, f, rpol, memB)
			a := memEndpoint(t, f, spol, memA)
			rep, pr := runTo(t, a, spol, memB)
			if m := pr.Measurements; !rep.Pass() || len(rep.Findings) != 0 || m.PathMTU != tc.runMTU || m.PathMTUReverse != tc.runMTU {
				t.Fatalf("verdict %s, path MTU %d/%d, findings %v", rep.Verdict, m.PathMTU, m.PathMTUReverse, rep.Findings)
			}
		})
	}
}

// A run needing larger packets than the endpoint receives is refused by
// name instead of measuring truncated buffers as loss.
func TestRunAboveWhatTheEndpointReceivesIsRefused(t *testing.T) {
	pol := fastPolicy()
	f := transport.NewMemFabric()
	a := memEndpoint(t, f, pol, memA)
	big := pol
	big.HostMTU = 12000
	_, err := a.Run(t.Context(), RunConfig{Targets: []Target{{Addr: memB}}, Policy: big})
	if !errors.Is(err, ErrPolicyMismatch) || !strings.Contains(err.Error(), "host MTU 12000") {
		t.Fatalf("run at MTU 12000 on an endpoint receiving 9216: %v", err)
	}
}
