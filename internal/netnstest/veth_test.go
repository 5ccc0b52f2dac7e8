package netnstest

import (
	"fmt"
	"os/exec"
	"testing"
)

// TestVethNeedsNoRootNamespaceNames: test binaries run in parallel (go test
// ./...), so a name in the shared root namespace may already be taken by
// another process. Links named like the helper's old temporary names exist
// first here; Veth must still succeed.
func TestVethNeedsNoRootNamespaceNames(t *testing.T) {
	Require(t)
	a, b := New(t, "ra"), New(t, "rb")
	// The next numbers this process will use, as another process would.
	next := seq.Load() + 1
	for i, n := range []string{fmt.Sprintf("rfa%d", next), fmt.Sprintf("rfb%d", next+1)} {
		peer := fmt.Sprintf("rvw%d-%d", next, i)
		if out, err := exec.Command("ip", "link", "add", n, "type", "veth", "peer", "name", peer).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", n, err, out)
		}
		t.Cleanup(func() { _ = exec.Command("ip", "link", "del", n).Run() })
	}
	// Veth calls t.Fatal through run() on failure; run it in a subtest so
	// the outcome is reported.
	ok := t.Run("veth", func(t *testing.T) { Veth(t, a, "eth0", b, "eth0", 1500) })
	if !ok {
		t.Errorf("Veth failed because another process held rfa%d/rfb%d in the root namespace: temp names are not unique across processes", next, next+1)
	}
}
