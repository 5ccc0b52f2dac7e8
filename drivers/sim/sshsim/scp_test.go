package sshsim

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	scp "github.com/bramvdbogaerde/go-scp"
	gossh "golang.org/x/crypto/ssh"
)

// copyTo copies data to path on the simulator with go-scp, as the driver
// does.
func copyTo(t *testing.T, sim *Sim, path string, data []byte) error {
	t.Helper()
	cfg := &gossh.ClientConfig{User: "admin", Auth: []gossh.AuthMethod{gossh.Password("secret")}, HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}
	client, err := gossh.Dial("tcp", sim.Addr(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	c, err := scp.NewClientBySSH(client)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return c.CopyPassThru(ctx, bytes.NewReader(data), path, "0644", int64(len(data)), nil)
}

// TestNXOSConfigureReplaceWithACopiedFile: with `feature scp-server` a file
// copied over SCP lands on bootflash:, and `configure replace` with it
// makes the running configuration what the file says, under the commit
// timer until `configure replace commit`. A file with a line the switch
// refuses fails the replace and leaves the configuration as it was;
// without scp-server the copy is refused.
func TestNXOSConfigureReplaceWithACopiedFile(t *testing.T) {
	sim := startSim(t, Options{Personality: NXOS, Ports: 2})
	c := newConsole(t, sim)
	before := sim.Config()
	c.do("terminal width 511")
	want := strings.Replace(c.do("show running-config"), "interface Ethernet1/1\n", "interface Ethernet1/1\n  mtu 9216\n", 1)
	if err := copyTo(t, sim, "bootflash:new.cfg", []byte(want)); err != nil {
		t.Fatalf("copy: %v", err)
	}
	if !strings.Contains(c.do("dir bootflash:"), "new.cfg") {
		t.Fatal("the copied file is not on bootflash:")
	}
	if out := c.do("configure replace bootflash:new.cfg commit-timeout 60"); !strings.Contains(out, "completed successfully") {
		t.Fatalf("replace: %q", out)
	}
	if got := sim.Config(); got == before || !strings.Contains(got, "interface Ethernet1/1\n  mtu 9216\n") {
		t.Fatalf("the replace did not take the file:\n%s", got)
	}
	replaced := sim.Config()
	if out := c.do("configure replace commit"); !strings.Contains(out, "successful") {
		t.Fatalf("commit: %q", out)
	}
	c.do("delete bootflash:new.cfg no-prompt")

	bad := want + "interface Ethernet1/2\n  frobnicate 7\n"
	if err := copyTo(t, sim, "bootflash:bad.cfg", []byte(bad)); err != nil {
		t.Fatal(err)
	}
	if out := c.do("configure replace bootflash:bad.cfg"); !strings.Contains(out, "ERROR: Configure replace failed") || !strings.Contains(out, "frobnicate 7") {
		t.Fatalf("a refused line: %q", out)
	}
	if sim.Config() != replaced {
		t.Fatal("a failed replace changed the configuration")
	}
	c.do("delete bootflash:bad.cfg no-prompt")

	c.do("configure terminal", "no feature scp-server", "end")
	// go-scp reports the refusal or the closed channel, whichever it
	// reads first; either way nothing lands.
	if err := copyTo(t, sim, "bootflash:late.cfg", []byte(want)); err == nil {
		t.Fatal("a copy without scp-server succeeded")
	}
	if strings.Contains(c.do("dir bootflash:"), "late.cfg") {
		t.Fatal("a refused copy landed on bootflash:")
	}
	if left := sim.Leftovers(); len(left) > 0 {
		t.Fatalf("left: %v", left)
	}
}
