package counters

import (
	"context"
	"fmt"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// PathCounterReader reads counters by gNMI path string, as the gNMI
// driver's (*gnmi.Driver).Counters does with Subscribe ONCE over its own
// TLS connection and credentials.
type PathCounterReader interface {
	Counters(ctx context.Context, paths []string) (map[string]uint64, error)
}

// DriverSource reads switch counters through a connected driver; it is
// the source the agent uses, GNMISource the one for a bare gRPC client.
type DriverSource struct {
	Device string
	Reader PathCounterReader
	Paths  []CounterPath
}

// Name is the switch name.
func (s DriverSource) Name() string { return s.Device }

// Read asks the driver for every path (once per gNMI target) and keys the
// answers by leaf.
func (s DriverSource) Read(ctx context.Context) ([]Sample, error) {
	byPath := map[string]CounterPath{}
	for _, cp := range s.Paths {
		canon, err := gnmipath.Canonical(cp.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: counter path %s: %w", s.Device, cp.Path, err)
		}
		byPath[canon] = cp
	}
	var out []Sample
	targets, byTarget := Requests(s.Paths)
	for _, target := range targets {
		vals, err := s.Reader.Counters(ctx, byTarget[target])
		if err != nil {
			return nil, fmt.Errorf("%s: read counters: %w", s.Device, err)
		}
		for p, v := range vals {
			canon, err := gnmipath.Canonical(p)
			if err != nil {
				continue
			}
			if cp, ok := byPath[canon]; ok {
				out = append(out, Sample{Key: Key{Device: s.Device, Port: cp.Port, Counter: cp.Counter}, Value: v})
			}
		}
	}
	if len(out) == 0 && len(s.Paths) > 0 {
		return nil, fmt.Errorf("%s: the switch answered none of the %d counter paths (the platform may not expose PFC/ECN counters there)", s.Device, len(s.Paths))
	}
	return out, nil
}
