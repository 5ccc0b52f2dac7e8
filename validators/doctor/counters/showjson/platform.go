package showjson

import (
	"sort"

	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// Command is one show command and the parser of its output.
type Command struct {
	Line string
	// Port is the port a per-port command asks about ("" for a command that
	// lists every port); parsers of per-port output that does not name the
	// port key their samples by it.
	Port  string
	parse func(out []byte, port string) ([]counters.Sample, error)
	// absentIsZero names a counter the OS leaves out until it first moves
	// (EOS lists a watchdog queue only after its first event): when the
	// command answered, a wanted one that is absent reads 0, so its first
	// rise is a change.
	absentIsZero func(int) string
}

// Parse reads the command's output into samples keyed by port and counter
// (no device).
func (c Command) Parse(out []byte) ([]counters.Sample, error) { return c.parse(out, c.Port) }

// Platform is how one OS serves its counters over the CLI.
type Platform struct {
	Name     string
	commands func(ports []string) []Command
}

// Commands are the commands that read ports.
func (p *Platform) Commands(ports []string) []Command { return p.commands(ports) }

// platforms are listed here, not registered from init(), so the set is
// read in one place.
var platforms = map[string]*Platform{
	nxosPlatform.Name:  nxosPlatform,
	eosPlatform.Name:   eosPlatform,
	nvuePlatform.Name:  nvuePlatform,
	junosPlatform.Name: junosPlatform,
}

// For is the platform (renderer name: nxos, eos, cumulus, junos) whose
// counters are read this way.
func For(platform string) (*Platform, bool) {
	p, ok := platforms[platform]
	return p, ok
}

// Platforms lists the platforms read this way, sorted.
func Platforms() []string {
	var out []string
	for n := range platforms {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func perPort(ports []string, line func(port string) string, parse func([]byte, string) ([]counters.Sample, error)) []Command {
	out := make([]Command, 0, len(ports))
	for _, p := range ports {
		out = append(out, Command{Line: line(p), Port: p, parse: parse})
	}
	return out
}

func sample(port, counter string, v uint64) counters.Sample {
	return counters.Sample{Key: counters.Key{Port: port, Counter: counter}, Value: v}
}

// named drops samples of an unnamed port (a key "" in the output).
func named(in []counters.Sample) []counters.Sample {
	out := in[:0]
	for _, s := range in {
		if s.Port != "" {
			out = append(out, s)
		}
	}
	return out
}
