package doctor_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/validators/doctor"
)

func TestRemoteCheckAll(t *testing.T) {
	var mu sync.Mutex
	var commands []string
	runner := hostcontract.RunnerFunc(func(_ context.Context, host, command string, stdin []byte) (hostcontract.Result, error) {
		mu.Lock()
		commands = append(commands, host+": "+command)
		mu.Unlock()
		if string(stdin) != "intent-bytes" {
			t.Errorf("stdin = %q", stdin)
		}
		switch host {
		case "host1":
			rep := doctor.NewReport("host1")
			rep.Add(doctor.Result{Check: doctor.CheckDevices, Status: doctor.Pass, Message: "1 RDMA device(s): mlx5_0"})
			data, _ := hostcontract.Encode(rep)
			return hostcontract.Result{Stdout: data}, nil
		case "host2":
			rep := doctor.NewReport("host2")
			rep.Add(doctor.Result{Check: doctor.CheckDevices, Status: doctor.Fail, Message: "no RDMA devices found"})
			data, _ := hostcontract.Encode(rep)
			return hostcontract.Result{Stdout: data, ExitCode: 1}, nil
		case "host3":
			return hostcontract.Result{Stderr: []byte("sh: rocefab: not found"), ExitCode: 127}, nil
		default:
			return hostcontract.Result{}, errors.New("dial tcp 10.0.0.4:22: connection refused")
		}
	})
	r := &doctor.Remote{Runner: runner, Intent: []byte("intent-bytes"), Parallel: 2}
	reps := r.CheckAll(context.Background(), []string{"host1", "host2", "host3", "host4"})
	want := []struct {
		verdict doctor.Status
		err     string
	}{{doctor.Pass, ""}, {doctor.Fail, ""}, {doctor.Fail, "rocefab not found"}, {doctor.Fail, "connection refused"}}
	for i, w := range want {
		if reps[i].Verdict != w.verdict || !strings.Contains(reps[i].Error, w.err) || (w.err == "" && reps[i].Error != "") {
			t.Errorf("host%d: verdict %s error %q; want %s %q", i+1, reps[i].Verdict, reps[i].Error, w.verdict, w.err)
		}
	}
	sort.Strings(commands)
	if len(commands) != 4 || !strings.HasSuffix(commands[0], "rocefab doctor --host host1 --intent - --output json") {
		t.Errorf("commands = %q", commands)
	}
}
