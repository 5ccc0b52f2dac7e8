package probe

import (
	"net/netip"
	"testing"

	"github.com/rocefab/rocefab/validators/probe/transport"
)

// Each `probe run` is a new process whose endpoint numbers QPs from QPMin,
// while the responder (`probe serve`) lives on and remembers every QP's
// expected PSN. The sweep session skipped the Begin handshake, so whenever
// its random first PSN lay behind what the previous run left (half the
// runs), the responder took its SENDs for duplicates and the sweep
// reported a forward black hole at the data packets' size. Ten fresh
// senders against one responder: with the old code all ten passing had a
// chance of about 1 in 500.
func TestFreshSendersAgainstOneResponderNeverSeeABlackHole(t *testing.T) {
	t.Parallel()
	pol := fastPolicy()
	pol.Count = 20
	f := transport.NewMemFabric()
	memEndpoint(t, f, pol, memB)
	for run := range 10 {
		a, err := NewEndpoint(EndpointConfig{Policy: pol, Network: f.Host(memA), Listen: []netip.Addr{memA}, Name: "host-a"})
		if err != nil {
			t.Fatal(err)
		}
		rep, pr := runTo(t, a, pol, memB)
		a.Close()
		if m := pr.Measurements; !rep.Pass() || m.PathMTU != 9000 || m.PathMTUReverse != 9000 {
			t.Fatalf("run %d on a clean fabric: %s, path MTU %d/%d, findings %v", run+1, rep.Verdict, m.PathMTU, m.PathMTUReverse, rep.Findings)
		}
	}
}
