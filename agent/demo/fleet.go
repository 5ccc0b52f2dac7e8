package demo

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// Credentials of the simulated switches. The password is random per run,
// written only to a 0600 file in the work directory and handed to the
// engine by reference; it is never printed or logged.
const (
	simUsername    = "rocefab"
	simPasswordEnv = "ROCEFAB_DEMO_SWITCH_PASSWORD"
)

// simSwitch is one simulated switch: exactly one of ssh and gnmi is set.
type simSwitch struct {
	name, platform, transport string
	addr                      string
	ssh                       *sshsim.Sim
	gnmi                      *gnmisim.Target
}

func (s *simSwitch) stop() {
	if s.ssh != nil {
		_ = s.ssh.Close()
	}
	if s.gnmi != nil {
		s.gnmi.Stop()
	}
}

// simFleet is the simulated switches plus the trust and credential files
// the intent points at.
type simFleet struct {
	switches     []*simSwitch
	password     string
	caBundle     string
	knownHosts   string
	passwordFile string
}

// simulated is the demo's simulated part of examples/basic.
var simulated = []struct{ name, platform, transport string }{
	{"leaf-nxos", "nxos", "ssh"},
	{"leaf-eos", "eos", "ssh"},
	{"leaf-sonic", "sonic", "gnmi"},
	{"spine-oc", "openconfig", "gnmi"},
}

// startFleet starts every simulator on 127.0.0.1 (ports chosen by the
// kernel) with TLS and SSH host keys of its own, and writes the CA bundle,
// known_hosts and password file into dir. On error, whatever started is
// stopped again.
func startFleet(dir string, log *zap.Logger) (f *simFleet, err error) {
	var raw [18]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	f = &simFleet{
		password:     hex.EncodeToString(raw[:]),
		caBundle:     filepath.Join(dir, "ca.pem"),
		knownHosts:   filepath.Join(dir, "known_hosts"),
		passwordFile: filepath.Join(dir, "switch.password"),
	}
	defer func() {
		if err != nil {
			f.stop()
		}
	}()
	var ca, kh bytes.Buffer
	for _, s := range simulated {
		sw := &simSwitch{name: s.name, platform: s.platform, transport: s.transport}
		switch s.transport {
		case "ssh":
			p, _ := sshsim.PersonalityFor(s.platform)
			sim, err := sshsim.Start(sshsim.Options{Personality: p, Hostname: s.name,
				Username: simUsername, Password: f.password, Logger: log})
			if err != nil {
				return nil, fmt.Errorf("starting simulated %s: %w", s.name, err)
			}
			sw.ssh, sw.addr = sim, sim.Addr()
			kh.WriteString(sim.KnownHostsLine() + "\n")
		case "gnmi":
			opt := gnmisim.Options{Name: s.name, Username: simUsername, Password: f.password,
				CommitConfirmed: true, Logger: log}
			if s.platform == "sonic" {
				opt.Personality = gnmisim.SONiC
			}
			t, err := gnmisim.Start(opt)
			if err != nil {
				return nil, fmt.Errorf("starting simulated %s: %w", s.name, err)
			}
			sw.gnmi, sw.addr = t, t.Addr()
			if err := t.Load(factoryGNMI(s.name, s.platform)); err != nil {
				t.Stop()
				return nil, fmt.Errorf("loading simulated %s: %w", s.name, err)
			}
			ca.Write(t.CAPEM())
		}
		f.switches = append(f.switches, sw)
	}
	for _, file := range []struct {
		path string
		data []byte
	}{{f.caBundle, ca.Bytes()}, {f.knownHosts, kh.Bytes()}, {f.passwordFile, []byte(f.password + "\n")}} {
		if err := os.WriteFile(file.path, file.data, 0o600); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (f *simFleet) stop() {
	for _, sw := range f.switches {
		sw.stop()
	}
}

func (f *simFleet) byName(name string) *simSwitch {
	for _, sw := range f.switches {
		if sw.name == name {
			return sw
		}
	}
	return nil
}

// addrs maps platform to address, for the intent template.
func (f *simFleet) addrs() map[string]string {
	out := map[string]string{}
	for _, sw := range f.switches {
		out[sw.platform] = sw.addr
	}
	return out
}

// factoryGNMI is what a gNMI switch carries before rocefab: the platform's
// factory state with configuration rocefab does not own.
func factoryGNMI(name, platform string) devcfg.Paths {
	if platform == "sonic" {
		return gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: name, Ports: 4, Foreign: true})
	}
	return gnmisim.OpenConfigFactory(name, 4)
}

// secrets resolves the demo's own password reference in-process (no
// environment variable is set) and every other reference as usual.
func (f *simFleet) secrets(c compliance.Connection) (drivers.Credentials, error) {
	if c.PasswordEnv == simPasswordEnv {
		return drivers.Credentials{Username: c.Username, Password: f.password}, nil
	}
	return engine.ResolveSecret(c)
}

// workDirPrefix starts the demo's temporary directory:
// rocefab-demo-<pid>-<random>, so a later demo can tell a killed one's.
const workDirPrefix = "rocefab-demo-"

// removeStaleWorkDirs deletes the temporary directories of demo processes
// that no longer run and that belonged to this user: a demo killed with
// SIGKILL leaves its intent, trust files and password file behind.
func removeStaleWorkDirs(tmp string) []string {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !deadOwner(e.Name(), workDirPrefix) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) != nil || int(st.Uid) != os.Getuid() {
			continue
		}
		if os.RemoveAll(path) == nil {
			removed = append(removed, path)
		}
	}
	return removed
}
