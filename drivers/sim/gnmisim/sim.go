package gnmisim

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// Personality selects how the target behaves.
type Personality string

const (
	// OpenConfig is an EOS-like OpenConfig target: it advertises an Arista
	// model beside the OpenConfig ones and takes origin "cli" CLI text
	// (ascii_val, cli.go) in the same SetRequest, as a vendor's own server does (the eos
	// fallback's precondition, renderers/openconfig Fit).
	OpenConfig Personality = "openconfig"
	// SONiC serves config_db as sonic-gnmi does (origin sonic-db,
	// /CONFIG_DB/localhost/TABLE/key/field, JSON patch semantics) with
	// buffermgrd's traditional-model writes; see sonic.go.
	SONiC Personality = "sonic"
)

// Options configure a simulated target. Zero values are sensible except
// for authentication, which must be chosen: Username/Password, or NoAuth.
type Options struct {
	Name        string // device name used in messages; default "gnmisim"
	Personality Personality
	// Ports that have counters; default Ethernet1-4 (OpenConfig) or
	// Ethernet0,4,8,12 (SONiC).
	Ports []string
	// CountersDB makes an OpenConfig personality also serve SONiC's
	// COUNTERS_DB target (always on for SONiC): a stand-in for tests of a
	// platform that needs per-priority PFC counters, which OpenConfig does
	// not model, without SONiC's config_db conventions.
	CountersDB bool

	Username string
	Password string
	// NoAuth accepts every request without credentials: a test-only mode
	// for third-party clients that would otherwise prompt for a password.
	NoAuth bool

	// Plaintext serves without TLS (tests only). Otherwise the target
	// serves TLS with a freshly generated CA (see CAPEM).
	Plaintext bool
	// RequireClientCert turns on mutual TLS (see ClientCertPEM).
	RequireClientCert bool

	// CommitConfirmed advertises and honours the gnmi_ext Commit extension.
	CommitConfirmed bool
	// Models advertised in Capabilities; default per personality.
	Models []*gnmipb.ModelData
	// Encodings offered; default JSON_IETF and JSON.
	Encodings []gnmipb.Encoding

	// YANGDir, when set, validates OpenConfig Set updates against the YANG
	// modules there (goyang). Start fails if the folder is absent.
	YANGDir string

	Counters CounterOptions
	// SampleSpread starts the sample timers of a stream's subscriptions
	// this far apart in all (subscription i of n at i/n of it), as a
	// target that samples each subscription on its own timer sends them
	// spread over the interval; zero: all at once.
	SampleSpread time.Duration
	// SampleJitter holds each sample cycle of a stream back by a random
	// share of it, every subscription alike, as a target whose CPU is
	// busy samples late (seeded by SampleSeed, so a run can be replayed).
	SampleJitter time.Duration
	SampleSeed   uint64
	Logger       *zap.Logger
}

// Faults are injected failures; the zero value injects none.
type Faults struct {
	// RejectPath makes a Set touching this path (at, above or below it)
	// fail with InvalidArgument and RejectMessage.
	RejectPath    string
	RejectMessage string
	// DropSets closes the client connection in the middle of the next n
	// Sets, leaving the tree unchanged.
	DropSets int
	// Delay answers every RPC this much later.
	Delay time.Duration
	// RefuseAuth fails every RPC with Unauthenticated.
	RefuseAuth bool
	// Steps break single RPCs: each fires once, on the Nth RPC (counted
	// from SetFaults) whose method contains its Method.
	Steps []StepFault
}

// StepAction is what a StepFault does to its RPC.
type StepAction int

const (
	// DropBefore closes the connection as the RPC arrives: it never runs.
	DropBefore StepAction = iota + 1
	// DropAfter runs the RPC, then closes the connection without an
	// answer: a Set is applied and the client never hears of it (the gNMI
	// specification makes one SetRequest one transaction, applied whole or
	// not at all).
	DropAfter
	// Hang runs the RPC and answers only when the client gave up.
	Hang
	// Slow runs the RPC and answers Delay later.
	Slow
)

// StepFault is one broken RPC.
type StepFault struct {
	// Method selects RPCs whose full method name contains it ("Set",
	// "Get"); empty selects every unary RPC.
	Method string
	// Nth is the occurrence among the selected RPCs, from 1 (0 is 1).
	Nth    int
	Action StepAction
	Delay  time.Duration
}

// Target is a running simulated gNMI target.
type Target struct {
	gnmipb.UnimplementedGNMIServer

	opt    Options
	pki    *PKI
	lis    *trackingListener
	srv    *grpc.Server
	log    *zap.Logger
	schema *schema

	mu       sync.Mutex
	tree     tree
	faults   Faults
	stepSeen []int
	calls    []string
	pending  *pendingCommit
	counters counters
	sets     int
	lastSet  *gnmipb.SetRequest
	// applDB is what the SONiC personality's daemons write to APPL_DB
	// (lldp_syncd's LLDP_ENTRY_TABLE), set by tests with SetAPPLDB.
	applDB map[string]map[string]map[string]string
}

type pendingCommit struct {
	id       string
	snapshot tree
	timer    *time.Timer
}

// Start listens on 127.0.0.1:0 and serves until Stop.
func Start(opt Options) (*Target, error) {
	if opt.Name == "" {
		opt.Name = "gnmisim"
	}
	if opt.Personality == "" {
		opt.Personality = OpenConfig
	}
	if !opt.NoAuth && (opt.Username == "" || opt.Password == "") {
		return nil, errors.New("gnmisim: set Username and Password, or NoAuth for a test-only target")
	}
	if len(opt.Ports) == 0 {
		if opt.Personality == SONiC {
			opt.Ports = []string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"}
		} else {
			opt.Ports = []string{"Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"}
		}
	}
	if len(opt.Counters.Priorities) == 0 {
		opt.Counters.Priorities = []int{3}
	}
	if len(opt.Encodings) == 0 {
		opt.Encodings = []gnmipb.Encoding{gnmipb.Encoding_JSON_IETF, gnmipb.Encoding_JSON}
		if opt.Personality == SONiC {
			// gnmi_server/server.go supportedEncodings.
			opt.Encodings = []gnmipb.Encoding{gnmipb.Encoding_JSON, gnmipb.Encoding_JSON_IETF, gnmipb.Encoding_PROTO}
		}
	}
	if opt.Models == nil {
		opt.Models = defaultModels(opt.Personality)
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	t := &Target{
		opt:      opt,
		log:      opt.Logger.Named("gnmisim").With(zap.String("device", opt.Name)),
		tree:     tree{},
		counters: counters{opt: opt.Counters, start: time.Now(), base: map[counterKey]uint64{}, rates: map[counterKey]rate{}},
	}
	if opt.YANGDir != "" {
		s, err := loadSchema(opt.YANGDir)
		if err != nil {
			return nil, fmt.Errorf("gnmisim: YANG validation: %w", err)
		}
		t.schema = s
	}
	var serverOpts []grpc.ServerOption
	if !opt.Plaintext {
		pki, err := NewPKI(opt.Name)
		if err != nil {
			return nil, fmt.Errorf("gnmisim: certificates: %w", err)
		}
		cfg, err := pki.ServerConfig(opt.RequireClientCert)
		if err != nil {
			return nil, err
		}
		t.pki = pki
		serverOpts = append(serverOpts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	serverOpts = append(serverOpts,
		grpc.ChainUnaryInterceptor(t.unaryGate),
		grpc.ChainStreamInterceptor(t.streamGate))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t.lis = &trackingListener{Listener: l, conns: map[string]net.Conn{}}
	t.srv = grpc.NewServer(serverOpts...)
	gnmipb.RegisterGNMIServer(t.srv, t)
	go func() { _ = t.srv.Serve(t.lis) }()
	return t, nil
}

func defaultModels(p Personality) []*gnmipb.ModelData {
	models := []*gnmipb.ModelData{
		{Name: "openconfig-interfaces", Organization: "OpenConfig working group", Version: "3.8.1"},
		{Name: "openconfig-if-ethernet", Organization: "OpenConfig working group", Version: "2.18.0"},
		{Name: "openconfig-vlan", Organization: "OpenConfig working group", Version: "3.2.2"},
		{Name: "openconfig-qos", Organization: "OpenConfig working group", Version: "2.2.0"},
	}
	if p == SONiC {
		// sonic-gnmi advertises its sonic-db origin as this model
		// (sonic_data_client/mixed_db_client.go supportedModels).
		models = append(models, &gnmipb.ModelData{Name: "sonic-db", Organization: "SONiC", Version: "0.1.0"})
	} else {
		// EOS lists its augment models (aristanetworks/yang
		// release/openconfig/models/interfaces/arista-intf-augments.yang).
		models = append(models, &gnmipb.ModelData{Name: "arista-intf-augments", Organization: "Arista Networks <http://arista.com/>"})
	}
	return models
}

// Addr is host:port to dial.
func (t *Target) Addr() string { return t.lis.Addr().String() }

// Name is the device name.
func (t *Target) Name() string { return t.opt.Name }

// CAPEM is the CA certificate that signed the target's certificate (nil
// in plaintext mode).
func (t *Target) CAPEM() []byte {
	if t.pki == nil {
		return nil
	}
	return t.pki.CAPEM
}

// PKI returns the generated certificates (nil in plaintext mode), for
// mutual-TLS clients.
func (t *Target) PKI() *PKI { return t.pki }

// Stop ends the server and any pending commit timer.
func (t *Target) Stop() {
	t.mu.Lock()
	if t.pending != nil {
		t.pending.timer.Stop()
	}
	t.mu.Unlock()
	t.srv.Stop()
}

// Tree is the whole configuration as sorted "path = value" lines, for
// byte-identical before/after comparisons. Counters are not included.
func (t *Target) Tree() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tree.text()
}

// Leaves returns a copy of the configuration leaves.
func (t *Target) Leaves() devcfg.Paths {
	t.mu.Lock()
	defer t.mu.Unlock()
	return devcfg.Paths(t.tree.clone())
}

// HandChange writes one value as an operator would by hand (drift
// tests); an empty value deletes the path and everything below it.
func (t *Target) HandChange(path string, value devcfg.Value) error {
	p, err := gnmipath.Parse(path)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	next := t.tree.clone()
	if value == "" {
		next.remove(p)
	} else if _, err := next.merge(p, []byte(value)); err != nil {
		return err
	}
	t.afterSet(t.tree, next, false)
	t.tree = next
	return nil
}

// Load replaces the whole configuration (initial state for tests).
func (t *Target) Load(leaves devcfg.Paths) error {
	next := tree{}
	for p, v := range leaves {
		pp, err := gnmipath.Parse(p)
		if err != nil {
			return err
		}
		if _, err := next.merge(pp, []byte(v)); err != nil {
			return err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.afterSet(tree{}, next, true)
	t.tree = next
	return nil
}

// SetFaults replaces the injected faults.
func (t *Target) SetFaults(f Faults) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.faults = f
	t.stepSeen = make([]int, len(f.Steps))
}

// Reset puts the target back to leaves with no faults and no pending
// commit, as a freshly started one.
func (t *Target) Reset(leaves devcfg.Paths) error {
	t.mu.Lock()
	if t.pending != nil {
		t.pending.timer.Stop()
		t.pending = nil
	}
	t.faults, t.stepSeen, t.calls = Faults{}, nil, nil
	t.mu.Unlock()
	return t.Load(leaves)
}

// Calls lists the unary RPCs served since Start or Reset, by full method
// name, in order.
func (t *Target) Calls() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.calls...)
}

// stepFor returns the step fault an RPC triggers, if any, and spends it.
func (t *Target) stepFor(method string) (StepFault, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, f := range t.faults.Steps {
		if f.Action == 0 || (f.Method != "" && !strings.Contains(method, f.Method)) {
			continue
		}
		t.stepSeen[i]++
		if t.stepSeen[i] == max(f.Nth, 1) {
			return f, true
		}
	}
	return StepFault{}, false
}

// Jump adds n to a counter of a port and priority ("pause frames rose by
// 1,204 during the probe").
func (t *Target) Jump(port string, prio int, c Counter, n uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counters.base[counterKey{port, prio, c}] += n
}

// Rate makes a counter of a port and priority grow by perSec a second
// from now on, on top of Tick and Jump (0 stops it): a queue paused
// 600,000 µs a second is paused 60 % of the time, as long as it lasts.
func (t *Target) Rate(port string, prio int, c Counter, perSec float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counters.setRate(counterKey{port, prio, c}, perSec, time.Now())
}

// SetCounter puts a counter of a port and priority at v from now on, its
// rate (if any) going on from there: 0 is a counter cleared or a reboot,
// a value near 2^64 one about to wrap. Ticks go on from v.
func (t *Target) SetCounter(port string, prio int, c Counter, v uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.counters.set(counterKey{port, prio, c}, v, time.Now())
}

// Counters returns every counter leaf → value, as Get would serve them.
func (t *Target) Counters() map[string]uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counters.leaves(t.opt.Ports, time.Now())
}

// PendingCommit returns the id of an unconfirmed commit, if any.
func (t *Target) PendingCommit() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == nil {
		return "", false
	}
	return t.pending.id, true
}

// SetCount is how many Set RPCs changed the tree (commits and confirms
// included), for tests that check one push is one Set.
func (t *Target) SetCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sets
}

// LastSet is a copy of the last SetRequest the target received, for tests
// of what a client puts on the wire; nil before any.
func (t *Target) LastSet() *gnmipb.SetRequest {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lastSet == nil {
		return nil
	}
	return proto.Clone(t.lastSet).(*gnmipb.SetRequest)
}

// afterSet runs what the device's daemons do after a change outside Set
// (a hand edit, or every port when the configuration is loaded, as at boot).
func (t *Target) afterSet(before, next tree, all bool) {
	if t.opt.Personality == SONiC {
		db := configDBOf(next)
		bufferManager(configDBOf(before), db, all)
		db.store(next)
	}
}

// --- authentication, delays and dropped connections ---

func (t *Target) gate(ctx context.Context) error {
	t.mu.Lock()
	f := t.faults
	t.mu.Unlock()
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
	}
	if f.RefuseAuth {
		return status.Error(codes.Unauthenticated, "authentication failed")
	}
	if t.opt.NoAuth {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	user, pass := first(md, "username"), first(md, "password")
	okUser := subtle.ConstantTimeCompare([]byte(user), []byte(t.opt.Username)) == 1
	okPass := subtle.ConstantTimeCompare([]byte(pass), []byte(t.opt.Password)) == 1
	if !okUser || !okPass {
		t.log.Info("authentication failed", zap.String("user", user))
		return status.Error(codes.Unauthenticated, "authentication failed: bad username or password")
	}
	return nil
}

func first(md metadata.MD, k string) string {
	if v := md.Get(k); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (t *Target) unaryGate(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := t.gate(ctx); err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.calls = append(t.calls, info.FullMethod)
	t.mu.Unlock()
	step, stepped := t.stepFor(info.FullMethod)
	drop := func() (any, error) {
		if p, ok := peer.FromContext(ctx); ok {
			t.lis.drop(p.Addr.String())
		}
		t.log.Info("fault: connection dropped", zap.String("rpc", info.FullMethod))
		return nil, status.Error(codes.Unavailable, "connection dropped")
	}
	if stepped && step.Action == DropBefore {
		return drop()
	}
	resp, err := h(ctx, req)
	if !stepped {
		return resp, err
	}
	switch step.Action {
	case DropAfter:
		return drop()
	case Hang:
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	case Slow:
		select {
		case <-time.After(step.Delay):
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
	return resp, err
}

func (t *Target) streamGate(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	if err := t.gate(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

// trackingListener remembers connections by remote address so a fault can
// cut the one a Set arrived on.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[string]net.Conn
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.conns[c.RemoteAddr().String()] = c
	l.mu.Unlock()
	return c, nil
}

func (l *trackingListener) drop(remote string) bool {
	l.mu.Lock()
	c := l.conns[remote]
	delete(l.conns, remote)
	l.mu.Unlock()
	if c == nil {
		return false
	}
	_ = c.Close()
	return true
}

// --- helpers shared by the RPCs ---

func supported(list []gnmipb.Encoding, e gnmipb.Encoding) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// qualifier adds RFC 7951 module names to first-level members in
// JSON_IETF answers, as real targets do.
func qualifier(origin string, top string) func(string) string {
	if !gnmipath.IsOpenConfig(origin) {
		return nil
	}
	return func(member string) string {
		name := member
		if top != "" {
			name = top
		}
		switch name {
		case "interfaces":
			return "openconfig-interfaces:" + member
		case "qos":
			return "openconfig-qos:" + member
		}
		return member
	}
}

func sortedStrings(m map[string]devcfg.Value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
