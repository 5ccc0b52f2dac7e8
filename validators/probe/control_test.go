package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	nic "github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/probe/transport"
)

// noNetwork fails the test if anything tries to open a socket through it:
// a run delegated to a server must not bind the port itself.
type noNetwork struct{ t *testing.T }

func (n noNetwork) Listen(a netip.AddrPort, _ transport.Options) (transport.Conn, error) {
	n.t.Errorf("Run opened its own socket on %s instead of using the server", a)
	return nil, errors.New("no network")
}
func (n noNetwork) Source(netip.Addr) (netip.Addr, error) {
	return netip.Addr{}, errors.New("no network")
}
func (n noNetwork) Close() error { return nil }

// serveMem starts a probe server for host A on an in-memory fabric.
func serveMem(t *testing.T, f *transport.MemFabric, dir string, pol Policy) *Endpoint {
	t.Helper()
	e, err := NewEndpoint(EndpointConfig{Policy: pol, Network: f.Host(memA), Listen: []netip.Addr{memA}, RunDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		e.Close()
	})
	waitControl(t, dir)
	return e
}

func waitControl(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !controlAlive(dir); {
		if time.Now().After(deadline) {
			t.Fatal("control socket never came up")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunGoesThroughARunningServer(t *testing.T) {
	dir := t.TempDir()
	pol := fastPolicy()
	f := transport.NewMemFabric()
	memEndpoint(t, f, pol, memB)
	serveMem(t, f, dir, pol)
	if fi, err := os.Stat(controlPath(dir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("control socket: %v %v", fi.Mode(), err)
	}

	var pcap bytes.Buffer
	rep, err := Run(context.Background(), RunConfig{
		Targets: []Target{{Name: "host-b", Addr: memB}}, Policy: pol, From: "host-a", Pcap: &pcap,
		Endpoint: EndpointConfig{RunDir: dir, Network: noNetwork{t}}, HostCounters: tickingNIC("host-a"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Pass() || rep.Pairs[0].Name() != "host-a -> host-b" || rep.Pairs[0].Measurements.Received != pol.Count {
		t.Fatalf("report via server: %s %+v", rep.Verdict, rep.Pairs[0])
	}
	// This host's counters are read here, around the server's run.
	checkTicked(t, rep, "host-a")
	// The pcap came back through the socket: a pcap header and packets.
	if pcap.Len() < 24+100 || !bytes.Equal(pcap.Bytes()[:4], []byte{0xd4, 0xc3, 0xb2, 0xa1}) {
		t.Fatalf("pcap via server: %d bytes", pcap.Len())
	}

	// A second server on the same host is refused by name, not with
	// "address in use".
	err = Serve(context.Background(), EndpointConfig{Policy: pol, Network: noNetwork{t}, RunDir: dir})
	if !errors.Is(err, ErrServerRunning) {
		t.Fatalf("second Serve: %v", err)
	}

	// The server checks the protocol version and the policy.
	c, err := net.Dial("unix", controlPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	json.NewEncoder(c).Encode(controlRequest{Version: 9, Op: "run"})
	var ev controlEvent
	json.NewDecoder(c).Decode(&ev)
	c.Close()
	if ev.Type != "error" || ev.Error != "control protocol version 9 not supported (server speaks 1)" {
		t.Fatalf("version 9 request: %+v", ev)
	}
	other := pol
	other.PKey = 0xFFFF
	_, err = Run(context.Background(), RunConfig{Targets: []Target{{Addr: memB}}, Policy: other,
		Endpoint: EndpointConfig{RunDir: dir, Network: noNetwork{t}}})
	if err == nil || !strings.Contains(err.Error(), "run policy does not match the endpoint") {
		t.Fatalf("mismatched P_Key through the server: %v", err)
	}
}

func TestRunWithoutServer(t *testing.T) {
	pol := fastPolicy()
	pol.SkipMTUSweep = true
	f := transport.NewMemFabric()
	memEndpoint(t, f, pol, memB)
	// No server in RunDir: Run opens its own endpoint on the port.
	rep, err := Run(context.Background(), RunConfig{Targets: []Target{{Addr: memB}}, Policy: pol,
		Endpoint: EndpointConfig{RunDir: t.TempDir(), Network: f.Host(memA), Listen: []netip.Addr{memA}}})
	if err != nil || !rep.Pass() {
		t.Fatalf("own endpoint: %v %v", err, rep)
	}
	if _, err := Run(context.Background(), RunConfig{}); !errors.Is(err, ErrNoTargets) {
		t.Fatalf("no targets: %v", err)
	}
}

// When something that is not a probe server holds the port, Run says so
// plainly instead of failing with a bare "address in use".
func TestRunPortHeldByAnotherProgram(t *testing.T) {
	t.Parallel()
	pol := fastPolicy()
	f := transport.NewMemFabric()
	host := f.Host(memA)
	squatter, err := host.Listen(netip.AddrPortFrom(memA, DefaultPort), transport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer squatter.Close()
	dir := t.TempDir()
	_, err = Run(context.Background(), RunConfig{Targets: []Target{{Addr: memB}}, Policy: pol,
		Endpoint: EndpointConfig{RunDir: dir, Network: host, Listen: []netip.Addr{memA}}})
	if !errors.Is(err, ErrPortInUse) || !strings.Contains(err.Error(), "no probe server answers on "+controlPath(dir)) ||
		strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("port held by a non-probe program: %v", err)
	}
}

// A socket file left behind by a server that died does not block a new one.
func TestServeReplacesStaleSocket(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("unix", controlPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(controlPath(dir)); err != nil {
		t.Fatal("stale socket file missing")
	}
	serveMem(t, transport.NewMemFabric(), dir, fastPolicy())
}

// tickingStats is a NIC whose priority 3 pause counter rises by one on
// every read.
type tickingStats struct{ n uint64 }

func (s *tickingStats) Stats(string) (map[string]uint64, error) {
	s.n++
	return map[string]uint64{"rx_prio3_pause": s.n, "rx_prio3_buf_discard": 7, "rx_bytes": s.n}, nil
}

func tickingNIC(host string) *nic.HostProbe {
	return nic.NewHostProbe(host, rdmasys.New("/nonexistent"), &tickingStats{}, []string{"eth9"})
}

func checkTicked(t *testing.T, rep *Report, host string) {
	t.Helper()
	if len(rep.HostCounters) != 1 {
		t.Fatalf("host counters %+v, want one host", rep.HostCounters)
	}
	hc := rep.HostCounters[0]
	moved := hc.Moved()
	if hc.Host != host || len(hc.Counters) != 2 || len(moved) != 1 || moved[0].Counter != "ethtool/rx_prio3_pause" || moved[0].Delta != 1 ||
		hc.Unavailable != "unavailable on this NIC: eth9 has no RDMA device (so no hw_counters)" {
		t.Fatalf("host counters %+v", hc)
	}
	var b strings.Builder
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "host counters during the probe\n  "+host+" eth9: 1 of 2 counters moved\n    unavailable on this NIC: eth9 has no RDMA device (so no hw_counters)\n    priority 3 pause frames received rose by 1 on "+host+" eth9\n") {
		t.Fatalf("text report:\n%s", b.String())
	}
}

func TestRunReadsHostCountersAroundItsOwnEndpoint(t *testing.T) {
	pol := fastPolicy()
	pol.SkipMTUSweep = true
	f := transport.NewMemFabric()
	memEndpoint(t, f, pol, memB)
	rep, err := Run(context.Background(), RunConfig{
		Targets: []Target{{Name: "host-b", Addr: memB}}, Policy: pol, From: "host-a",
		Endpoint: EndpointConfig{Network: f.Host(memA), Listen: []netip.Addr{memA}}, HostCounters: tickingNIC("host-a"),
	})
	if err != nil || !rep.Pass() {
		t.Fatal(err, rep.Findings)
	}
	checkTicked(t, rep, "host-a")
}
