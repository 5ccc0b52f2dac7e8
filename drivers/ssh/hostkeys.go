package ssh

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/skeema/knownhosts"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/rocefab/rocefab/drivers"
)

// hostKeyError says why a device's host key was not trusted.
type hostKeyError struct {
	host        string
	fingerprint string
	file        string
	changed     bool
	noFile      bool   // file does not exist
	keyscan     string // with noFile: the command that fetches the key
}

func (e *hostKeyError) Error() string {
	if e.noFile {
		return fmt.Sprintf("cannot check host key %s of %s: known_hosts file %s does not exist "+
			"(create it with the device's key, e.g. `%s >> %s` after checking the fingerprint; "+
			"point --known-hosts at another file; or trust on first use with --ssh-accept-new)", e.fingerprint, e.host, e.file, e.keyscan, e.file)
	}
	if e.changed {
		return fmt.Sprintf("host key for %s CHANGED (now %s) and does not match %s: refusing to connect (possible man-in-the-middle; if the device was replaced, remove its old entry)", e.host, e.fingerprint, e.file)
	}
	return fmt.Sprintf("unknown host key %s for %s: not in %s (add it, or trust it on first use with --ssh-accept-new)", e.fingerprint, e.host, e.file)
}

// hostKeyPolicy verifies host keys against a known_hosts file and, only when
// acceptNew is set, records unknown hosts (trust on first use). A changed
// key is always refused.
type hostKeyPolicy struct {
	file      string
	acceptNew bool
	log       *zap.Logger
	// files shares the parsed file between the devices of one engine.
	files *drivers.FileCache
}

// defaultKnownHosts is ~/.ssh/known_hosts.
func defaultKnownHosts() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding ~/.ssh/known_hosts: %w", err)
	}
	return filepath.Join(home, ".ssh", "known_hosts"), nil
}

// callback loads the file and returns the host-key callback and the key
// algorithms already known for addr (so the server offers a known key).
func (p *hostKeyPolicy) callback(addr string) (gossh.HostKeyCallback, []string, error) {
	if _, err := os.Stat(p.file); errors.Is(err, os.ErrNotExist) {
		if !p.acceptNew {
			// Refuse in the handshake, not before it: an unreachable device
			// is then reported unreachable, and a reachable one names the
			// key it presented.
			return func(hostname string, _ net.Addr, key gossh.PublicKey) error {
				return &hostKeyError{host: knownhosts.Normalize(hostname), fingerprint: gossh.FingerprintSHA256(key), file: p.file,
					noFile: true, keyscan: keyscanCommand(hostname)}
			}, nil, nil
		}
		if err := os.MkdirAll(filepath.Dir(p.file), 0o700); err != nil {
			return nil, nil, err
		}
		f, err := os.OpenFile(p.file, os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, err
		}
		_ = f.Close()
	}
	loaded, err := p.files.Load("known_hosts", p.file, func(path string) (any, error) { return knownhosts.NewDB(path) })
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", p.file, err)
	}
	db := loaded.(*knownhosts.HostKeyDB)
	check := db.HostKeyCallback()
	cb := func(hostname string, remote net.Addr, key gossh.PublicKey) error {
		err := check(hostname, remote, key)
		switch {
		case err == nil:
			return nil
		case knownhosts.IsHostKeyChanged(err):
			return &hostKeyError{host: knownhosts.Normalize(hostname), fingerprint: gossh.FingerprintSHA256(key), file: p.file, changed: true}
		case knownhosts.IsHostUnknown(err):
			if !p.acceptNew {
				return &hostKeyError{host: knownhosts.Normalize(hostname), fingerprint: gossh.FingerprintSHA256(key), file: p.file}
			}
			if err := p.record(hostname, remote, key); err != nil {
				return fmt.Errorf("recording new host key: %w", err)
			}
			p.log.Info("trusted new host key on first use", zap.String("host", knownhosts.Normalize(hostname)),
				zap.String("fingerprint", gossh.FingerprintSHA256(key)), zap.String("known_hosts", p.file))
			return nil
		}
		// Revoked keys and unreadable entries are never trusted.
		return &hostKeyError{host: knownhosts.Normalize(hostname), fingerprint: gossh.FingerprintSHA256(key) + " (" + err.Error() + ")", file: p.file, changed: true}
	}
	return cb, db.HostKeyAlgorithms(addr), nil
}

// keyscanCommand is the ssh-keyscan command line that prints the keys of
// hostname ("host:port").
func keyscanCommand(hostname string) string {
	host, port, err := net.SplitHostPort(hostname)
	if err != nil {
		host, port = hostname, "22"
	}
	return "ssh-keyscan -p " + port + " " + host
}

// record appends a known_hosts line under an advisory lock on the file, so
// concurrent rocefab processes do not interleave writes.
func (p *hostKeyPolicy) record(hostname string, remote net.Addr, key gossh.PublicKey) error {
	lock := flock.New(p.file)
	if err := lock.Lock(); err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()
	f, err := os.OpenFile(p.file, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := knownhosts.WriteKnownHost(f, hostname, remote, key); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
