package shard

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// ErrSpec is wrapped by every error about a malformed shard spec.
var ErrSpec = errors.New("invalid shard")

// Spec is shard Index of Count (0 <= Index < Count). The zero value and
// 0/1 own every device.
type Spec struct {
	Index int
	Count int
}

// All owns every device: one agent for the whole fleet.
var All = Spec{Index: 0, Count: 1}

// Parse reads "i/N". i may also be a name ending in "-<ordinal>", such as a
// StatefulSet pod name ("rocefab-agent-2/3" is shard 2 of 3), so a pod can
// pass its own name from the downward API. An empty string is 0/1.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return All, nil
	}
	idx, cnt, ok := strings.Cut(s, "/")
	if !ok {
		return Spec{}, fmt.Errorf("%w %q: use i/N, e.g. 0/3, or POD-NAME-<ordinal>/N", ErrSpec, s)
	}
	n, err := strconv.Atoi(cnt)
	if err != nil || n < 1 {
		return Spec{}, fmt.Errorf("%w %q: N must be a whole number of at least 1", ErrSpec, s)
	}
	i, err := strconv.Atoi(idx)
	if err != nil {
		// A pod name: the ordinal follows the last dash.
		dash := strings.LastIndexByte(idx, '-')
		if dash < 0 {
			return Spec{}, fmt.Errorf("%w %q: i must be a number or a name ending in -<ordinal>", ErrSpec, s)
		}
		if i, err = strconv.Atoi(idx[dash+1:]); err != nil {
			return Spec{}, fmt.Errorf("%w %q: %q does not end in -<ordinal>", ErrSpec, s, idx)
		}
	}
	if i < 0 || i >= n {
		return Spec{}, fmt.Errorf("%w %q: i must be between 0 and %d", ErrSpec, s, n-1)
	}
	return Spec{Index: i, Count: n}, nil
}

// String is "i/N".
func (s Spec) String() string {
	if s.Count == 0 {
		return All.String()
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Owner is the shard (0..count-1) that owns device: the shard with the
// highest weight for the name. Adding a shard moves to it only the devices
// it now outweighs; every other device stays where it was.
func Owner(device string, count int) int {
	if count <= 1 {
		return 0
	}
	h := nameHash(device)
	best, bestW := 0, uint64(0)
	for j := 0; j < count; j++ {
		if w := weight(h, j); j == 0 || w > bestW {
			best, bestW = j, w
		}
	}
	return best
}

// Owns reports whether this shard owns device.
func (s Spec) Owns(device string) bool {
	if s.Count <= 1 {
		return true
	}
	return Owner(device, s.Count) == s.Index
}

// OwnsFunc is Owns as a function for engine.Selection, nil for a single
// shard (every device).
func (s Spec) OwnsFunc() func(string) bool {
	if s.Count <= 1 {
		return nil
	}
	return s.Owns
}

func nameHash(s string) uint64 {
	f := fnv.New64a()
	_, _ = f.Write([]byte(s))
	return f.Sum64()
}

// weight mixes the name's hash with the shard number through splitmix64's
// finaliser, so one name's weights across shards look independent.
func weight(h uint64, shard int) uint64 {
	return mix(mix(h) + uint64(shard)*0x9e3779b97f4a7c15)
}

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
