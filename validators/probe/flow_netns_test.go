package probe

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rocefab/rocefab/internal/fabriclab"
)

var (
	labH1 = netip.MustParseAddr("192.0.2.2")
	labH3 = netip.MustParseAddr("198.51.100.2")
)

func flowPolicy() Policy {
	p := DefaultPolicy()
	p.Count, p.RatePPS, p.AckEvery = 200, 4000, 4
	p.ConnectTimeout, p.ReplyTimeout = 3*time.Second, 300*time.Millisecond
	return p
}

// labEndpoints opens a probe endpoint on every host of the lab.
func labEndpoints(t *testing.T, l *fabriclab.Lab, pol Policy) map[string]*Endpoint {
	t.Helper()
	eps := map[string]*Endpoint{}
	for _, h := range []string{"h1", "h2", "h3", "h4"} {
		err := l.Do(h, func() error {
			e, err := NewEndpoint(EndpointConfig{Policy: pol, Name: h})
			eps[h] = e
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { eps[h].Close() })
	}
	return eps
}

func runLabFlows(t *testing.T, l *fabriclab.Lab, e *Endpoint, from string, run FlowRun) []FlowResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var res []FlowResult
	err := l.Do(from, func() error {
		var err error
		res, err = e.RunFlows(ctx, run)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFlowsTraceAndMeasureOnTheLab: flows from h1 to h3 on sixteen source
// ports learn three router hops each, answered from the ports the intent
// lists, spread over both spines by the ECMP hash; each port always takes
// the same spine; the data, the MTU check and the quoted DSCP/ECN are
// clean. Then a DSCP remark on leaf1's uplink to spine1 shows in the
// quotes of spine1 and leaf2 on exactly the flows that take it, and an MTU
// of 1500 on that uplink draws "fragmentation needed" from leaf1.
func TestFlowsTraceAndMeasureOnTheLab(t *testing.T) {
	l := fabriclab.Example(t)
	l.WaitReachable(t, "h1", labH3)
	pol := flowPolicy()
	eps := labEndpoints(t, l, pol)
	var flows []FlowSpec
	for i := range 16 {
		flows = append(flows, FlowSpec{ID: "f", Target: Target{Name: "h3", Addr: labH3}, SrcPort: uint16(50100 + i), Trace: true, Measure: true})
	}
	spine := map[uint16]string{}
	spineOf := func(r FlowResult) string {
		switch r.Trace.Hops[1].From.String() {
		case "192.0.2.130":
			return "spine1"
		case "192.0.2.134":
			return "spine2"
		}
		return ""
	}
	for round := range 2 {
		res := runLabFlows(t, l, eps["h1"], "h1", FlowRun{Flows: flows, Policy: pol, From: "h1"})
		for _, r := range res {
			if r.Error != "" || r.TraceError != "" {
				t.Fatalf("flow %d: %s %s", r.SrcPort, r.Error, r.TraceError)
			}
			tr := r.Trace
			if !tr.Reached || len(tr.Hops) != 3 || tr.BigReached != bigPerHop {
				t.Fatalf("flow %d trace %+v", r.SrcPort, tr)
			}
			if tr.Hops[0].From.String() != "192.0.2.1" || (spineOf(r) == "") {
				t.Fatalf("flow %d hops %+v", r.SrcPort, tr.Hops)
			}
			for _, h := range tr.Hops {
				if h.DSCP != 26 || h.ECN != ECT0 || h.BigReached != bigPerHop || h.TooBigFrom.IsValid() {
					t.Errorf("flow %d hop %+v: the quote must show DSCP 26 ECT(0) and the big packets got there", r.SrcPort, h)
				}
			}
			if want := map[string]string{"spine1": "198.51.100.129", "spine2": "198.51.100.133"}[spineOf(r)]; tr.Hops[2].From.String() != want {
				t.Errorf("flow %d: leaf2 answered from %s after %s, want its port to that spine %s", r.SrcPort, tr.Hops[2].From, spineOf(r), want)
			}
			m := r.Measured
			if m == nil || !m.StatsExchanged || m.Sent != pol.Count || m.Received != pol.Count || m.DSCPReceived[26] != pol.Count || m.Flows != 1 {
				t.Fatalf("flow %d measured %+v", r.SrcPort, m)
			}
			if r.MTU == nil || r.MTU.Size != pol.HostMTU || r.MTU.Received != r.MTU.Sent {
				t.Errorf("flow %d MTU %+v", r.SrcPort, r.MTU)
			}
			if prev, ok := spine[r.SrcPort]; ok && prev != spineOf(r) {
				t.Errorf("round %d: port %d moved from %s to %s", round, r.SrcPort, prev, spineOf(r))
			}
			spine[r.SrcPort] = spineOf(r)
		}
	}
	count := map[string]int{}
	for _, s := range spine {
		count[s]++
	}
	if count["spine1"] == 0 || count["spine2"] == 0 {
		t.Fatalf("16 source ports all took one spine: %v (is the L4 hash on?)", count)
	}

	t.Run("dscp remark on leaf1 to spine1", func(t *testing.T) {
		defer l.Nft(t, "leaf1", "postrouting", `oifname "swp3" ip dscp set cs1`)()
		for _, r := range runLabFlows(t, l, eps["h1"], "h1", FlowRun{Flows: flows, Policy: pol, From: "h1"}) {
			want := uint8(26)
			if spine[r.SrcPort] == "spine1" {
				want = 8
			}
			h := r.Trace.Hops
			if h[0].DSCP != 26 || h[1].DSCP != want || h[2].DSCP != want || r.Measured.DSCPReceived[want] != pol.Count {
				t.Errorf("flow %d via %s: DSCP at the hops %d %d %d, at h3 %v; want 26 %d %d", r.SrcPort, spine[r.SrcPort],
					h[0].DSCP, h[1].DSCP, h[2].DSCP, r.Measured.DSCPReceived, want, want)
			}
		}
	})
	t.Run("mtu 1500 on leaf1 to spine1", func(t *testing.T) {
		l.Run("leaf1", "ip", "link", "set", "swp3", "mtu", "1500")
		defer l.Run("leaf1", "ip", "link", "set", "swp3", "mtu", "9000")
		for _, r := range runLabFlows(t, l, eps["h1"], "h1", FlowRun{Flows: flows, Policy: pol, From: "h1"}) {
			h := r.Trace.Hops
			if spine[r.SrcPort] == "spine2" {
				if h[1].BigReached != bigPerHop || r.MTU.Received != r.MTU.Sent {
					t.Errorf("flow %d via spine2 must carry 9000 bytes: %+v %+v", r.SrcPort, h, r.MTU)
				}
				continue
			}
			if h[0].BigReached != bigPerHop || h[1].BigReached != 0 || h[1].TooBigFrom.String() != "192.0.2.1" || h[1].TooBigMTU != 1500 {
				t.Errorf("flow %d via spine1: hops %+v, want leaf1 to refuse the big packets with MTU 1500", r.SrcPort, h)
			}
			if r.MTU.Received != 0 || r.Measured.Received != pol.Count {
				t.Errorf("flow %d via spine1: MTU check %+v, data %d of %d", r.SrcPort, r.MTU, r.Measured.Received, pol.Count)
			}
		}
	})
}
