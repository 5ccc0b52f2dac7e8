package netnstest

import (
	"os/exec"
	"strings"
	"testing"
)

func TestLineForwardsAndCleansUp(t *testing.T) {
	var names []string
	t.Run("build", func(t *testing.T) {
		l := NewLine(t, LineOptions{MTUB: 1500})
		names = []string{l.A.Name, l.Router.Name, l.B.Name}
		if out := l.B.Run("ip", "link", "show", "eth0"); !strings.Contains(out, "mtu 1500") {
			t.Fatalf("B's link should have MTU 1500: %s", out)
		}
		// A 2000-byte DF ping must fail on the 1500 hop: proves per-hop MTU.
		if _, err := l.A.Try("ping", "-c1", "-W1", "-M", "do", "-s", "2000", l.BAddr.String()); err == nil {
			t.Fatal("a DF ping larger than the 1500 hop succeeded")
		}
	})
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, n := range names {
		if strings.Contains(string(out), n) {
			t.Errorf("namespace %s leaked", n)
		}
	}
}
