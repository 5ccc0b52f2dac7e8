package daemon

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/internal/secret"
)

func TestLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr  string
		local bool
	}{
		{"127.0.0.1:9490", true}, {"localhost:1", true}, {"[::1]:1", true}, {"127.1.2.3:1", true},
		{":9490", false}, {"0.0.0.0:1", false}, {"[::]:1", false}, {"10.0.0.1:1", false}, {"agent.example.com:1", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			got, err := Loopback(tc.addr)
			if err != nil || got != tc.local {
				t.Fatalf("Loopback(%q) = %v, %v", tc.addr, got, err)
			}
		})
	}
}

// TestBearerToken: beyond localhost the agent refuses to start without a
// token, and with one it refuses requests without it or with a wrong one.
// /healthz and /readyz never need it (kubelet probes), and tell nothing.
func TestBearerToken(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	cfg := f.config()
	cfg.HTTP.Listen = "0.0.0.0:0"
	if _, err := New(cfg, f.deps()); !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "0.0.0.0:0") {
		t.Fatalf("no token beyond localhost: %v", err)
	}
	const token = "s3cr3t-agent-token"
	cfg.HTTP.Token = token
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	for _, tc := range []struct {
		path, token string
		want        int
	}{
		{"/metrics", "", http.StatusUnauthorized},
		{"/metrics", "wrong", http.StatusUnauthorized},
		{"/metrics", token + "x", http.StatusUnauthorized},
		{"/metrics", token, http.StatusOK},
		{"/api/v1/status", "", http.StatusUnauthorized},
		{"/api/v1/status", token, http.StatusOK},
		{"/api/v1/runs", "", http.StatusUnauthorized},
		{"/api/v1/runs", token, http.StatusOK},
		{"/api/v1/runs/nope", token, http.StatusNotFound},
		{"/healthz", "", http.StatusOK},
		{"/readyz", "", http.StatusOK},
	} {
		t.Run(tc.path+" "+tc.token, func(t *testing.T) {
			code, body := a.get(tc.path, tc.token)
			if code != tc.want {
				t.Fatalf("%s with %q: %d %s", tc.path, tc.token, code, body)
			}
			if strings.Contains(body, token) {
				t.Fatal("the token is in a response")
			}
		})
	}
	// A manual run needs the token too.
	req, _ := http.NewRequest(http.MethodPost, a.base+"/api/v1/runs?kind=drift", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without a token: %s", resp.Status)
	}
}

// TestAPI: paging, filters, manual runs and errors.
func TestAPI(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	a := f.start(f.config(), f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)

	req, _ := http.NewRequest(http.MethodPost, a.base+"/api/v1/runs?kind=drift", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST drift: %s", resp.Status)
	}
	a.waitRun(history.KindDrift, history.TriggerManual, c1)
	for _, tc := range []struct {
		path string
		want int
		has  string
	}{
		{"/api/v1/runs?limit=1", 200, `"next"`},
		{"/api/v1/runs?kind=reload", 200, `"kind": "reload"`},
		{"/api/v1/runs?kind=bogus", 400, "kind must be"},
		{"/api/v1/runs?limit=0", 400, "limit"},
		{"/api/v1/runs?before=nope", 400, "before"},
		{"/api/v1/status", 200, `"commit": "` + c1},
	} {
		t.Run(tc.path, func(t *testing.T) {
			code, body := a.get(tc.path, "")
			if code != tc.want || !strings.Contains(body, tc.has) {
				t.Fatalf("%s: %d %s", tc.path, code, body)
			}
		})
	}
	for _, kind := range []string{"apply", "reload", ""} {
		req, _ := http.NewRequest(http.MethodPost, a.base+"/api/v1/runs?kind="+kind, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("POST kind=%q: %s", kind, resp.Status)
		}
	}
}

// TestWeakTokenRefused: a token of one space (or any weak one) does not
// let the agent bind 0.0.0.0, nor loopback.
func TestWeakTokenRefused(t *testing.T) {
	f := newFixture(t, 1)
	f.commit("first", f.intent("150KB", "9216"))
	for _, listen := range []string{"0.0.0.0:0", "127.0.0.1:0"} {
		for _, tok := range []string{" ", "\t", "short-token", "zzzzzzzzzzzzzzzzzzzzzzzz"} {
			cfg := f.config()
			cfg.HTTP.Listen, cfg.HTTP.Token = listen, tok
			a, err := New(cfg, f.deps())
			if err == nil {
				a.Close()
				t.Fatalf("%s with token %q: started", listen, tok)
			}
			if !errors.Is(err, ErrWeakToken) || !errors.Is(err, ErrConfig) || !errors.Is(err, secret.ErrWeak) {
				t.Fatalf("%s with token %q: %v", listen, tok, err)
			}
		}
	}
}

// TestIdleConnectionsClosed: the server closes a keep-alive connection
// that stays idle past IdleTimeout, and one that never finishes its
// headers past ReadHeaderTimeout (a slow client cannot hold it forever).
func TestIdleConnectionsClosed(t *testing.T) {
	f := newFixture(t, 1)
	f.commit("first", f.intent("150KB", "9216"))
	cfg := f.config()
	cfg.HTTP.IdleTimeout, cfg.HTTP.ReadHeaderTimeout = 200*time.Millisecond, 200*time.Millisecond
	a := f.start(cfg, f.deps())

	// closed reads r (c's data) until the server closes c; the deadline
	// only keeps a broken server from hanging the test.
	closed := func(r io.Reader, c net.Conn) error {
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		_, err := io.Copy(io.Discard, r)
		if err != nil {
			return err // a deadline: never closed
		}
		return nil // EOF: closed by the server
	}

	c, err := net.Dial("tcp", a.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := 0; i < 2; i++ { // the connection is kept alive between requests
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: agent\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("request %d: %s, close %v", i, resp.Status, resp.Close)
		}
	}
	if err := closed(br, c); err != nil {
		t.Fatalf("an idle keep-alive connection was not closed: %v", err)
	}

	slow, err := net.Dial("tcp", a.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "GET /healthz HTTP/1.1\r\nHost: agent\r\n"); err != nil { // never ends the headers
		t.Fatal(err)
	}
	if err := closed(slow, slow); err != nil {
		t.Fatalf("a connection that never finished its headers was not closed: %v", err)
	}
}
