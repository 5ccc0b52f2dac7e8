package counters

import (
	"errors"
	"fmt"

	"github.com/safchain/ethtool"
	"golang.org/x/sys/unix"
)

// ErrUnsupported: the driver does not implement the ethtool operation
// (veth, many virtual NICs).
var ErrUnsupported = errors.New("unsupported on this device")

// Pause is a netdev's 802.3x link pause state.
type Pause struct {
	Autoneg bool `json:"autoneg"`
	RX      bool `json:"rx"`
	TX      bool `json:"tx"`
}

// Ethtool reads NIC statistics and pause parameters through the ethtool
// ioctl (ETHTOOL_GSTATS, ETHTOOL_GPAUSEPARAM) in the caller's network
// namespace; it never runs the ethtool command.
type Ethtool struct {
	e *ethtool.Ethtool
}

// OpenEthtool opens the ioctl socket.
func OpenEthtool() (*Ethtool, error) {
	e, err := ethtool.NewEthtool()
	if err != nil {
		return nil, fmt.Errorf("open ethtool socket: %w", err)
	}
	return &Ethtool{e: e}, nil
}

// Close releases the socket.
func (t *Ethtool) Close() { t.e.Close() }

// Stats returns the driver's statistics by name.
func (t *Ethtool) Stats(netdev string) (map[string]uint64, error) {
	s, err := t.e.Stats(netdev)
	if err != nil {
		return nil, ioctlErr(netdev, "read statistics", err)
	}
	return s, nil
}

// Pause returns the 802.3x pause parameters.
func (t *Ethtool) Pause(netdev string) (Pause, error) {
	p, err := t.e.GetPause(netdev)
	if err != nil {
		return Pause{}, ioctlErr(netdev, "read pause parameters", err)
	}
	return Pause{Autoneg: p.Autoneg != 0, RX: p.RxPause != 0, TX: p.TxPause != 0}, nil
}

func ioctlErr(netdev, step string, err error) error {
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOTSUP) {
		return fmt.Errorf("%s: %s: %w (%v)", netdev, step, ErrUnsupported, err)
	}
	return fmt.Errorf("%s: %s: %w", netdev, step, err)
}
