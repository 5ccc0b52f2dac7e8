// Package githttptest serves a repository over git's smart HTTP protocol
// with git's own server (git http-backend, as CGI) behind basic auth, so
// tests can follow a repository at an https-like URL that carries a
// password, the way users write one.
package githttptest

import (
	"crypto/subtle"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Server is a running git HTTP server.
type Server struct {
	// URL is the repository's URL with the user and password in it.
	URL string
	// Plain is the same URL without them.
	Plain string
	// Authorized counts requests that carried the right credentials;
	// Refused those that did not.
	Authorized, Refused atomic.Int32
}

// Serve serves the repository whose work tree is dir (its .git folder is
// what is served), requiring user and password on every request. It skips
// the test when git is not installed, and fails instead when
// ROCEFAB_REQUIRE_NETNS=1 (CI) is set.
func Serve(t testing.TB, dir, user, password string) *Server {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatalf("git is required (ROCEFAB_REQUIRE_NETNS=1): %v", err)
		}
		t.Skipf("git is not installed: %v", err)
	}
	s := &Server{}
	backend := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Clean(dir), "GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*"},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(u), []byte(user)) != 1 || subtle.ConstantTimeCompare([]byte(p), []byte(password)) != 1 {
			s.Refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		s.Authorized.Add(1)
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	u := url.URL{Scheme: "http", Host: strings.TrimPrefix(srv.URL, "http://"), Path: "/.git"}
	s.Plain = u.String()
	u.User = url.UserPassword(user, password)
	s.URL = u.String()
	return s
}
