package observe

import (
	"fmt"
	"strings"
)

// Key names one counter: the device (host or switch), its port (an RDMA
// port "mlx5_0/1", a netdev, or a switch interface) and the counter.
type Key struct {
	Device  string `json:"device"`
	Port    string `json:"port"`
	Counter string `json:"counter"`
}

// Sample is one counter reading.
type Sample struct {
	Key
	Value uint64 `json:"value"`
}

// NewSample is a reading of one port's counter, with no device.
func NewSample(port, counter string, v uint64) Sample {
	return Sample{Key: Key{Port: port, Counter: counter}, Value: v}
}

// NamedPorts drops samples of an unnamed port (a key "" in the output).
func NamedPorts(in []Sample) []Sample {
	out := in[:0]
	for _, s := range in {
		if s.Port != "" {
			out = append(out, s)
		}
	}
	return out
}

// Switch counters have these names whatever the platform calls them;
// prio/queue/pg is the number.
func SwitchPFCRx(prio int) string           { return fmt.Sprintf("pfc%d/rx-pause", prio) }
func SwitchPFCTx(prio int) string           { return fmt.Sprintf("pfc%d/tx-pause", prio) }
func SwitchPFCWatchdog(prio int) string     { return fmt.Sprintf("pfc%d/watchdog-storms", prio) }
func SwitchECNMarked(queue int) string      { return fmt.Sprintf("queue%d/ecn-marked", queue) }
func SwitchPFCRxMicros(prio int) string     { return fmt.Sprintf("pfc%d/rx-pause-us", prio) }
func SwitchPFCTxMicros(prio int) string     { return fmt.Sprintf("pfc%d/tx-pause-us", prio) }
func SwitchQueueDrops(queue int) string     { return fmt.Sprintf("queue%d/drops", queue) }
func SwitchQueueTxPackets(queue int) string { return fmt.Sprintf("queue%d/tx-packets", queue) }
func SwitchPGDrops(pg int) string           { return fmt.Sprintf("pg%d/drops", pg) }

// Switch 802.3x (link-level) pause counters.
const (
	SwitchMACRxPause = "mac/rx-pause"
	SwitchMACTxPause = "mac/tx-pause"
)

// CounterCommand is one show command reading counters, and the parser of
// its output.
type CounterCommand struct {
	Line string
	// Port is the port a per-port command asks about ("" for a command that
	// lists every port); parsers of per-port output that does not name the
	// port key their samples by it.
	Port  string
	Parse func(out []byte, port string) ([]Sample, error)
	// AbsentIsZero names a counter the OS leaves out until it first moves:
	// when the command answered, a wanted one that is absent reads 0, so
	// its first rise is a change.
	AbsentIsZero func(prio int) string
}

// CounterCommands are a platform's show commands reading the given ports.
type CounterCommands func(ports []string) []CounterCommand

// PerPort is one command per port.
func PerPort(ports []string, line func(port string) string, parse func([]byte, string) ([]Sample, error)) []CounterCommand {
	out := make([]CounterCommand, 0, len(ports))
	for _, p := range ports {
		out = append(out, CounterCommand{Line: line(p), Port: p, Parse: parse})
	}
	return out
}

// CounterPath maps one gNMI leaf to a counter key.
type CounterPath struct {
	Path    string // the leaf, "origin:/a/b[k=v]/c" as gnmipath reads it
	Port    string
	Counter string // SwitchPFCRx(3), ...
	// Subscribe is the path to ask for when the target serves the leaf
	// only inside a larger JSON value, and Target the gNMI target of the
	// request. Both empty: ask for Path itself.
	Subscribe string
	Target    string
}

// Request is the path string to subscribe to, with its target
// ("TARGET@/a/b"), as gnmipath.WithTarget writes it.
func (c CounterPath) Request() string {
	p := c.Subscribe
	if p == "" {
		p = c.Path
	}
	if c.Target == "" {
		return p
	}
	return c.Target + "@" + p
}

// CounterPaths lists a platform's counter paths for its RoCE ports and
// lossless priorities.
type CounterPaths func(ports []string, prios []int) []CounterPath

// EscapePathElem escapes a gNMI path element's name.
func EscapePathElem(s string) string {
	return strings.NewReplacer(`\`, `\\`, `/`, `\/`, `[`, `\[`, `]`, `\]`).Replace(s)
}
