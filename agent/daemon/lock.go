package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// LockFile is the name of the lock in the state directory.
const LockFile = "agent.lock"

// lockStateDir takes the state directory's lock and writes our PID into
// it, or explains who holds it.
func lockStateDir(dir string) (*flock.Flock, error) {
	path := filepath.Join(dir, LockFile)
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		holder := "another process"
		if data, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
				holder = "PID " + strconv.Itoa(pid)
			}
		}
		return nil, fmt.Errorf("%w: %s is held by %s; run one agent per state directory (--state-dir)", ErrLocked, path, holder)
	}
	// flock(2) locks stay with the open file description, so writing the
	// PID through another descriptor keeps the lock.
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		_ = fl.Unlock()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return fl, nil
}
