package path

import (
	"net/netip"
	"sync"
	"time"
)

// Key is a flow's 5-tuple (the protocol is always UDP).
type Key struct {
	Src, Dst         netip.Addr
	SrcPort, DstPort uint16
}

// Entry is a cached path.
type Entry struct {
	Path    Path
	Learned time.Time // when it was last confirmed
	// Changed counts how often a trace found a different path.
	Changed int
}

// Cache remembers each flow's path so a plan can reuse it; Learn
// records a fresh trace and says whether the path changed. Entries older
// than MaxAge are treated as unknown. Safe for concurrent use.
type Cache struct {
	MaxAge time.Duration // 0: never stale
	Now    func() time.Time

	mu sync.Mutex
	m  map[Key]Entry
}

// NewCache returns an empty cache whose entries go stale after maxAge.
func NewCache(maxAge time.Duration) *Cache {
	return &Cache{MaxAge: maxAge, m: map[Key]Entry{}}
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Get returns the cached path of k unless it is stale.
func (c *Cache) Get(k Key) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || (c.MaxAge > 0 && c.now().Sub(e.Learned) > c.MaxAge) {
		return Entry{}, false
	}
	return e, true
}

// Learn stores a fresh path for k. It reports the previous path when the
// new one differs from it. A trace that saw less than the cached one (a
// hop stayed silent this time) does not replace a complete path: it is a
// gap in the evidence, not a new path; it refreshes nothing either.
func (c *Cache) Learn(k Key, p Path) (previous Path, changed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[Key]Entry{}
	}
	old, had := c.m[k]
	now := c.now()
	switch {
	case !had:
		c.m[k] = Entry{Path: p, Learned: now}
		return Path{}, false
	case old.Path.Signature() == p.Signature():
		if p.Complete() || !old.Path.Complete() {
			old.Path = p
		}
		old.Learned = now
		c.m[k] = old
		return Path{}, false
	case old.Path.Complete() && !p.Complete() && consistent(old.Path, p):
		return Path{}, false
	}
	c.m[k] = Entry{Path: p, Learned: now, Changed: old.Changed + 1}
	return old.Path, true
}

// consistent: every step the partial path knows agrees with the full one.
func consistent(full, partial Path) bool {
	if len(partial.Steps) > len(full.Steps) {
		return false
	}
	for i, s := range partial.Steps {
		if s.Gap {
			return true
		}
		f := full.Steps[i]
		if s.Known() && s.Device != f.Device {
			return false
		}
		if len(s.In) == 1 && (len(f.In) != 1 || s.In[0] != f.In[0]) {
			return false
		}
	}
	return len(partial.Steps) == len(full.Steps)
}

// Len is the number of cached paths.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
