package counters

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

// StatsReader reads a netdev's driver statistics (ETHTOOL_GSTATS).
type StatsReader interface {
	Stats(netdev string) (map[string]uint64, error)
}

// HostPort is one RDMA port and its netdev; a port with no Device is a
// netdev without RDMA, read for its ethtool statistics only.
type HostPort struct {
	Device string `json:"device"`
	Port   int    `json:"port"`
	Netdev string `json:"netdev,omitempty"`
}

// HostSource reads a host's RDMA port counters from sysfs and, with Stats
// set, the pause/discard statistics of each port's netdev.
type HostSource struct {
	Host  string
	Sys   rdmasys.FS
	Ports []HostPort
	Stats StatsReader
}

// Name is the host name.
func (h HostSource) Name() string { return h.Host }

// PortName is how an RDMA port appears in counter keys: "mlx5_0/1".
func PortName(device string, port int) string { return device + "/" + strconv.Itoa(port) }

// Read reads every port; a port that cannot be read is reported in the
// error while the others are still returned.
func (h HostSource) Read(_ context.Context) ([]Sample, error) {
	var out []Sample
	var errs []error
	for _, p := range h.Ports {
		if p.Device != "" { // a netdev without RDMA has ethtool statistics only
			vals, err := h.Sys.PortCounters(p.Device, p.Port)
			if err != nil {
				errs = append(errs, err)
			}
			for name, v := range vals {
				out = append(out, Sample{Key: Key{Device: h.Host, Port: PortName(p.Device, p.Port), Counter: name}, Value: v})
			}
		}
		if h.Stats == nil || p.Netdev == "" {
			continue
		}
		stats, err := h.Stats.Stats(p.Netdev)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: ethtool statistics: %w", p.Netdev, err))
			continue
		}
		for name, v := range stats {
			if KeepEthtool(name) {
				out = append(out, Sample{Key: Key{Device: h.Host, Port: p.Netdev, Counter: PrefixEthtool + name}, Value: v})
			}
		}
	}
	return out, errors.Join(errs...)
}
