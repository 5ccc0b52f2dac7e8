package all

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/lint"
)

// portPlatforms are the platforms of the port-scaling fabric, each with
// the attributes lint asks of it and a way to name its n-th port.
var portPlatforms = []struct {
	name, attrs string
	port        func(i int) string // i from 0
	// rangeOf is the intent's expression for ports [from, to).
	rangeOf func(from, to int) string
}{
	{"eos", "", func(i int) string { return fmt.Sprintf("Ethernet%d", i+1) },
		func(a, b int) string { return fmt.Sprintf("Ethernet%d-%d", a+1, b) }},
	{"nxos", "", func(i int) string { return fmt.Sprintf("Ethernet%d/%d", i/4096+1, i%4096+1) },
		func(a, b int) string { return fmt.Sprintf("Ethernet%d/%d-%d", a/4096+1, a%4096+1, (b-1)%4096+1) }},
	{"cumulus", "", func(i int) string { return fmt.Sprintf("swp%d", i+1) },
		func(a, b int) string { return fmt.Sprintf("swp%d-%d", a+1, b) }},
	{"junos", "junos: {queueBufferSize: 15MB}, ", func(i int) string { return fmt.Sprintf("et-0/%d/%d", i/4096, i%4096) },
		func(a, b int) string { return fmt.Sprintf("et-0/%d/%d-%d", a/4096, a%4096, (b-1)%4096) }},
	{"sonic", "asic: mellanox, portSpeed: 100G, ", func(i int) string { return fmt.Sprintf("Ethernet%d", 4*i) },
		func(a, b int) string { return fmt.Sprintf("Ethernet%d-%d step 4", 4*a, 4*(b-1)) }},
	{"openconfig", "openconfig: {pfcFallback: {platform: eos}}, ", func(i int) string { return fmt.Sprintf("Ethernet%d", i+1) },
		func(a, b int) string { return fmt.Sprintf("Ethernet%d-%d", a+1, b) }},
}

// writePortFabric writes a fabric of about total RoCE ports into dir: the
// switches take turns through every platform, each has perSwitch ports
// (in ranges of at most 4,096, NX-OS and Junos on several slots), and
// switch 2k is cabled to switch 2k+1 port by port, so lint checks a link
// for every two ports.
func writePortFabric(tb testing.TB, dir string, total, perSwitch int) (ports int) {
	tb.Helper()
	f, err := os.Create(filepath.Join(dir, "fabric.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: ports}
spec:
  lossless: {vlan: 100, roceDscp: [26], ecn: {minThreshold: 150KB, maxThreshold: 1500KB}, mtu: {switch: max, host: 9000}}
  switches:
`)
	n := max(total/perSwitch, 2)
	n += n % 2
	for s := 0; s < n; s++ {
		p := portPlatforms[(s/2)%len(portPlatforms)] // both ends of a pair on one platform
		var ranges []string
		for from := 0; from < perSwitch; {
			to := min(from+4096-from%4096, perSwitch)
			ranges = append(ranges, p.rangeOf(from, to))
			from = to
		}
		// One names value expands to at most intent.MaxPortList ports.
		var lists []string
		for len(ranges) > 0 {
			n := min(len(ranges), intent.MaxPortList/4096)
			lists = append(lists, fmt.Sprintf("{names: '%s', mode: trunk}", strings.Join(ranges[:n], ",")))
			ranges = ranges[n:]
		}
		fmt.Fprintf(w, "    - {name: sw%d, platform: %s, %saddress: '2001:db8::%x', credentials: {username: rocefab, passwordEnv: SW_PASS}, ports: [%s]}\n",
			s, p.name, p.attrs, s+1, strings.Join(lists, ", "))
		ports += perSwitch
	}
	w.WriteString("  links:\n")
	for s := 0; s < n; s += 2 {
		p := portPlatforms[(s/2)%len(portPlatforms)]
		for i := 0; i < perSwitch; i++ {
			fmt.Fprintf(w, "    - {a: 'sw%d:%s', b: 'sw%d:%s'}\n", s, p.port(i), s+1, p.port(i))
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return ports
}

// renderFabric is what `rocefab render` does, without writing files: load
// and validate, then render and encode every switch. It returns the
// bytes encoded.
func renderFabric(tb testing.TB, dir string) int {
	reg := Renderers()
	res, diags := lint.Validate(reg, dir)
	if diags.HasErrors() {
		tb.Fatalf("the port fabric does not validate:\n%v", diags.Err())
	}
	total := 0
	for _, sw := range res.Switches {
		cfg, err := reg.Render(sw)
		if err != nil {
			tb.Fatal(err)
		}
		e, _ := reg.Lookup(sw.Platform)
		data, err := e.Attrs.Encode(cfg)
		if err != nil {
			tb.Fatal(err)
		}
		total += len(data)
	}
	return total
}

// TestPortFabricRenders keeps the benchmark's generator honest at a small
// size: every platform renders, and the fabric is clean.
func TestPortFabricRenders(t *testing.T) {
	dir := t.TempDir()
	writePortFabric(t, dir, 2*len(portPlatforms)*40, 40)
	if renderFabric(t, dir) == 0 {
		t.Fatal("nothing rendered")
	}
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRenderPorts measures render against the number of RoCE ports,
// at 100,000 and 200,000: "pair" puts them all on two cabled EOS switches,
// the shape that was quadratic (every new interface line was compared with
// all before it, and every link end with every port); "wide" on 12
// switches (two per platform); "many" spreads them over 64-port switches.
// Linear means ns/port (and cpu-ns/port) stays flat from 100k to 200k.
//
//	go test ./renderers/all -run '^$' -bench RenderPorts -benchtime 1x -count 3
func BenchmarkRenderPorts(b *testing.B) {
	for _, shape := range []struct {
		name      string
		perSwitch func(total int) int
	}{
		{"pair", func(total int) int { return total / 2 }},
		{"wide", func(total int) int { return total / (2 * len(portPlatforms)) }},
		{"many", func(int) int { return 64 }},
	} {
		for _, total := range []int{100_000, 200_000} {
			b.Run(fmt.Sprintf("%s/ports=%dk", shape.name, total/1000), func(b *testing.B) {
				dir := b.TempDir()
				ports := writePortFabric(b, dir, total, shape.perSwitch(total))
				b.ReportAllocs()
				b.ResetTimer()
				cpu := cpuTime(b)
				for i := 0; i < b.N; i++ {
					renderFabric(b, dir)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ports), "ns/port")
				// CPU time, every thread and GC included: on a shared
				// machine it varies less than wall time.
				b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N*ports), "cpu-ns/port")
			})
		}
	}
}
