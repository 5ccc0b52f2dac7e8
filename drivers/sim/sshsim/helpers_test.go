package sshsim

import (
	"net"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"
)

func startSim(t testing.TB, opt Options) *Sim {
	t.Helper()
	if opt.Username == "" {
		opt.Username, opt.Password = "admin", "secret"
	}
	sim, err := Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	return sim
}

func splitHostPort(t testing.TB, addr string) (string, int) {
	t.Helper()
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return host, port
}

func timeZero() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }

func nopLogger() *zap.Logger { return zap.NewNop() }
