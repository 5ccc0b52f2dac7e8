package showjson

import (
	"context"
	"errors"
	"fmt"

	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// Shower runs a read-only show command on a switch, as the SSH driver's
// (*ssh.Driver).Show does.
type Shower interface {
	Show(ctx context.Context, command string) (string, error)
}

// Source reads a switch's RoCE port counters with its platform's show
// commands. Only the lossless priorities' PFC, watchdog and queue counters
// of the listed ports are kept (queue N carries priority N, as rocefab's
// traffic-class maps have it), like the gNMI paths.
type Source struct {
	Device   string
	Shell    Shower
	Platform *Platform
	Ports    []string
	Prios    []int
}

// Name is the switch name.
func (s Source) Name() string { return s.Device }

// Read runs every command. A command that fails or whose output does not
// parse is reported in the error and the others are still returned; the
// read fails only when nothing was read.
func (s Source) Read(ctx context.Context) ([]counters.Sample, error) {
	want := map[counters.Key]bool{}
	for _, p := range s.Ports {
		for _, prio := range s.Prios {
			for _, name := range []string{counters.SwitchPFCRx(prio), counters.SwitchPFCTx(prio), counters.SwitchPFCWatchdog(prio),
				counters.SwitchQueueDrops(prio), counters.SwitchQueueTxPackets(prio), counters.SwitchECNMarked(prio)} {
				want[counters.Key{Device: s.Device, Port: p, Counter: name}] = true
			}
		}
		want[counters.Key{Device: s.Device, Port: p, Counter: counters.SwitchMACRxPause}] = true
		want[counters.Key{Device: s.Device, Port: p, Counter: counters.SwitchMACTxPause}] = true
	}
	got := map[counters.Key]uint64{}
	var errs []error
	var zeros []func(int) string
	for _, c := range s.Platform.Commands(s.Ports) {
		out, err := s.Shell.Show(ctx, c.Line)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.Line, err))
			continue
		}
		samples, err := c.Parse([]byte(out), c.Port)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.Line, err))
			continue
		}
		for _, smp := range samples {
			smp.Device = s.Device
			if want[smp.Key] {
				got[smp.Key] = smp.Value
			}
		}
		if c.AbsentIsZero != nil {
			zeros = append(zeros, c.AbsentIsZero)
		}
	}
	for _, zero := range zeros {
		for _, p := range s.Ports {
			for _, prio := range s.Prios {
				k := counters.Key{Device: s.Device, Port: p, Counter: zero(prio)}
				if _, ok := got[k]; !ok {
					got[k] = 0
				}
			}
		}
	}
	out := make([]counters.Sample, 0, len(got))
	for k, v := range got {
		out = append(out, counters.Sample{Key: k, Value: v})
	}
	err := errors.Join(errs...)
	if err != nil {
		err = fmt.Errorf("%s: %w", s.Device, err)
	}
	if len(out) == 0 && err == nil {
		err = fmt.Errorf("%s: the show commands answered none of the counters of ports %v", s.Device, s.Ports)
	}
	return out, err
}
