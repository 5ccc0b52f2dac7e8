package fleet

import (
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/ssh"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// Fleet is what reaching devices takes: the registries, the per-call
// settings and how credentials are resolved. The CLI fills it from its
// flags, the agent from its settings.
type Fleet struct {
	Renderers *renderers.Registry
	Drivers   *drivers.Registry
	Log       *zap.Logger
	// Timeout bounds each call to a device; Retries are for transient
	// device errors.
	Timeout time.Duration
	Retries int
	// Insecure and SSHAcceptNew turn verification off; only an explicit
	// flag sets them.
	Insecure     bool
	SSHAcceptNew bool
	// IntentLimits bound the intent sent to hosts over SSH.
	IntentLimits intent.Limits
	// Secrets resolves credentials by reference.
	Secrets func(compliance.Connection) (drivers.Credentials, error)
	// LoadIntent loads intent paths (a saved plan's) when hosts need it.
	LoadIntent func(paths []string) (*intent.Resolved, error)
}

func (f *Fleet) log() *zap.Logger {
	if f.Log == nil {
		return zap.NewNop()
	}
	return f.Log
}

// HostExec runs commands on the intent's hosts over SSH, with host keys
// checked against the intent's known_hosts (or ~/.ssh/known_hosts) and
// credentials by reference.
func (f *Fleet) HostExec(load func() (*intent.Resolved, error)) *ssh.Exec {
	e := &ssh.Exec{AcceptNew: f.SSHAcceptNew, Timeout: f.Timeout, Logger: f.Log}
	e.Resolve = func(name string) (ssh.ExecTarget, error) {
		res, err := load()
		if err != nil {
			return ssh.ExecTarget{}, err
		}
		if e.KnownHostsFile == "" {
			e.KnownHostsFile = res.Security.KnownHosts
		}
		h := res.Host(name)
		if h == nil {
			return ssh.ExecTarget{}, fmt.Errorf("host %s is not in the intent", name)
		}
		if h.Address.Host == "" {
			return ssh.ExecTarget{}, fmt.Errorf("host %s has no address to reach it over SSH", name)
		}
		creds, err := f.Secrets(compliance.Connection{Username: h.Creds.Username, UsernameEnv: h.Creds.UsernameEnv,
			PasswordEnv: h.Creds.PasswordEnv, PasswordFile: h.Creds.PasswordFile})
		if err != nil {
			return ssh.ExecTarget{}, err
		}
		return ssh.ExecTarget{Address: ssh.ExecAddress(h.Address.Host, h.Address.Port), Creds: creds}, nil
	}
	return e
}

// bundle is the intent's files as one stream for a host's standard input.
func (f *Fleet) bundle(res *intent.Resolved) ([]byte, error) {
	data, _, err := intent.Bundle(f.IntentLimits, res.Files...)
	return data, err
}
