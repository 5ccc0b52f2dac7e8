package perftest

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

// Test is a perftest binary.
type Test string

const (
	WriteBW  Test = "ib_write_bw"
	SendBW   Test = "ib_send_bw"
	ReadBW   Test = "ib_read_bw"
	WriteLat Test = "ib_write_lat"
	SendLat  Test = "ib_send_lat"
	ReadLat  Test = "ib_read_lat"
)

// Latency reports whether the test measures latency (else bandwidth).
func (t Test) Latency() bool { return strings.HasSuffix(string(t), "_lat") }

// OneWay reports whether the test reports half the round trip: send and
// write latency do (perftest's rtt_factor 2), read and atomic report the
// full round trip.
func (t Test) OneWay() bool { return t == SendLat || t == WriteLat }

func (t Test) valid() bool {
	switch t {
	case WriteBW, SendBW, ReadBW, WriteLat, SendLat, ReadLat:
		return true
	}
	return false
}

// Options are the perftest parameters both sides share; perftest requires
// the same options on server and client.
type Options struct {
	Test     Test
	Device   string // -d, RDMA device
	IBPort   int    // -i, RDMA port (default 1)
	GIDIndex int    // -x; negative leaves perftest's default
	// ToS is the IP ToS byte RoCE packets carry (Policy.RoCEToS(), 106 for
	// DSCP 26): --tclass with verbs QPs, -T with rdma_cm.
	ToS    int
	RDMACM bool // -R: connect QPs with rdma_cm
	Size   int  // -s bytes per message
	// Iterations (-n) or Duration (-D, bandwidth only); zero keeps defaults.
	Iterations int
	Duration   time.Duration
	QPs        int // -q, bandwidth only
	MTU        int // -m
	TCPPort    int // -p, the out-of-band exchange port (default 18515)
}

func (o Options) validate() error {
	if !o.Test.valid() {
		return fmt.Errorf("perftest: unknown test %q", o.Test)
	}
	if o.Device != "" && !rdmasys.SafeName(o.Device) {
		return fmt.Errorf("perftest: RDMA device name %q has characters rocefab will not pass on", o.Device)
	}
	if o.ToS < 0 || o.ToS > 255 {
		return fmt.Errorf("perftest: ToS %d out of range 0-255", o.ToS)
	}
	return nil
}

// args are the options common to server and client.
func (o Options) args() []string {
	a := []string{string(o.Test)}
	if o.Device != "" {
		a = append(a, "-d", o.Device)
	}
	if o.IBPort > 0 {
		a = append(a, "-i", strconv.Itoa(o.IBPort))
	}
	if o.GIDIndex >= 0 {
		a = append(a, "-x", strconv.Itoa(o.GIDIndex))
	}
	if o.RDMACM {
		a = append(a, "-R")
		if o.ToS > 0 {
			a = append(a, "-T", strconv.Itoa(o.ToS))
		}
	} else if o.ToS > 0 {
		a = append(a, "--tclass="+strconv.Itoa(o.ToS))
	}
	if o.Size > 0 {
		a = append(a, "-s", strconv.Itoa(o.Size))
	}
	if o.Duration > 0 && !o.Test.Latency() {
		a = append(a, "-D", strconv.Itoa(max(1, int(o.Duration.Round(time.Second)/time.Second))))
	} else if o.Iterations > 0 {
		a = append(a, "-n", strconv.Itoa(o.Iterations))
	}
	if o.QPs > 1 && !o.Test.Latency() {
		a = append(a, "-q", strconv.Itoa(o.QPs))
	}
	if o.MTU > 0 {
		a = append(a, "-m", strconv.Itoa(o.MTU))
	}
	if o.TCPPort > 0 {
		a = append(a, "-p", strconv.Itoa(o.TCPPort))
	}
	if !o.Test.Latency() {
		a = append(a, "--report_gbits")
	}
	// -F: do not fail on cpufreq governors; the report is still valid.
	return append(a, "-F")
}

// ServerArgs is the server's command line.
func ServerArgs(o Options) ([]string, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	return o.args(), nil
}

// ClientArgs is the client's command line; server is the server's RoCE
// address.
func ClientArgs(o Options, server string) ([]string, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if !rdmasys.SafeName(server) {
		return nil, fmt.Errorf("perftest: server address %q is not a plain address", server)
	}
	return append(o.args(), server), nil
}

// JSONMarker separates perftest's text report from the JSON file that
// WithJSON prints after it.
const JSONMarker = "### rocefab perftest json ###"

// WithJSON wraps a command so perftest also writes its JSON report
// (--out_json, perftest 4.5-0.17 and later) and the output carries it
// after JSONMarker; the exit status is perftest's. file must be a plain
// path.
func WithJSON(argv []string, file string) ([]string, error) {
	if !rdmasys.SafeName(strings.ReplaceAll(file, "/", "_")) {
		return nil, fmt.Errorf("perftest: JSON file %q is not a plain path", file)
	}
	for _, a := range argv {
		if !rdmasys.SafeName(strings.TrimPrefix(strings.TrimPrefix(a, "--"), "-")) && !strings.HasPrefix(a, "--tclass=") {
			return nil, fmt.Errorf("perftest: argument %q is not plain", a)
		}
	}
	cmd := strings.Join(argv, " ") + " --out_json --out_json_file=" + file
	script := cmd + "; rc=$?; echo '" + JSONMarker + "'; cat " + file + " 2>/dev/null; rm -f " + file + "; exit $rc"
	return []string{"sh", "-c", script}, nil
}
