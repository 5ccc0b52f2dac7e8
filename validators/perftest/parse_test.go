package perftest_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/validators/perftest"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var approx = cmpopts.EquateApprox(0, 1e-6)

func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		file string
		want perftest.Report
	}{
		{"write_bw_gbits.txt", perftest.Report{Title: "RDMA_Write BW Test", Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: 3, TOS: -1,
			Bandwidth: []perftest.Bandwidth{{Bytes: 65536, Iterations: 5000, PeakGbps: 97.57, AvgGbps: 97.55, MsgRateMpps: 0.186055}}}},
		// MB/sec is MiB/s: 11077.33 MiB/s × 2^20 × 8 / 10^9 = 92.923 Gb/s.
		{"write_bw_mib_duration.txt", perftest.Report{Title: "RDMA_Write BW Test", Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: 3, TOS: -1,
			Bandwidth: []perftest.Bandwidth{{Bytes: 65536, Iterations: 664644, PeakGbps: 0, AvgGbps: 11077.33 * 1048576 * 8 / 1e9, MsgRateMpps: 0.177237}}}},
		{"send_lat.txt", perftest.Report{Title: "Send Latency Test", Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: 3, TOS: 106,
			Latency: []perftest.Latency{
				{Bytes: 2, Iterations: 1000, MinUs: 1.01, MaxUs: 4.32, TypicalUs: 1.05, AvgUs: 1.06, StdevUs: 0.08, P99Us: 1.24, P999Us: 4.32},
				{Bytes: 4096, Iterations: 1000, MinUs: 2.11, MaxUs: 6.87, TypicalUs: 2.19, AvgUs: 2.21, StdevUs: 0.10, P99Us: 2.48, P999Us: 6.87},
			}}},
		{"send_lat_duration.txt", perftest.Report{Title: "Send Latency Test", Device: "mlx5_1", LinkType: "Ethernet", MTU: 1024, GIDIndex: 1, TOS: -1,
			Latency: []perftest.Latency{{Bytes: 2, Iterations: 2317470, AvgUs: 2.16, TypicalUs: 2.16, TPS: 463494}}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := perftest.ParseText(read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got, approx); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if math.Abs(11077.33*1048576*8/1e9-92.923) > 0.001 {
		t.Error("MiB/s conversion sanity")
	}
}

// TestParseMiBPerSec: perftest 24.07 and later print [MiB/sec] where
// older releases print [MB/sec]; both are 2^20 bytes per second, so
// 23840 MiB/s is 199.98 Gb/s, never 23840 Gb/s. Pasted output with the
// tabs turned into spaces still names the device.
func TestParseMiBPerSec(t *testing.T) {
	want := perftest.Bandwidth{Bytes: 65536, Iterations: 1000, PeakGbps: 23841.86 * 1048576 * 8 / 1e9, AvgGbps: 23840.00 * 1048576 * 8 / 1e9, MsgRateMpps: 0.38144}
	for file, device := range map[string]string{"send_bw_mib.txt": "mlx5_2", "send_bw_mib_spaces.txt": "rocep65s0f0"} {
		got, err := perftest.ParseText(read(t, file))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if got.Device != device || got.MTU != 4096 || got.GIDIndex != 3 || got.LinkType != "Ethernet" {
			t.Errorf("%s: header %+v", file, got)
		}
		if diff := cmp.Diff([]perftest.Bandwidth{want}, got.Bandwidth, approx); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", file, diff)
		}
	}
	// The JSON report of a MiB/s run is in MiB/s too: the text header's
	// unit picks the JSON unit.
	out := append(read(t, "send_bw_mib.txt"), []byte(perftest.JSONMarker+"\n{results: {MsgSize: 65536, n_iterations: 1000, BW_peak: 23841.86, BW_average: 23840.00, MsgRate: 0.381440}}")...)
	got, err := perftest.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]perftest.Bandwidth{want}, got.Bandwidth, approx); diff != "" {
		t.Errorf("JSON after a MiB/s header: (-want +got):\n%s", diff)
	}
}

// TestFailedRunIsAnError: a work completion error (perftest issue 173 in
// the shared corpus: "Failed status 4 ... syndrom 0x51") is an error that
// names the status, never a report of zeros or of a partial table.
func TestFailedRunIsAnError(t *testing.T) {
	_, err := perftest.ParseText(read(t, "retry_exceeded.txt"))
	if !errors.Is(err, perftest.ErrRunFailed) || !errors.Is(err, perftest.ErrNoResults) || !strings.Contains(err.Error(), "IBV_WC_RETRY_EXC_ERR") {
		t.Errorf("retry exceeded: %v", err)
	}
	rep, err := perftest.ParseText(read(t, "write_bw_failed_midway.txt"))
	if !errors.Is(err, perftest.ErrRunFailed) || errors.Is(err, perftest.ErrNoResults) || !strings.Contains(err.Error(), "not a measurement") {
		t.Errorf("failed after a row: %v", err)
	}
	if rep == nil || rep.Device != "mlx5_0" {
		t.Errorf("the report of a failed run is still returned for its problems: %+v", rep)
	}
}

func TestParseTextFailures(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"connect_fail.txt", "Couldn't connect to 10.0.1.12:18515"},
		{"retry_exceeded.txt", "Failed status 12: wr_id 0 syndrom 0x81"},
	} {
		_, err := perftest.ParseText(read(t, tc.file))
		if !errors.Is(err, perftest.ErrNoResults) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrNoResults mentioning %q", tc.file, err, tc.want)
		}
	}
	if _, err := perftest.ParseText([]byte(" #bytes #iterations    t_min[cycles]    t_max[cycles]\n 2 1000 1 2 3 4 5 6 7\n")); err == nil || !strings.Contains(err.Error(), "cycles") {
		t.Errorf("cycles: err = %v", err)
	}
	if _, err := perftest.ParseText([]byte(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n 65536 5000 97.1\n")); err == nil {
		t.Error("short row accepted")
	}
}

func TestParseJSON(t *testing.T) {
	lat := []perftest.Latency{{Bytes: 2, Iterations: 1000, MinUs: 1.01, MaxUs: 4.32, TypicalUs: 1.05, AvgUs: 1.06, StdevUs: 0.08, P99Us: 1.24, P999Us: 4.32}}
	bw := []perftest.Bandwidth{{Bytes: 65536, Iterations: 5000, PeakGbps: 97.57, AvgGbps: 97.55, MsgRateMpps: 0.186055}}
	for _, tc := range []struct {
		file string
		want perftest.Report
	}{
		{"send_lat_legacy.json", perftest.Report{Title: "Send_Latency_Test", Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: 3, TOS: -1, Latency: lat}},
		{"send_lat_standard.json", perftest.Report{Title: "Send_Latency_Test", Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: 3, TOS: 106, Latency: lat}},
		{"write_bw_legacy.json", perftest.Report{Title: "RDMA_Write_BW_Test", Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: 3, TOS: 106, Bandwidth: bw}},
		{"write_bw_standard.json", perftest.Report{Title: "RDMA_Write_BW_Test", Device: "mlx5_0", LinkType: "Ethernet", MTU: 4096, GIDIndex: 3, TOS: -1, Bandwidth: bw}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := perftest.ParseJSON(read(t, tc.file), true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, got, approx); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// Without --report_gbits perftest writes MiB/s.
	got, err := perftest.ParseJSON(read(t, "write_bw_legacy.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := 97.55 * 1048576 * 8 / 1e9; math.Abs(got.Bandwidth[0].AvgGbps-want) > 1e-9 {
		t.Errorf("MiB/s JSON: %v Gb/s, want %v", got.Bandwidth[0].AvgGbps, want)
	}
	for _, bad := range []string{"", "{", "{results: {MsgSize: 2}}", "{a: {b: {c: {d: {e: {f: {g: {h: {i: {j: 1}}}}}}}}}}", "[]", "{x: 1} trailing"} {
		if _, err := perftest.ParseJSON([]byte(bad), true); err == nil {
			t.Errorf("ParseJSON(%q) accepted", bad)
		}
	}
}

// Parse reads the client's output as WithJSON produces it: text, marker,
// JSON. The JSON wins when it parses; the text otherwise.
func TestParseCombined(t *testing.T) {
	out := append(append(read(t, "write_bw_gbits.txt"), []byte(perftest.JSONMarker+"\n")...), read(t, "write_bw_legacy.json")...)
	got, err := perftest.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.TOS != 106 || got.Title != "RDMA_Write_BW_Test" || got.Bandwidth[0].AvgGbps != 97.55 {
		t.Errorf("JSON not used: %+v", got)
	}
	broken := append(append(read(t, "send_lat.txt"), []byte(perftest.JSONMarker+"\n")...), []byte("{results: ")...)
	got, err = perftest.Parse(broken)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Latency) != 2 || got.Title != "Send Latency Test" {
		t.Errorf("text fallback: %+v", got)
	}
}

func FuzzParseText(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.Seed(f, "perftest")
	for _, name := range []string{"write_bw_gbits.txt", "send_lat.txt", "send_lat_duration.txt", "connect_fail.txt", "send_bw_mib.txt", "send_bw_mib_spaces.txt", "write_bw_failed_midway.txt"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := perftest.ParseText(b)
		if err == nil && len(rep.Latency) == 0 && len(rep.Bandwidth) == 0 {
			t.Fatal("no error and no results")
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.Seed(f, "perftest")
	for _, name := range []string{"write_bw_legacy.json", "send_lat_legacy.json", "send_lat_standard.json", "write_bw_standard.json"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := perftest.ParseJSON(b, true)
		if err == nil && rep == nil {
			t.Fatal("nil report without error")
		}
	})
}
