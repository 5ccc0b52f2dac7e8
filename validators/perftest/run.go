package perftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

// ErrNotInstalled: ib_write_bw or ib_send_lat is missing on a host; the
// probe command falls back to the built-in probe.
var ErrNotInstalled = errors.New("perftest not installed")

// Exec runs a command on a host (over SSH in production: drivers/ssh) and
// returns what it printed. err is for transport failures; a command that
// ran reports its exit status in exitCode.
type Exec interface {
	Run(ctx context.Context, host string, argv []string) (stdout, stderr []byte, exitCode int, err error)
}

// Endpoint is one side of a pair.
type Endpoint struct {
	Host       string // what Exec dials (the intent host name)
	Address    string // the NIC's RoCE IP; the client connects here
	Netdev     string
	RDMADevice string // found from the netdev when empty
	RDMAPort   int
}

// EndpointFor is the first NIC of an intent host with a RoCE address.
func EndpointFor(h *intent.Host) (Endpoint, error) {
	for _, n := range h.NICs {
		if n.Address != "" {
			return Endpoint{Host: h.Name, Address: n.Address, Netdev: n.Netdev, RDMADevice: n.RDMADevice, RDMAPort: n.RDMAPort}, nil
		}
	}
	return Endpoint{}, fmt.Errorf("host %s: no NIC with a RoCE address in the intent", h.Name)
}

// Plan is what to run for each pair.
type Plan struct {
	Tests []Test // default ib_write_bw, ib_send_lat
	Sizes []int  // message sizes; default 2 (latency) and 65536 (bandwidth)
	// ToS is Policy.RoCEToS().
	ToS      int
	Duration time.Duration // bandwidth runs; default 5s
	Iters    int           // latency runs; default 1000
	TCPPort  int           // default 18515
	RDMACM   bool
}

// Result is one test at one size between a pair.
type Result struct {
	Test      Test       `json:"test"`
	Server    string     `json:"server"`
	Client    string     `json:"client"`
	Size      int        `json:"size"`
	GIDIndex  int        `json:"gidIndex"`
	ToS       int        `json:"tos"`
	OneWay    bool       `json:"oneWay,omitempty"` // latency is RTT/2
	Latency   *Latency   `json:"latency,omitempty"`
	Bandwidth *Bandwidth `json:"bandwidth,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// Runner runs perftest between two hosts: the server on one, the client
// on the other, with the RoCE v2 GID index found from each host's sysfs.
type Runner struct {
	Exec Exec
	Log  *zap.Logger
	// ConnectRetries is how often the client retries while the server is
	// still starting; default 10, 300ms apart.
	ConnectRetries int
	RetryWait      time.Duration
	// ServerGrace is how long a server may take to exit by itself after
	// its client finished before it is cancelled; default 2s.
	ServerGrace time.Duration
}

// Installed checks both tools on a host; the error wraps ErrNotInstalled.
// It also reports whether this perftest writes JSON (--out_json).
func (r *Runner) Installed(ctx context.Context, host string) (json bool, err error) {
	script := `for t in ib_write_bw ib_send_lat; do command -v $t >/dev/null 2>&1 || { echo "missing:$t"; }; done; ` +
		`ib_write_bw --help 2>&1 | grep -q -- --out_json && echo json:yes; exit 0`
	out, stderr, code, err := r.Exec.Run(ctx, host, []string{"sh", "-c", script})
	if err != nil {
		return false, fmt.Errorf("%s: check perftest: %w", host, err)
	}
	if code != 0 {
		return false, fmt.Errorf("%s: check perftest: exit %d: %s", host, code, strings.TrimSpace(string(stderr)))
	}
	var missing []string
	for _, line := range strings.Split(string(out), "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "missing:"); ok {
			missing = append(missing, t)
		}
		json = json || strings.TrimSpace(line) == "json:yes"
	}
	if len(missing) > 0 {
		return false, fmt.Errorf("%w on %s: %s not in PATH (install the perftest package)", ErrNotInstalled, host, strings.Join(missing, ", "))
	}
	return json, nil
}

// GIDIndex finds the RoCE v2 GID index carrying the endpoint's address,
// and the RDMA device when the intent names only the netdev.
func (r *Runner) GIDIndex(ctx context.Context, e Endpoint) (device string, index int, err error) {
	ip, err := netip.ParseAddr(e.Address)
	if err != nil {
		return "", 0, fmt.Errorf("%s: NIC address %q: %w", e.Host, e.Address, err)
	}
	argv, err := rdmasys.GIDListingCommand(e.RDMADevice, e.Netdev, e.RDMAPort)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", e.Host, err)
	}
	out, stderr, code, err := r.Exec.Run(ctx, e.Host, argv)
	if err != nil {
		return "", 0, fmt.Errorf("%s: read GID table: %w", e.Host, err)
	}
	dev, gids, perr := rdmasys.ParseGIDListing(string(out))
	if perr != nil {
		return "", 0, fmt.Errorf("%s: read GID table (exit %d: %s): %w", e.Host, code, strings.TrimSpace(string(stderr)), perr)
	}
	g, ok := rdmasys.FindGID(gids, ip, rdmasys.TypeRoCEv2)
	if !ok {
		return "", 0, fmt.Errorf("%s: %s port %d has no RoCE v2 GID for %s (run rocefab doctor on the host)", e.Host, dev, max(e.RDMAPort, 1), ip)
	}
	return dev, g.Index, nil
}

// RunPair runs every test and size of the plan from client to server.
// Hosts without perftest give an error wrapping ErrNotInstalled before
// anything runs; a test that fails is recorded in its Result and the rest
// still run.
func (r *Runner) RunPair(ctx context.Context, server, client Endpoint, plan Plan) ([]Result, error) {
	log := r.Log
	if log == nil {
		log = zap.NewNop()
	}
	jsonOK := true
	for _, h := range []string{server.Host, client.Host} {
		j, err := r.Installed(ctx, h)
		if err != nil {
			return nil, err
		}
		jsonOK = jsonOK && j
	}
	sDev, sGID, err := r.GIDIndex(ctx, server)
	if err != nil {
		return nil, err
	}
	cDev, cGID, err := r.GIDIndex(ctx, client)
	if err != nil {
		return nil, err
	}
	tests := plan.Tests
	if len(tests) == 0 {
		tests = []Test{WriteBW, SendLat}
	}
	var out []Result
	for _, t := range tests {
		sizes := plan.Sizes
		if len(sizes) == 0 {
			sizes = []int{65536}
			if t.Latency() {
				sizes = []int{2}
			}
		}
		for _, size := range sizes {
			o := Options{Test: t, IBPort: max(server.RDMAPort, 1), ToS: plan.ToS, RDMACM: plan.RDMACM, Size: size, TCPPort: plan.TCPPort}
			if t.Latency() {
				o.Iterations = plan.Iters
				if o.Iterations == 0 {
					o.Iterations = 1000
				}
			} else {
				o.Duration = plan.Duration
				if o.Duration == 0 {
					o.Duration = 5 * time.Second
				}
			}
			res := Result{Test: t, Server: server.Host, Client: client.Host, Size: size, GIDIndex: cGID, ToS: plan.ToS, OneWay: t.OneWay()}
			so, co := o, o
			so.Device, so.GIDIndex = sDev, sGID
			co.Device, co.GIDIndex, co.IBPort = cDev, cGID, max(client.RDMAPort, 1)
			rep, err := r.runOne(ctx, server, client, so, co, jsonOK)
			if err != nil {
				res.Error = err.Error()
				log.Warn("perftest run failed", zap.String("test", string(t)), zap.String("server", server.Host), zap.String("client", client.Host), zap.Error(err))
			} else {
				if len(rep.Latency) > 0 {
					l := rep.Latency[0]
					res.Latency = &l
				}
				if len(rep.Bandwidth) > 0 {
					b := rep.Bandwidth[0]
					res.Bandwidth = &b
				}
			}
			out = append(out, res)
		}
	}
	return out, nil
}

// runOne starts the server, runs the client (retrying while the server is
// not yet listening) and parses the client's report.
func (r *Runner) runOne(ctx context.Context, server, client Endpoint, so, co Options, withJSON bool) (*Report, error) {
	sArgs, err := ServerArgs(so)
	if err != nil {
		return nil, err
	}
	cArgs, err := ClientArgs(co, server.Address)
	if err != nil {
		return nil, err
	}
	if withJSON {
		if cArgs, err = WithJSON(cArgs, fmt.Sprintf("/tmp/rocefab-perftest-%d.json", time.Now().UnixNano())); err != nil {
			return nil, err
		}
	}
	grace := r.ServerGrace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	type srvResult struct {
		out  []byte
		code int
		err  error
	}
	srvDone := make(chan srvResult, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		o, e, code, err := r.Exec.Run(ctx, server.Host, sArgs)
		srvDone <- srvResult{append(o, e...), code, err}
	}()
	// The server ends by itself after its client; past a grace period it
	// is cancelled (the SSH session closes). Either way it is gone before
	// the next test reuses the port.
	defer func() {
		select {
		case <-srvDone:
		case <-time.After(grace):
		}
		cancel()
		wg.Wait()
	}()
	retries, wait := r.ConnectRetries, r.RetryWait
	if retries <= 0 {
		retries = 10
	}
	if wait <= 0 {
		wait = 300 * time.Millisecond
	}
	var out, stderr []byte
	var code int
	for attempt := 0; ; attempt++ {
		select {
		case s := <-srvDone:
			if s.err != nil {
				return nil, fmt.Errorf("%s: perftest server: %w", server.Host, s.err)
			}
			return nil, fmt.Errorf("%s: perftest server exited %d before the client connected: %s", server.Host, s.code, lastLine(s.out))
		default:
		}
		out, stderr, code, err = r.Exec.Run(ctx, client.Host, cArgs)
		if err != nil {
			return nil, fmt.Errorf("%s: perftest client: %w", client.Host, err)
		}
		if code == 0 || !bytes.Contains(append(out, stderr...), []byte("Couldn't connect")) || attempt >= retries {
			break
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	rep, perr := Parse(append(out, stderr...))
	if code != 0 || perr != nil {
		msg := lastLine(append(out, stderr...))
		if perr != nil {
			msg = perr.Error()
		}
		return nil, fmt.Errorf("%s → %s: %s exited %d: %s", client.Host, server.Host, co.Test, code, msg)
	}
	return rep, nil
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// PlanFromIntent is the default plan for a pair of intent hosts: the
// client host's RoCE ToS, ib_write_bw at 64 KiB for 5 s and ib_send_lat at
// 2 bytes.
func PlanFromIntent(client *intent.Host) Plan {
	return Plan{ToS: client.Policy.RoCEToS()}
}

// RunIntentPair runs perftest from host `from` (client) to host `to`
// (server) of a resolved intent. It is what `rocefab probe --engine
// perftest` calls per pair; an error wrapping ErrNotInstalled means "fall
// back to the built-in probe".
func RunIntentPair(ctx context.Context, r *Runner, res *intent.Resolved, from, to string) ([]Result, error) {
	ch, sh := res.Host(from), res.Host(to)
	if ch == nil || sh == nil {
		return nil, fmt.Errorf("perftest: pair %s → %s: both must be hosts in the intent", from, to)
	}
	client, err := EndpointFor(ch)
	if err != nil {
		return nil, err
	}
	server, err := EndpointFor(sh)
	if err != nil {
		return nil, err
	}
	return r.RunPair(ctx, server, client, PlanFromIntent(ch))
}
