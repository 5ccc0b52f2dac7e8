package perftest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/validators/doctor/sysfstest"
	"github.com/rocefab/rocefab/validators/perftest"
)

// fakeExec plays two hosts over "SSH": perftest installed (or not), a GID
// table per host, a server that runs until the client is done, and a
// client that cannot connect on its first try.
type fakeExec struct {
	t         *testing.T
	missing   map[string]string // host → missing tool
	ips       map[string]string
	mu        sync.Mutex
	clientRun int
	argvs     map[string][][]string
	clientOut map[perftest.Test][]byte
}

func (f *fakeExec) Run(ctx context.Context, host string, argv []string) ([]byte, []byte, int, error) {
	f.mu.Lock()
	f.argvs[host] = append(f.argvs[host], argv)
	f.mu.Unlock()
	cmd := strings.Join(argv, " ")
	switch {
	case strings.Contains(cmd, "command -v"):
		if m := f.missing[host]; m != "" {
			return []byte("missing:" + m + "\njson:yes\n"), nil, 0, nil
		}
		return []byte("json:yes\n"), nil, 0, nil
	case strings.Contains(cmd, "gid_attrs"):
		g := sysfstest.SysfsGID(f.ips[host])
		return []byte("device:mlx5_0\ngids/0:fe80:0000:0000:0000:0a1b:2cff:fe3d:4e5f\ngid_attrs/types/0:IB/RoCE v1\n" +
			"gids/2:" + g + "\ngids/3:" + g + "\ngid_attrs/types/2:IB/RoCE v1\ngid_attrs/types/3:RoCE v2\n"), nil, 0, nil
	case len(argv) > 0 && strings.HasPrefix(argv[0], "ib_"):
		// The server waits for its client.
		<-ctx.Done()
		return nil, nil, 1, nil
	case argv[0] == "sh" && strings.Contains(cmd, "--out_json"):
		f.mu.Lock()
		f.clientRun++
		first := f.clientRun == 1
		f.mu.Unlock()
		if first {
			return nil, []byte("Couldn't connect to 10.0.1.12:18515\nUnable to open file descriptor for socket connection Unable to init the socket connection\n"), 1, nil
		}
		for test, out := range f.clientOut {
			if strings.Contains(cmd, string(test)+" ") {
				return out, nil, 0, nil
			}
		}
		return nil, []byte("unexpected test"), 1, nil
	}
	f.t.Errorf("unexpected command on %s: %q", host, argv)
	return nil, nil, 1, nil
}

func newFake(t *testing.T) *fakeExec {
	return &fakeExec{t: t, ips: map[string]string{"gpu01": "10.0.1.11", "gpu02": "10.0.1.12"}, argvs: map[string][][]string{},
		missing: map[string]string{},
		clientOut: map[perftest.Test][]byte{
			perftest.WriteBW: append(append(read(t, "write_bw_gbits.txt"), []byte(perftest.JSONMarker+"\n")...), read(t, "write_bw_legacy.json")...),
			perftest.SendLat: read(t, "send_lat.txt"),
		}}
}

func TestRunPair(t *testing.T) {
	f := newFake(t)
	r := &perftest.Runner{Exec: f, RetryWait: time.Millisecond, ServerGrace: time.Millisecond}
	server := perftest.Endpoint{Host: "gpu02", Address: "10.0.1.12", Netdev: "ens1f0np0"}
	client := perftest.Endpoint{Host: "gpu01", Address: "10.0.1.11", Netdev: "ens1f0np0"}
	res, err := r.RunPair(context.Background(), server, client, perftest.Plan{ToS: 106})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 {
		t.Fatalf("results %+v", res)
	}
	bw, lat := res[0], res[1]
	if bw.Test != perftest.WriteBW || bw.Error != "" || bw.Bandwidth == nil || bw.Bandwidth.AvgGbps != 97.55 || bw.GIDIndex != 3 || bw.ToS != 106 {
		t.Errorf("bandwidth result %+v", bw)
	}
	if lat.Test != perftest.SendLat || lat.Latency == nil || lat.Latency.TypicalUs != 1.05 || lat.Latency.P999Us != 4.32 || !lat.OneWay {
		t.Errorf("latency result %+v", lat)
	}
	// The server ran with its own GID index and the ToS as traffic class.
	var serverCmd string
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.argvs["gpu02"] {
		if strings.HasPrefix(a[0], "ib_write_bw") {
			serverCmd = strings.Join(a, " ")
		}
	}
	if want := "ib_write_bw -d mlx5_0 -i 1 -x 3 --tclass=106 -s 65536 -D 5 --report_gbits -F"; serverCmd != want {
		t.Errorf("server command %q, want %q", serverCmd, want)
	}
	if f.clientRun != 3 {
		t.Errorf("client ran %d times, want 3 (one retry while the server started)", f.clientRun)
	}
}

func TestRunPairNotInstalled(t *testing.T) {
	f := newFake(t)
	f.missing["gpu02"] = "ib_send_lat"
	r := &perftest.Runner{Exec: f}
	_, err := r.RunPair(context.Background(), perftest.Endpoint{Host: "gpu02", Address: "10.0.1.12", Netdev: "e"},
		perftest.Endpoint{Host: "gpu01", Address: "10.0.1.11", Netdev: "e"}, perftest.Plan{})
	if !errors.Is(err, perftest.ErrNotInstalled) || !strings.Contains(err.Error(), "gpu02: ib_send_lat not in PATH") {
		t.Fatalf("err = %v", err)
	}
}

func TestGIDIndexMissing(t *testing.T) {
	f := newFake(t)
	r := &perftest.Runner{Exec: f}
	_, _, err := r.GIDIndex(context.Background(), perftest.Endpoint{Host: "gpu01", Address: "10.0.1.99", Netdev: "ens1f0np0"})
	if err == nil || !strings.Contains(err.Error(), "no RoCE v2 GID for 10.0.1.99") {
		t.Fatalf("err = %v", err)
	}
}

func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		o      perftest.Options
		server string
		want   string
	}{
		{perftest.Options{Test: perftest.SendLat, Device: "mlx5_0", GIDIndex: 3, ToS: 106, Size: 2, Iterations: 1000}, "10.0.1.12",
			"ib_send_lat -d mlx5_0 -x 3 --tclass=106 -s 2 -n 1000 -F 10.0.1.12"},
		{perftest.Options{Test: perftest.WriteBW, Device: "mlx5_1", IBPort: 2, GIDIndex: 5, ToS: 106, RDMACM: true, Size: 1048576, Duration: 10 * time.Second, QPs: 4, TCPPort: 18600}, "fd00::12",
			"ib_write_bw -d mlx5_1 -i 2 -x 5 -R -T 106 -s 1048576 -D 10 -q 4 -p 18600 --report_gbits -F fd00::12"},
		{perftest.Options{Test: perftest.WriteLat, GIDIndex: -1}, "10.0.0.1", "ib_write_lat -F 10.0.0.1"},
	} {
		argv, err := perftest.ClientArgs(tc.o, tc.server)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(argv, " "); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
	for _, bad := range []perftest.Options{{Test: "rm"}, {Test: perftest.WriteBW, Device: "mlx5_0;reboot"}, {Test: perftest.WriteBW, ToS: 300}} {
		if _, err := perftest.ServerArgs(bad); err == nil {
			t.Errorf("ServerArgs(%+v) accepted", bad)
		}
	}
	if _, err := perftest.ClientArgs(perftest.Options{Test: perftest.WriteBW}, "10.0.0.1 && reboot"); err == nil {
		t.Error("server address with a shell command accepted")
	}
	argv, err := perftest.WithJSON([]string{"ib_write_bw", "-x", "3", "--tclass=106", "10.0.1.12"}, "/tmp/rocefab-perftest-1.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(argv) != 3 || !strings.Contains(argv[2], "--out_json --out_json_file=/tmp/rocefab-perftest-1.json; rc=$?; echo '"+perftest.JSONMarker+"'") {
		t.Errorf("WithJSON = %q", argv)
	}
}
