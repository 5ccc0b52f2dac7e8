package netlink

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/vishvananda/netlink/nl"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/netlink/dcbnl"
)

// dcbClient is what the settings need from DCB netlink; tests substitute a
// model of the kernel and of mlx5's DCB behaviour.
type dcbClient interface {
	getIEEE(ifname string) (*dcbnl.IEEE, error)
	setIEEE(ifname string, ieee dcbnl.IEEE) error
	delApps(ifname string, apps []dcbnl.App) error
	getDCBX(ifname string) (uint8, error)
	setDCBX(ifname string, mode uint8) error
	close()
}

// dcbConn sends DCB netlink requests on one rtnetlink socket opened in the
// host's namespace.
type dcbConn struct {
	sockets map[int]*nl.SocketHandle
}

func openDCB(ns *namespace, timeout time.Duration) (*dcbConn, error) {
	s, err := nl.GetNetlinkSocketAt(ns.handle, netns.None(), unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("open rtnetlink socket: %w", err)
	}
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	if err := s.SetSendTimeout(&tv); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.SetReceiveTimeout(&tv); err != nil {
		s.Close()
		return nil, err
	}
	// Extended acks carry the kernel's own error text; older kernels
	// without them still answer with the errno.
	_ = s.SetExtAck(true)
	return &dcbConn{sockets: map[int]*nl.SocketHandle{unix.NETLINK_ROUTE: {Socket: s}}}, nil
}

func (c *dcbConn) close() {
	for _, s := range c.sockets {
		s.Close()
	}
}

// request sends one DCB message and decodes the answer. A kernel or driver
// without the operation answers EOPNOTSUPP, which becomes ErrUnsupported.
func (c *dcbConn) request(msgType uint16, payload []byte) (*dcbnl.Reply, error) {
	req := nl.NewNetlinkRequest(int(msgType), 0)
	req.Sockets = c.sockets
	req.AddRawData(payload)
	msgs, err := req.Execute(unix.NETLINK_ROUTE, 0)
	if err != nil {
		return nil, kernelErr(err)
	}
	if len(msgs) > 0 {
		return dcbnl.ParseReply(msgs[0])
	}
	return nil, fmt.Errorf("%w: no reply to DCB command %d", dcbnl.ErrMalformed, payload[1])
}

func (c *dcbConn) getIEEE(ifname string) (*dcbnl.IEEE, error) {
	r, err := c.request(dcbnl.RTMGetDCB, dcbnl.GetIEEE(ifname))
	if err != nil {
		return nil, err
	}
	if r.IEEE == nil {
		return &dcbnl.IEEE{}, nil
	}
	return r.IEEE, nil
}

func (c *dcbConn) setIEEE(ifname string, ieee dcbnl.IEEE) error {
	return c.ieeeStatus(c.request(dcbnl.RTMSetDCB, dcbnl.SetIEEE(ifname, ieee)))
}

func (c *dcbConn) delApps(ifname string, apps []dcbnl.App) error {
	return c.ieeeStatus(c.request(dcbnl.RTMSetDCB, dcbnl.DelIEEE(ifname, apps)))
}

// ieeeStatus turns the u8 status of an IEEE SET/DEL reply into an error.
func (c *dcbConn) ieeeStatus(r *dcbnl.Reply, err error) error {
	if err != nil {
		return err
	}
	if r.Status != nil && *r.Status != 0 {
		return kernelErr(syscall.Errno(dcbnl.StatusErrno(*r.Status)))
	}
	return nil
}

func (c *dcbConn) getDCBX(ifname string) (uint8, error) {
	r, err := c.request(dcbnl.RTMGetDCB, dcbnl.GetDCBX(ifname))
	if err != nil {
		return 0, err
	}
	if r.DCBX == nil {
		return 0, fmt.Errorf("%w: GDCBX reply without DCB_ATTR_DCBX", dcbnl.ErrMalformed)
	}
	return *r.DCBX, nil
}

func (c *dcbConn) setDCBX(ifname string, mode uint8) error {
	r, err := c.request(dcbnl.RTMSetDCB, dcbnl.SetDCBX(ifname, mode))
	if err != nil {
		return err
	}
	// setdcbx answers 0 for success and 1 when the device refuses the mode.
	if r.DCBX != nil && *r.DCBX != 0 {
		return fmt.Errorf("the device refused DCBX mode %s", dcbnl.DCBXModeString(mode))
	}
	return nil
}

// kernelErr marks "this kernel, driver or device cannot do that" as
// ErrUnsupported, keeping the kernel's words.
func kernelErr(err error) error {
	if isUnsupported(err) {
		return fmt.Errorf("%w: %v", drivers.ErrUnsupported, err)
	}
	return err
}

func isUnsupported(err error) bool {
	// 524 is the kernel-internal ENOTSUPP some DCB paths leak to userspace.
	return errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, syscall.Errno(524)) || errors.Is(err, drivers.ErrUnsupported)
}
