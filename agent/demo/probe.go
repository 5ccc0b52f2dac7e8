package demo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers/netlink"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// hostEndpoints are the probe endpoints of the demo's hosts, in-process:
// each answers probes like a RoCE NIC and sends its host's own.
type hostEndpoints struct {
	byHost map[string]*probe.Endpoint
	port   uint16
}

// openEndpoints opens one endpoint per intent host, bound to its NIC
// address inside its namespace (or on loopback). With loopback, a port
// held by another program (a `rocefab probe serve`, another demo) moves
// both endpoints to a free port instead of failing.
func openEndpoints(res *intent.Resolved, log *zap.Logger) (*hostEndpoints, error) {
	eps := &hostEndpoints{byHost: map[string]*probe.Endpoint{}, port: probe.DefaultPort}
	err := eps.open(res, log)
	if errors.Is(err, probe.ErrPortInUse) && !anyNetns(res) {
		eps.close()
		port, perr := freeUDPPort(res)
		if perr != nil {
			return nil, errors.Join(err, perr)
		}
		eps = &hostEndpoints{byHost: map[string]*probe.Endpoint{}, port: port}
		err = eps.open(res, log)
	}
	if err != nil {
		eps.close()
		return nil, err
	}
	return eps, nil
}

func (e *hostEndpoints) open(res *intent.Resolved, log *zap.Logger) error {
	for _, h := range res.Hosts {
		t, err := mesh.Target(h)
		if err != nil {
			return err
		}
		cfg := probe.DefaultEndpointConfig()
		cfg.Policy, cfg.Name, cfg.Port, cfg.Listen = mesh.PolicyFor(res, h), h.Name, e.port, []netip.Addr{t.Addr}
		cfg.RunDir = "" // the demo runs its probes through these endpoints directly
		cfg.Logger = log
		var ep *probe.Endpoint
		err = netlink.InNamespace(h.Netns, func() error {
			var err error
			ep, err = probe.NewEndpoint(cfg)
			return err
		})
		if err != nil {
			return fmt.Errorf("probe endpoint of %s on %s: %w", h.Name, t.Addr, err)
		}
		e.byHost[h.Name] = ep
	}
	return nil
}

func (e *hostEndpoints) close() {
	for _, ep := range e.byHost {
		_ = ep.Close()
	}
	e.byHost = map[string]*probe.Endpoint{}
}

// Probe runs one host's probes from its own endpoint (mesh.Prober), with
// the host's NIC counters read around the run.
func (e *hostEndpoints) Probe(ctx context.Context, _ *intent.Resolved, from *intent.Host, targets []probe.Target, pol probe.Policy) (*probe.Report, error) {
	ep := e.byHost[from.Name]
	if ep == nil {
		return nil, fmt.Errorf("no probe endpoint on %s", from.Name)
	}
	cfg := probe.RunConfig{Targets: targets, Policy: pol, From: from.Name}
	var stats *counters.Ethtool
	// The NIC and the ethtool socket belong to the host's namespace.
	err := netlink.InNamespace(from.Netns, func() error {
		var dsts []netip.Addr
		for _, t := range targets {
			dsts = append(dsts, t.Addr)
		}
		nics, _ := counters.NICsFor(dsts)
		var err error
		if stats, err = counters.OpenEthtool(); err != nil {
			stats = nil
		}
		var sr counters.StatsReader
		if stats != nil {
			sr = stats
		}
		cfg.HostCounters = counters.NewHostProbe(from.Name, rdmasys.New(""), sr, nics)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if stats != nil {
		defer stats.Close()
	}
	return ep.Run(ctx, cfg)
}

// probeFabric probes every pair the intent's cabling gives.
func (e *hostEndpoints) probeFabric(ctx context.Context, res *intent.Resolved) *probe.Report {
	return mesh.Run(ctx, res, mesh.Pairs(res), e, 2)
}

func anyNetns(res *intent.Resolved) bool {
	for _, h := range res.Hosts {
		if h.Netns != "" {
			return true
		}
	}
	return false
}

// freeUDPPort finds a UDP port free on every host address.
func freeUDPPort(res *intent.Resolved) (uint16, error) {
	var addrs []netip.Addr
	for _, h := range res.Hosts {
		if t, err := mesh.Target(h); err == nil {
			addrs = append(addrs, t.Addr)
		}
	}
	for range 20 {
		c, err := net.ListenPacket("udp", netip.AddrPortFrom(addrs[0], 0).String())
		if err != nil {
			return 0, err
		}
		port := uint16(c.LocalAddr().(*net.UDPAddr).Port)
		_ = c.Close()
		free := true
		for _, a := range addrs[1:] {
			c, err := net.ListenPacket("udp", netip.AddrPortFrom(a, port).String())
			if err != nil {
				free = false
				break
			}
			_ = c.Close()
		}
		if free {
			return port, nil
		}
	}
	return 0, errors.New("no UDP port free on every probe address")
}
