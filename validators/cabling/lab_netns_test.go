package cabling

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/netnstest"
)

// TestLabCabling brings examples/lab up with up.sh, as a user does, with
// lldpd in every namespace, reads every node's neighbours through its
// lldpcli socket and checks them against the lab's intent: as built every
// link is verified; in the swapped-cables variant h1's and h2's links are
// miscabled, each naming both ends, and every other link is verified.
func TestLabCabling(t *testing.T) {
	netnstest.Require(t)
	for _, tool := range []string{"bash", "ip", "awk", "sed", "setsid", "seq", "sysctl", "lldpd", "lldpcli"} {
		netnstest.RequireTool(t, tool)
	}
	fab, diags := intent.LoadBytes("fabric.yaml", lab.Intent)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	known := Known(res)
	swapped := map[string]string{
		"h1:eth0 – leaf1:swp1": "h1 eth0 reaches leaf1 swp2; the intent says leaf1 swp1. leaf1 swp1 reaches h2 eth0; the intent says h1 eth0",
		"h2:eth0 – leaf1:swp2": "h2 eth0 reaches leaf1 swp1; the intent says leaf1 swp2. leaf1 swp2 reaches h1 eth0; the intent says h2 eth0",
	}
	for _, variant := range []string{"", "swapped-cables"} {
		t.Run("variant="+variant, func(t *testing.T) {
			prefix := fmt.Sprintf("rf21%04d-", os.Getpid()%10000)
			lldpDir := filepath.Join("/run", prefix+"lldpd")
			env := append(os.Environ(), "RFLAB_PREFIX="+prefix, "RFLAB_VARIANT="+variant,
				"RFLAB_LOG_DIR="+t.TempDir(), "RFLAB_LLDP_DIR="+lldpDir, "ROCEFAB_BIN=")
			script := func(name string) (string, error) {
				cmd := exec.Command("bash", filepath.Join("..", "..", "examples", "lab", name))
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			t.Cleanup(func() {
				if out, err := script("down.sh"); err != nil {
					t.Errorf("down.sh: %v\n%s", err, out)
				}
			})
			if out, err := script("up.sh"); err != nil || !strings.Contains(out, "lldpd: runs in every namespace") {
				t.Fatalf("up.sh: %v\n%s", err, out)
			}
			var obs Observed
			deadline := time.Now().Add(45 * time.Second)
			for {
				obs = Observed{Read: known}
				for _, name := range known {
					out, err := exec.Command("ip", "netns", "exec", prefix+name, "lldpcli", "-u",
						filepath.Join(lldpDir, name+".sock"), "-f", "json", "show", "neighbors").Output()
					if err != nil {
						t.Fatalf("lldpcli in %s%s: %v", prefix, name, err)
					}
					nbs, err := ParseLLDPCLI(name, out)
					if err != nil {
						t.Fatalf("%s: %v\n%s", name, err, out)
					}
					obs.Neighbors = append(obs.Neighbors, nbs...)
				}
				if named(obs.Neighbors, known) >= 2*len(res.Links) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("not every link end heard its neighbour by name within 45s: %+v", obs.Neighbors)
				}
				time.Sleep(500 * time.Millisecond)
			}
			rep := Classify(res.Links, known, obs)
			var b strings.Builder
			_ = rep.WriteText(&b)
			if len(rep.Findings) != len(res.Links) {
				t.Errorf("%d findings for %d links:\n%s", len(rep.Findings), len(res.Links), b.String())
			}
			for _, f := range rep.Findings {
				want, msg := Verified, ""
				if m, ok := swapped[f.Link]; ok && variant == "swapped-cables" {
					want, msg = Miscabled, m
				}
				if f.Status != want || msg != "" && f.Message != msg {
					t.Errorf("%s: %s %q, want %s %q", f.Link, f.Status, f.Message, want, msg)
				}
			}
			if t.Failed() {
				t.Logf("report:\n%s", b.String())
			}
		})
	}
}
