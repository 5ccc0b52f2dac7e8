package fleet

import (
	"context"
	"fmt"
	"os"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/counters/showjson"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

// SwitchOpener connects to an intent switch (the engine does).
type SwitchOpener interface {
	OpenSwitch(ctx context.Context, res *intent.Resolved, sw *intent.Switch) (drivers.Driver, string, error)
}

// SwitchCounterSource reads a connected switch's PFC/ECN counters: by gNMI
// path, or over SSH with its platform's show commands with JSON output;
// nil when the switch has neither.
func SwitchCounterSource(reg *renderers.Registry, sw *intent.Switch, drv drivers.Driver, transport string, ports []string, paths []counters.CounterPath) counters.Source {
	switch transport {
	case "gnmi":
		if reader, ok := drv.(counters.PathCounterReader); ok {
			return counters.DriverSource{Device: sw.Name, Reader: reader, Paths: paths}
		}
	case "ssh":
		if src, ok := ShowJSONSource(reg, sw, drv, ports, sw.Policy.PFCPriorities); ok {
			return src
		}
	}
	return nil
}

// ShowJSONSource reads a switch driven over SSH with its platform's show
// commands with JSON output, for ports and priorities prios; false when
// the driver or the platform has none.
func ShowJSONSource(reg *renderers.Registry, sw *intent.Switch, drv drivers.Driver, ports []string, prios []int) (showjson.Source, bool) {
	sh, ok := drv.(showjson.Shower)
	p, known := showjson.For(reg, sw.Platform)
	if !ok || !known {
		return showjson.Source{}, false
	}
	return showjson.Source{Device: sw.Name, Shell: sh, Platform: p, Ports: ports, Prios: prios}, true
}

// SwitchCounters opens the switches that expose PFC/ECN counters, over
// gNMI or SSH. The notes say which were not read and why; call the
// function it returns to close them.
func SwitchCounters(ctx context.Context, reg *renderers.Registry, open SwitchOpener, res *intent.Resolved) (*counters.Sampler, func(), []string) {
	var sources []counters.Source
	var closers []func()
	var notes []string
	for _, sw := range res.Switches {
		var ports []string
		for _, p := range sw.Ports {
			ports = append(ports, p.Name)
		}
		paths := counters.PathsWith(reg, sw.Platform, ports, sw.Policy.PFCPriorities)
		if len(paths) == 0 {
			continue
		}
		drv, transport, err := open.OpenSwitch(ctx, res, sw)
		if err != nil {
			notes = append(notes, fmt.Sprintf("counters of %s not read: %v", sw.Name, err))
			continue
		}
		closers = append(closers, func() { _ = drv.Close() })
		src := SwitchCounterSource(reg, sw, drv, transport, ports, paths)
		if src == nil {
			// A Linux router (netlink) has no switch counters to miss.
			if transport == "ssh" || transport == "gnmi" {
				notes = append(notes, fmt.Sprintf("counters of %s not read: rocefab reads %s switches' counters over gNMI only", sw.Name, sw.Platform))
			}
			continue
		}
		sources = append(sources, src)
	}
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	if len(sources) == 0 {
		return nil, closeAll, notes
	}
	return &counters.Sampler{Sources: sources}, closeAll, notes
}

// HostCounterSource reads this host's RDMA ports, found once at start; nil
// when it has none.
func (f *Fleet) HostCounterSource(name, sysfsRoot string) counters.Source {
	if name == "" {
		name, _ = os.Hostname()
	}
	sys := rdmasys.New(sysfsRoot)
	devs, err := sys.Devices()
	if err != nil || len(devs) == 0 {
		f.log().Warn("host counters: no RDMA device found; not collected", zap.String("sysfs", sysfsRoot), zap.Error(err))
		return nil
	}
	src := counters.HostSource{Host: name, Sys: sys, Ports: HostPorts(devs)}
	if eth, err := counters.OpenEthtool(); err == nil {
		src.Stats = eth // kept open for the agent's life
	} else {
		f.log().Warn("host counters: ethtool unavailable; NIC pause statistics not collected", zap.Error(err))
	}
	return src
}

// HostPorts are the Ethernet RDMA ports whose counters are read.
func HostPorts(devs []rdmasys.Device) []counters.HostPort {
	var out []counters.HostPort
	for _, d := range devs {
		for _, p := range d.Ports {
			if p.LinkLayer == "" || p.LinkLayer == "Ethernet" {
				out = append(out, counters.HostPort{Device: d.Name, Port: p.Num, Netdev: p.Netdev})
			}
		}
	}
	return out
}
