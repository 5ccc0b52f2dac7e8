package enginetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/lint"
)

// Credentials every simulated switch accepts. The intent refers to the
// password by reference only: SSH switches through PasswordEnv, gNMI
// switches through a password file in the fleet's directory.
const (
	Username    = "rocefab"
	PasswordEnv = "ROCEFAB_TEST_SWITCH_PASSWORD"
	password    = "sim-Secret-8f3a!never-printed"
)

// Password is the simulators' password, so tests can check that it never
// appears in output.
func Password() string { return password }

// Kind is a platform on a transport.
type Kind struct {
	Platform  string
	Transport string
}

func (k Kind) String() string { return k.Platform + "/" + k.Transport }

// The simulated kinds: every renderer platform on the transports the
// simulators serve.
var (
	NXOS       = Kind{"nxos", "ssh"}
	EOS        = Kind{"eos", "ssh"}
	Junos      = Kind{"junos", "ssh"}
	Cumulus    = Kind{"cumulus", "ssh"}
	SONiCSSH   = Kind{"sonic", "ssh"}
	SONiC      = Kind{"sonic", "gnmi"}
	OpenConfig = Kind{"openconfig", "gnmi"}
)

// AllKinds lists every simulated kind.
var AllKinds = []Kind{NXOS, EOS, Junos, Cumulus, SONiCSSH, SONiC, OpenConfig}

// Spec is one switch to simulate.
type Spec struct {
	Name string
	Kind
	// Ports is how many RoCE ports the intent lists (default 2).
	Ports int
	// DeviceSecond is how long a second lasts on an SSH simulator's
	// timers (commit timers, confirm windows); zero is a real second.
	DeviceSecond time.Duration
}

// Mixed names n switches sw000.. and deals the kinds out in turn.
func Mixed(n int, kinds ...Kind) []Spec {
	specs := make([]Spec, n)
	for i := range specs {
		specs[i] = Spec{Name: fmt.Sprintf("sw%03d", i), Kind: kinds[i%len(kinds)]}
	}
	return specs
}

// SetPasswordEnv sets PasswordEnv for tb and its subtests, so subtests
// that run in parallel can Start fleets.
func SetPasswordEnv(tb testing.TB) { tb.Setenv(PasswordEnv, password) }

// Switch is one running simulator.
type Switch struct {
	Spec
	Addr string
	// Exactly one of GNMI and SSH is set, by transport.
	GNMI *gnmisim.Target
	SSH  *sshsim.Sim
}

// Config is the device's whole configuration, for byte-identical
// before/after comparisons.
func (s *Switch) Config() string {
	if s.GNMI != nil {
		return s.GNMI.Tree()
	}
	return s.SSH.Config()
}

// Activity counts gNMI Sets (gNMI) or SSH sessions (SSH) so far: a device
// rocefab never wrote to (gNMI) or never even connected to (SSH) keeps its
// count.
func (s *Switch) Activity() int {
	if s.GNMI != nil {
		return s.GNMI.SetCount()
	}
	return s.SSH.Sessions()
}

// Reject makes the device refuse any change whose line (SSH) or path
// (gNMI) contains match, with msg as the device's error (empty: the
// platform's own message).
func (s *Switch) Reject(match, msg string) {
	if s.GNMI != nil {
		s.GNMI.SetFaults(gnmisim.Faults{RejectPath: match, RejectMessage: msg})
		return
	}
	s.SSH.SetFaults(sshsim.Faults{RejectLine: match, RejectMessage: msg})
}

// DropDuringPush cuts the connection in the middle of a push: once, right
// after the first line containing match was applied (SSH); in every Set
// until ClearFaults, so retries fail too (gNMI, match is ignored).
func (s *Switch) DropDuringPush(match string) {
	if s.GNMI != nil {
		s.GNMI.SetFaults(gnmisim.Faults{DropSets: 1 << 20})
		return
	}
	s.SSH.SetFaults(sshsim.Faults{DropOnLine: match})
}

// Slow makes the device answer every request (gNMI RPC, SSH line) d
// later, as a device across a WAN or a busy control plane would.
func (s *Switch) Slow(d time.Duration) {
	if s.GNMI != nil {
		s.GNMI.SetFaults(gnmisim.Faults{Delay: d})
		return
	}
	s.SSH.SetFaults(sshsim.Faults{Delay: d})
}

// Reset puts the switch back to its state at Start, with no faults.
func (s *Switch) Reset() error {
	if s.GNMI != nil {
		return s.GNMI.Reset(initialGNMI(s.Spec))
	}
	return s.SSH.Reset()
}

// Save returns what puts the switch back to its state now, faults
// cleared.
func (s *Switch) Save() func() error {
	if s.GNMI != nil {
		leaves := s.GNMI.Leaves()
		return func() error { return s.GNMI.Reset(leaves) }
	}
	snap := s.SSH.Snapshot()
	return func() error {
		s.SSH.Restore(snap)
		return nil
	}
}

// Leftovers lists what a push could leave behind on the device (SSH:
// checkpoints, sessions, files, locks, pending commits; gNMI: a pending
// commit).
func (s *Switch) Leftovers() []string {
	if s.GNMI != nil {
		if id, ok := s.GNMI.PendingCommit(); ok {
			return []string{"pending commit " + id}
		}
		return nil
	}
	return s.SSH.Leftovers()
}

// ClearFaults removes injected faults.
func (s *Switch) ClearFaults() {
	if s.GNMI != nil {
		s.GNMI.SetFaults(gnmisim.Faults{})
		return
	}
	s.SSH.SetFaults(sshsim.Faults{})
}

// Fleet is a set of simulators plus the files an intent refers to: the CA
// bundle (every gNMI target's CA), known_hosts (every SSH host key) and
// the password file, all in Dir.
type Fleet struct {
	Dir          string
	CABundle     string
	KnownHosts   string
	PasswordFile string
	Switches     []*Switch
	byName       map[string]*Switch
}

// Start runs one simulator per spec on 127.0.0.1:0 with TLS and host-key
// verification on, writes the trust files, sets PasswordEnv and stops
// everything when the test ends.
func Start(tb testing.TB, specs []Spec) *Fleet {
	tb.Helper()
	dir := tb.TempDir()
	f := &Fleet{
		Dir:          dir,
		CABundle:     filepath.Join(dir, "ca.pem"),
		KnownHosts:   filepath.Join(dir, "known_hosts"),
		PasswordFile: filepath.Join(dir, "switch.password"),
		Switches:     make([]*Switch, len(specs)),
		byName:       map[string]*Switch{},
	}
	if os.Getenv(PasswordEnv) != password {
		// Parallel tests set it once in their parent (SetPasswordEnv).
		tb.Setenv(PasswordEnv, password)
	}
	if err := os.WriteFile(f.PasswordFile, []byte(password+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var stops []func()
	tb.Cleanup(func() {
		// Stop in parallel: each stop waits for its connections to end.
		var wg sync.WaitGroup
		for _, stop := range stops {
			wg.Add(1)
			go func() { defer wg.Done(); stop() }()
		}
		wg.Wait()
	})
	var g errgroup.Group
	g.SetLimit(8)
	for i, spec := range specs {
		if spec.Ports == 0 {
			spec.Ports = 2
		}
		g.Go(func() error {
			sw, stop, err := startSwitch(spec)
			if err != nil {
				return fmt.Errorf("%s (%s): %w", spec.Name, spec.Kind, err)
			}
			mu.Lock()
			stops = append(stops, stop)
			mu.Unlock()
			f.Switches[i] = sw
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		tb.Fatal(err)
	}
	var ca, kh bytes.Buffer
	for _, sw := range f.Switches {
		if _, dup := f.byName[sw.Name]; dup {
			tb.Fatalf("switch %s named twice", sw.Name)
		}
		f.byName[sw.Name] = sw
		if sw.GNMI != nil {
			ca.Write(sw.GNMI.CAPEM())
		} else {
			kh.WriteString(sw.SSH.KnownHostsLine() + "\n")
		}
	}
	if err := os.WriteFile(f.CABundle, ca.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(f.KnownHosts, kh.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return f
}

func startSwitch(spec Spec) (*Switch, func(), error) {
	sw := &Switch{Spec: spec}
	switch spec.Transport {
	case "gnmi":
		opt := gnmisim.Options{Name: spec.Name, Username: Username, Password: password, CommitConfirmed: true}
		if spec.Platform == "sonic" {
			opt.Personality = gnmisim.SONiC
		}
		if spec.Platform == "openconfig" { // the queues rocefab configures there, as after an apply
			opt.Counters.QueueName = func(q int) string { return counters.OpenConfigQueuePrefix + strconv.Itoa(q) }
		}
		t, err := gnmisim.Start(opt)
		if err != nil {
			return nil, nil, err
		}
		if err := t.Load(initialGNMI(spec)); err != nil {
			t.Stop()
			return nil, nil, err
		}
		sw.GNMI, sw.Addr = t, t.Addr()
		return sw, t.Stop, nil
	case "ssh":
		personality := map[string]sshsim.Personality{
			"nxos": sshsim.NXOS, "eos": sshsim.EOS, "junos": sshsim.Junos, "cumulus": sshsim.Cumulus, "sonic": sshsim.SONiC,
		}[spec.Platform]
		if personality == "" {
			return nil, nil, fmt.Errorf("no SSH simulator plays %s", spec.Platform)
		}
		s, err := sshsim.Start(sshsim.Options{Personality: personality, Hostname: spec.Name, Username: Username, Password: password, Second: spec.DeviceSecond})
		if err != nil {
			return nil, nil, err
		}
		sw.SSH, sw.Addr = s, s.Addr()
		return sw, func() { _ = s.Close() }, nil
	}
	return nil, nil, fmt.Errorf("no simulator for transport %q", spec.Transport)
}

// initialGNMI is what a production target carries before rocefab: the
// platform's factory state, with configuration rocefab does not own.
func initialGNMI(spec Spec) devcfg.Paths {
	n := spec.Ports + 2
	if spec.Platform == "sonic" {
		return gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: spec.Name, Ports: n, Foreign: true})
	}
	return gnmisim.OpenConfigFactory(spec.Name, n)
}

// Switch returns the named switch; it panics on a name not started, a
// mistake in the test itself.
func (f *Fleet) Switch(name string) *Switch {
	sw, ok := f.byName[name]
	if !ok {
		panic("enginetest: no switch " + name)
	}
	return sw
}

// Configs returns every switch's whole configuration by name.
func (f *Fleet) Configs() map[string]string {
	out := make(map[string]string, len(f.Switches))
	for _, sw := range f.Switches {
		out[sw.Name] = sw.Config()
	}
	return out
}

// Params are the intent's knobs that tests change.
type Params struct {
	// Name is the fabric name (default "simfab").
	Name string
	// MTU is the switch MTU: "max" (default) or a number.
	MTU string
	// ECNMin is the ECN minimum threshold (default 150KB).
	ECNMin string
	// NoDrop is the no-drop priority (default 3).
	NoDrop int
	// Only limits the intent to these switches (default all).
	Only []string
	// VLAN is the lossless VLAN (default 100).
	VLAN int
}

func (p Params) withDefaults() Params {
	if p.Name == "" {
		p.Name = "simfab"
	}
	if p.MTU == "" {
		p.MTU = "max"
	}
	if p.ECNMin == "" {
		p.ECNMin = "150KB"
	}
	if p.NoDrop == 0 {
		p.NoDrop = 3
	}
	if p.VLAN == 0 {
		p.VLAN = 100
	}
	return p
}

// Intent is the fabric YAML for the fleet: examples/basic's lossless
// policy, every switch at its simulator's address, trust files and
// credential references from Dir.
func (f *Fleet) Intent(p Params) []byte {
	p = p.withDefaults()
	only := map[string]bool{}
	for _, n := range p.Only {
		only[n] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata:
  name: %s
spec:
  lossless:
    profile: dcqcn
    vlan: %d
    noDropPriority: %d
    roceDscp: [26]
    trust: dscp
    cnp: {dscp: 48, priority: 6}
    ecn: {minThreshold: %s, maxThreshold: 1500KB, markProbability: 100}
    pfc: {enabled: true, priorities: [%d], watchdog: {enabled: true}}
    mtu: {switch: %s, host: 9000}
    roceMode: v2
  security:
    caBundle: %q
    knownHosts: %q
  groups:
    - name: ssh-switches
      transport: ssh
      credentials: {username: %s, passwordEnv: %s}
    - name: gnmi-switches
      transport: gnmi
      credentials: {username: %s, passwordFile: %q}
  switches:
`, p.Name, p.VLAN, p.NoDrop, p.ECNMin, p.NoDrop, p.MTU, f.CABundle, f.KnownHosts, Username, PasswordEnv, Username, f.PasswordFile)
	for _, sw := range f.Switches {
		if len(only) > 0 && !only[sw.Name] {
			continue
		}
		fmt.Fprintf(&b, "    - name: %s\n      group: %s-switches\n      platform: %s\n      address: %q\n", sw.Name, sw.Transport, sw.Platform, sw.Addr)
		b.WriteString(platformAttrs(sw.Platform))
		fmt.Fprintf(&b, "      ports: [{names: %q, mode: trunk}]\n", PortRange(sw.Platform, sw.Ports))
	}
	return []byte(b.String())
}

func platformAttrs(platform string) string {
	switch platform {
	case "nxos":
		return "      model: N9K-C9364C\n      osVersion: \"10.3(4a)\"\n"
	case "eos":
		return "      model: DCS-7060X5-64S\n      osVersion: \"4.31.2F\"\n"
	case "junos":
		return "      model: QFX5220-32CD\n      osVersion: \"23.4R1\"\n      junos: {queueBufferSize: 15MB}\n"
	case "cumulus":
		return "      model: SN4700\n      osVersion: \"5.9\"\n"
	case "sonic":
		return "      asic: mellanox\n      osVersion: \"202405\"\n      portSpeed: 100G\n"
	case "openconfig":
		return "      openconfig: {pfcFallback: {platform: eos}}\n"
	}
	return ""
}

// Ports names a platform's first n RoCE ports.
func Ports(platform string, n int) []string {
	out := make([]string, n)
	for i := range out {
		switch platform {
		case "nxos":
			out[i] = "Ethernet1/" + strconv.Itoa(i+1)
		case "junos":
			out[i] = "et-0/0/" + strconv.Itoa(i)
		case "cumulus":
			out[i] = "swp" + strconv.Itoa(i+1)
		case "sonic":
			out[i] = "Ethernet" + strconv.Itoa(4*i)
		default:
			out[i] = "Ethernet" + strconv.Itoa(i+1)
		}
	}
	return out
}

// PortRange is the intent's port expression for Ports(platform, n).
func PortRange(platform string, n int) string {
	ports := Ports(platform, n)
	if n == 1 {
		return ports[0]
	}
	last := ports[n-1]
	i := len(last)
	for i > 0 && last[i-1] >= '0' && last[i-1] <= '9' {
		i--
	}
	r := ports[0] + "-" + last[i:]
	if platform == "sonic" {
		r += " step 4"
	}
	return r
}

// WriteIntent writes the intent to name in Dir and returns its path.
func (f *Fleet) WriteIntent(tb testing.TB, name string, p Params) string {
	tb.Helper()
	path := filepath.Join(f.Dir, name)
	if err := os.WriteFile(path, f.Intent(p), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Resolve validates an intent file with every renderer, as the CLI does.
func Resolve(tb testing.TB, path string) *intent.Resolved {
	tb.Helper()
	res, diags := lint.Validate(all.Renderers(), path)
	if diags.HasErrors() {
		tb.Fatalf("intent %s: %v", path, diags.Err())
	}
	return res
}

// Names returns the switch names, sorted.
func (f *Fleet) Names() []string {
	out := make([]string, 0, len(f.Switches))
	for _, sw := range f.Switches {
		out = append(out, sw.Name)
	}
	sort.Strings(out)
	return out
}

// Ctx is a context that ends with the test, bounded by d.
func Ctx(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}
