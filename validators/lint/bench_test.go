package lint_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

// writeScaleFabric writes a clean two-tier intent into dir: spines on NX-OS,
// leaves alternating EOS and Cumulus, hosts spread over the leaves with one
// cabled NIC each, every leaf cabled to two spines. Addresses come from
// 2001:db8::/32. Hosts are split over several files, as a large team would.
func writeScaleFabric(tb testing.TB, dir string, switches, hosts int) {
	tb.Helper()
	spines := max(switches/50, 2)
	leaves := switches - spines
	file := func(name string, body func(w *bufio.Writer)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		w.WriteString("apiVersion: rocefab.io/v1alpha1\nkind: Fabric\n")
		body(w)
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	file("fabric.yaml", func(w *bufio.Writer) {
		w.WriteString(`metadata: {name: scale}
spec:
  lossless:
    roceDscp: [26]
    ecn: {minThreshold: 150KB, maxThreshold: 1500KB}
    mtu: {switch: max, host: 9000}
  groups:
    - {name: spines, platform: nxos, credentials: {username: rocefab, passwordEnv: SW_PASS}}
    - {name: leaves-eos, platform: eos, credentials: {username: rocefab, passwordEnv: SW_PASS}}
    - {name: leaves-cumulus, platform: cumulus, credentials: {username: rocefab, passwordEnv: SW_PASS}, overrides: {pfc: {cableLength: 5m}}}
    - {name: servers, credentials: {username: rocefab, passwordFile: /etc/rocefab/host.password}}
`)
	})
	perSpine := (leaves*2+spines-1)/spines + 1
	hostsPerLeaf := (hosts + leaves - 1) / leaves
	leafPort := func(leaf, n int) string { // n from 1
		if leaf%2 == 0 {
			return fmt.Sprintf("Ethernet%d", n)
		}
		return fmt.Sprintf("swp%d", n)
	}
	file("switches.yaml", func(w *bufio.Writer) {
		w.WriteString("spec:\n  switches:\n")
		for s := 0; s < spines; s++ {
			fmt.Fprintf(w, "    - {name: spine%d, group: spines, address: '2001:db8:0:1::%x', ports: [{names: Ethernet1/1-%d}]}\n", s, s+1, perSpine)
		}
		for l := 0; l < leaves; l++ {
			group, prefix := "leaves-eos", "Ethernet"
			if l%2 == 1 {
				group, prefix = "leaves-cumulus", "swp"
			}
			fmt.Fprintf(w, "    - {name: leaf%d, group: %s, address: '2001:db8:0:2::%x', ports: [{names: %s1-%d}, {names: %s%d-%d}]}\n",
				l, group, l+1, prefix, hostsPerLeaf, prefix, hostsPerLeaf+1, hostsPerLeaf+2)
		}
	})
	const hostFiles = 16
	for f := 0; f < hostFiles; f++ {
		file(fmt.Sprintf("hosts-%02d.yaml", f), func(w *bufio.Writer) {
			w.WriteString("spec:\n  hosts:\n")
			for h := f; h < hosts; h += hostFiles {
				leaf := h % leaves
				fmt.Fprintf(w, "    - {name: gpu%05d, group: servers, address: '2001:db8:0:3::%x', nics: [{netdev: ens1f0np0, rdmaDevice: mlx5_0, address: '2001:db8:1:%x::%x'}]}\n",
					h, h+1, leaf, h/leaves+1)
			}
			w.WriteString("  links:\n")
			for h := f; h < hosts; h += hostFiles {
				leaf := h % leaves
				fmt.Fprintf(w, "    - {a: gpu%05d:ens1f0np0, b: leaf%d:%s}\n", h, leaf, leafPort(leaf, h/leaves+1))
			}
		})
	}
	file("uplinks.yaml", func(w *bufio.Writer) {
		w.WriteString("spec:\n  links:\n")
		used := make([]int, spines)
		for l := 0; l < leaves; l++ {
			for k := 0; k < 2; k++ {
				s := (2*l + k) % spines
				used[s]++
				fmt.Fprintf(w, "    - {a: leaf%d:%s, b: spine%d:Ethernet1/%d}\n", l, leafPort(l, hostsPerLeaf+1+k), s, used[s])
			}
		}
	})
}

// TestScaleFabricIsClean keeps the benchmark honest: its intent validates
// clean, with every device and link resolved.
func TestScaleFabricIsClean(t *testing.T) {
	dir := t.TempDir()
	writeScaleFabric(t, dir, 100, 800)
	r, diags := lint.Validate(all.Renderers(), dir)
	if len(diags) > 0 {
		t.Fatalf("%d diagnostics, first: %s", len(diags), diags[0])
	}
	if len(r.Switches) != 100 || len(r.Hosts) != 800 || len(r.Links) != 800+2*98 {
		t.Errorf("%d switches, %d hosts, %d links", len(r.Switches), len(r.Hosts), len(r.Links))
	}
}

// BenchmarkValidateLarge loads, resolves and lints 2,000 switches and
// 16,000 hosts (about 20,000 links) with the real registry.
func BenchmarkValidateLarge(b *testing.B) {
	dir := b.TempDir()
	writeScaleFabric(b, dir, 2000, 16000)
	reg := all.Renderers()
	if _, diags := lint.Validate(reg, dir); len(diags) > 0 {
		b.Fatalf("%d diagnostics, first: %s", len(diags), diags[0])
	}
	var size int64
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			size += fi.Size()
		}
	}
	b.Logf("intent: %d files, %.1f MB", len(files), float64(size)/1e6)
	b.Run("Validate", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime(b)
		for b.Loop() {
			lint.Validate(reg, dir)
		}
		// CPU time, all threads and GC included: on a shared machine it
		// varies less than wall time.
		b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			intent.Load(dir)
		}
	})
	fab, _ := intent.Load(dir)
	b.Run("Resolve", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			intent.Resolve(fab)
		}
	})
	res, _ := intent.Resolve(fab)
	b.Run("Check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lint.Check(res, reg)
		}
	})
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
