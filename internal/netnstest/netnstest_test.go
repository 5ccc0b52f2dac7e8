package netnstest

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestLineForwardsAndCleansUp(t *testing.T) {
	var names []string
	t.Run("build", func(t *testing.T) {
		l := NewLine(t, LineOptions{MTUB: 1500})
		names = []string{l.A.Name, l.Router.Name, l.B.Name}
		if out := l.B.Run("ip", "link", "show", "eth0"); !strings.Contains(out, "mtu 1500") {
			t.Fatalf("B's link should have MTU 1500: %s", out)
		}
		// A 1500-byte DF ping crosses; a 2000-byte one must not: proves
		// per-hop MTU (and that Ping can tell the two apart).
		if err := l.A.Ping(l.BAddr, PingOptions{Size: 1500, DontFragment: true}); err != nil {
			t.Fatalf("a 1500-byte DF ping across the 1500 hop: %v", err)
		}
		for _, dst := range []netip.Addr{l.BAddr, l.BAddr6} {
			err := l.A.Ping(dst, PingOptions{Size: 2000, DontFragment: true})
			if !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "1500") {
				t.Fatalf("a 2000-byte DF ping to %s across the 1500 hop: %v, want ErrTooBig naming MTU 1500", dst, err)
			}
		}
		if err := l.A.Ping(netip.MustParseAddr("198.51.100.77"), PingOptions{Timeout: 300 * time.Millisecond}); !errors.Is(err, ErrNoEchoReply) {
			t.Fatalf("ping to an address nobody holds: %v", err)
		}
	})
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, n := range names {
		if strings.Contains(string(out), n) {
			t.Errorf("namespace %s leaked", n)
		}
	}
}

// recordTB records what RequireTool does instead of stopping the test.
type recordTB struct {
	testing.TB
	skipped, failed string
}

func (r *recordTB) Helper()                   {}
func (r *recordTB) Skipf(f string, a ...any)  { r.skipped = fmt.Sprintf(f, a...) }
func (r *recordTB) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...) }

func TestRequireToolNamesTheMissingTool(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		strict, tool string
		skip, fail   bool
	}{
		{"", "rocefab-no-such-tool", true, false},
		{"1", "rocefab-no-such-tool", false, true},
		{"1", self, false, false},
		{"", self, false, false},
	} {
		t.Setenv("ROCEFAB_REQUIRE_NETNS", tc.strict)
		r := &recordTB{TB: t}
		RequireTool(r, tc.tool)
		if (r.skipped != "") != tc.skip || (r.failed != "") != tc.fail {
			t.Errorf("ROCEFAB_REQUIRE_NETNS=%q %s: skipped %q failed %q", tc.strict, tc.tool, r.skipped, r.failed)
		}
		if msg := r.skipped + r.failed; msg != "" && !strings.Contains(msg, tc.tool) {
			t.Errorf("the message %q does not name %s", msg, tc.tool)
		}
	}
}
