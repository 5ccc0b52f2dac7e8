package sshsim

import (
	"maps"
	"time"
)

// Snapshot is a device's saved configuration state (Sim.Snapshot).
type Snapshot struct {
	dev personality
}

// Snapshot saves the device's configuration state: the running or
// committed configuration with its history, checkpoints and files. What
// lives only as long as a session (locks, candidates, configuration
// sessions, pending timers) is not part of it.
func (s *Sim) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Snapshot{dev: s.dev.(saver).saved()}
}

// Restore puts the device back to a snapshot, as Reset does to the state
// at Start.
func (s *Sim) Restore(snap Snapshot) {
	s.DropConnections()
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.timers {
		t.Stop()
	}
	s.timers = map[*time.Timer]struct{}{}
	s.dev = snap.dev.(saver).saved()
	s.faults, s.stepSeen, s.received = Faults{}, nil, nil
	s.locks, s.files = map[string]*session{}, map[string]string{}
}

// saver copies a personality's lasting state.
type saver interface{ saved() personality }

func (d *iosDevice) saved() personality {
	c := *d
	c.running = d.running.clone()
	c.checkpoints = map[string]*checkpoint{}
	for n, cp := range d.checkpoints {
		cc := *cp
		cc.config = cp.config.clone()
		c.checkpoints[n] = &cc
	}
	c.bootflash = map[string]*flashFile{}
	for n, f := range d.bootflash {
		cf := *f
		if f.config != nil {
			cf.config = f.config.clone()
		}
		c.bootflash[n] = &cf
	}
	c.replace, c.sessions = nil, map[string]*eosSession{}
	return &c
}

func (d *junosDevice) saved() personality {
	c := *d
	c.committed = append([]string(nil), d.committed...)
	c.shared = append([]string(nil), d.committed...)
	c.history = append([]commitRecord(nil), d.history...)
	c.confirmStop, c.exclusive = nil, nil
	return &c
}

func (d *nvueDevice) saved() personality {
	c := *d
	c.applied = deepCopyJSON(d.applied).(map[string]any)
	c.staged, c.previous, c.confirmStop = nil, nil, nil
	c.messages = append([]string(nil), d.messages...)
	return &c
}

func (d *sonicDevice) saved() personality {
	c := *d
	c.db = deepCopyJSON(d.db).(map[string]any)
	c.checkpoints = map[string]map[string]any{}
	for n, cp := range d.checkpoints {
		c.checkpoints[n] = deepCopyJSON(cp).(map[string]any)
	}
	c.files = maps.Clone(d.files)
	return &c
}
