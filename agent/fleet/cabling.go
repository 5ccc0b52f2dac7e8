package fleet

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/cabling"
)

// UsageError is a mistake in what the caller gave (a malformed --lldp
// pair, a device the intent lacks); the CLI exits with its usage code.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErr(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ParseLLDPFiles parses DEVICE=FILE pairs (the --lldp values) into
// device -> file; a malformed pair is a *UsageError.
func ParseLLDPFiles(files []string) (map[string]string, error) {
	given := map[string]string{}
	for _, f := range files {
		dev, path, ok := strings.Cut(f, "=")
		if !ok || dev == "" || path == "" {
			return nil, usageErr("--lldp %q: want DEVICE=FILE", f)
		}
		given[dev] = path
	}
	return given, nil
}

// lldpDevice is one device of the intent as the cabling check reads it.
type lldpDevice struct {
	name, platform, netns string
	sw                    *intent.Switch // nil for a host
}

// ReadCabling reads every device's neighbours (the saved files given,
// device -> file, first; then lldpcli in the device's namespace, socket
// naming lldpd's control socket with {name} the device; then the
// switches through readSwitch) and classifies the intent's links. A
// device given that the intent lacks is a *UsageError.
func ReadCabling(ctx context.Context, res *intent.Resolved, given map[string]string, socket string, readSwitch SwitchLLDPReader) (*cabling.Report, error) {
	var devs []lldpDevice
	for _, s := range res.Switches {
		devs = append(devs, lldpDevice{s.Name, s.Platform, s.Netns, s})
	}
	for _, h := range res.Hosts {
		devs = append(devs, lldpDevice{h.Name, "host", h.Netns, nil})
	}
	known := map[string]bool{}
	for _, d := range devs {
		known[d.name] = true
	}
	for dev := range given {
		if !known[dev] {
			return nil, usageErr("--lldp %s: no device of that name in the intent", dev)
		}
	}
	obs := cabling.Observed{}
	var notes []string
	for _, d := range devs {
		parse := LLDPParser(d.platform)
		var data []byte
		var err error
		path, fromFile := given[d.name]
		switch {
		case fromFile && parse == nil:
			return nil, fmt.Errorf("%s: rocefab reads no LLDP output of platform %s", d.name, d.platform)
		case fromFile:
			if data, err = os.ReadFile(path); err != nil {
				return nil, fmt.Errorf("%s: %w", d.name, err)
			}
		case d.netns != "":
			if data, err = lldpcliIn(ctx, d, socket); err != nil {
				notes = append(notes, fmt.Sprintf("%s not read: %v", d.name, err))
				continue
			}
		case d.sw != nil && readSwitch != nil && parse != nil:
			if data, err = readSwitch(ctx, d.sw); err != nil {
				notes = append(notes, fmt.Sprintf("%s not read: %v; give its LLDP output with --lldp %s=FILE", d.name, err, d.name))
				continue
			}
		default:
			notes = append(notes, fmt.Sprintf("%s not read: give its LLDP output with --lldp %s=FILE", d.name, d.name))
			continue
		}
		nbs, err := parse(d.name, data)
		if err != nil && !fromFile {
			// The device's own answer, not a file the user gave: say so
			// and judge its links by their other ends.
			notes = append(notes, fmt.Sprintf("%s not read: its LLDP answer does not parse: %v", d.name, err))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.name, err)
		}
		obs.Read = append(obs.Read, d.name)
		obs.Neighbors = append(obs.Neighbors, nbs...)
	}
	names := make([]string, 0, len(devs))
	for _, d := range devs {
		names = append(names, d.name)
	}
	rep := cabling.Classify(res.Links, names, obs)
	sort.Strings(notes)
	rep.Notes = notes
	return rep, nil
}

// SwitchLLDPReader reads one switch's LLDP neighbours, in its platform's
// format, through its driver.
type SwitchLLDPReader func(ctx context.Context, sw *intent.Switch) ([]byte, error)

// platformLLDP is the registered platforms' LLDP readers.
var platformLLDP = sync.OnceValue(func() map[string]*observe.LLDP {
	reg := all.Renderers()
	out := map[string]*observe.LLDP{}
	for _, name := range reg.Names() {
		if e, err := reg.Lookup(name); err == nil && e.Attrs.LLDP != nil {
			out[name] = e.Attrs.LLDP
		}
	}
	return out
})

// LLDPParser is the parser of a platform's LLDP output: lldpcli's for
// hosts and Linux, the generic OpenConfig one, or the one the platform
// registers; nil when rocefab reads none.
func LLDPParser(platform string) cabling.Parser {
	if p := cabling.Parsers[platform]; p != nil {
		return p
	}
	if l := platformLLDP()[platform]; l != nil {
		return l.Parse
	}
	return nil
}

// SwitchLLDP opens each switch through open (as plan does) and reads its
// neighbours: a show command over SSH or a gNMI Get, as the platform
// registers them (renderers.Attributes.LLDP), or OpenConfig's /lldp over
// gNMI.
func SwitchLLDP(open SwitchOpener, res *intent.Resolved) SwitchLLDPReader {
	return func(ctx context.Context, sw *intent.Switch) ([]byte, error) {
		drv, transport, err := open.OpenSwitch(ctx, res, sw)
		if err != nil {
			return nil, err
		}
		defer drv.Close()
		switch d := drv.(type) {
		case interface {
			Show(context.Context, string) (string, error)
		}:
			var cmd string
			if l := platformLLDP()[sw.Platform]; l != nil {
				cmd = l.Show
			}
			if cmd == "" {
				return nil, fmt.Errorf("rocefab reads no LLDP over %s from %s", transport, sw.Platform)
			}
			out, err := d.Show(ctx, cmd)
			return []byte(out), err
		case interface{ Client() gnmipb.GNMIClient }:
			req := &gnmipb.GetRequest{Type: gnmipb.GetRequest_ALL, Encoding: gnmipb.Encoding_JSON_IETF,
				Path: []*gnmipb.Path{{Elem: []*gnmipb.PathElem{{Name: "lldp"}}}}}
			if l := platformLLDP()[sw.Platform]; l != nil && len(l.GNMIPath) > 0 {
				// The platform's own table instead of OpenConfig's /lldp.
				var elems []*gnmipb.PathElem
				for _, e := range l.GNMIPath {
					elems = append(elems, &gnmipb.PathElem{Name: e})
				}
				req.Prefix = &gnmipb.Path{Target: l.GNMITarget}
				req.Path = []*gnmipb.Path{{Elem: elems}}
			}
			resp, err := d.Client().Get(ctx, req)
			if err != nil {
				return nil, err
			}
			for _, n := range resp.GetNotification() {
				for _, u := range n.GetUpdate() {
					if v := u.GetVal().GetJsonIetfVal(); len(v) > 0 {
						return v, nil
					}
				}
			}
			return nil, fmt.Errorf("the gNMI answer holds no JSON")
		}
		return nil, fmt.Errorf("rocefab reads no LLDP over %s", transport)
	}
}

// lldpcliIn runs lldpcli inside the device's network namespace.
func lldpcliIn(ctx context.Context, d lldpDevice, socket string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	args := []string{"netns", "exec", d.netns, "lldpcli"}
	if socket != "" {
		args = append(args, "-u", strings.ReplaceAll(socket, "{name}", d.name))
	}
	args = append(args, "-f", "json", "show", "neighbors")
	out, err := exec.CommandContext(ctx, "ip", args...).Output()
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return nil, fmt.Errorf("lldpcli in netns %s: %s", d.netns, msg)
	}
	return out, nil
}
