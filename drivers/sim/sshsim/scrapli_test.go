package sshsim

import (
	"strings"
	"testing"
	"time"

	"github.com/scrapli/scrapligo/driver/network"
	"github.com/scrapli/scrapligo/driver/options"
	"github.com/scrapli/scrapligo/platform"
	"github.com/scrapli/scrapligo/transport"
)

// openScrapli connects with scrapligo's own embedded platform definition,
// proving the simulator's prompts and modes satisfy it.
func openScrapli(t *testing.T, sim *Sim, name string) *network.Driver {
	t.Helper()
	host, port := splitHostPort(t, sim.Addr())
	p, err := platform.NewPlatform(name, host,
		options.WithPort(port),
		options.WithAuthUsername("admin"),
		options.WithAuthPassword("secret"),
		options.WithAuthNoStrictKey(),
		options.WithTransportType(transport.StandardTransport),
		options.WithTimeoutOps(5*time.Second),
	)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.GetNetworkDriver()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Open(); err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func TestScrapliPlatformsAcceptSimulator(t *testing.T) {
	cases := []struct {
		personality Personality
		platform    string
		configs     []string
		want        string
	}{
		{NXOS, "cisco_nxos", []string{"interface Ethernet1/2", "mtu 9216", "policy-map type queuing Q", "class type queuing c-out-8q-q3", "bandwidth remaining percent 50", "exit", "exit", "system qos", "service-policy type queuing output Q", "exit"}, "interface Ethernet1/2\n  mtu 9216\n  no shutdown\n"},
		{EOS, "arista_eos", []string{"qos profile ROCE", "uc-tx-queue 3", "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100 weight 0"}, "   uc-tx-queue 3\n      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100\n"},
		{Junos, "juniper_junos", []string{"set interfaces et-0/0/2 mtu 9216", "commit"}, "set interfaces et-0/0/2 mtu 9216"},
	}
	for _, tc := range cases {
		t.Run(string(tc.personality), func(t *testing.T) {
			sim := startSim(t, Options{Personality: tc.personality, Hostname: "leaf1"})
			d := openScrapli(t, sim, tc.platform)
			m, err := d.SendConfigs(tc.configs)
			if err != nil {
				t.Fatal(err)
			}
			if m.Failed != nil {
				t.Fatalf("config failed: %v", m.Failed)
			}
			show := "show running-config"
			if tc.personality == Junos {
				show = "show configuration | display set"
			}
			r, err := d.SendCommand(show)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Result, tc.want) {
				t.Fatalf("running config lacks %q:\n%s", tc.want, r.Result)
			}
			bad, err := d.SendConfig("interfce Ethernet1")
			if tc.personality == Junos {
				bad, err = d.SendConfig("set interfce et-0/0/1")
			}
			if err != nil {
				t.Fatal(err)
			}
			if bad.Failed == nil {
				t.Fatalf("a misspelt command was accepted: %q", bad.Result)
			}
		})
	}
}

// TestScrapliCumulusShell: scrapligo's cumulus_linux definition finds the
// NVUE shell prompt and flags unknown commands.
func TestScrapliCumulusShell(t *testing.T) {
	sim := startSim(t, Options{Personality: Cumulus, Hostname: "leaf1", Ports: 2})
	d := openScrapli(t, sim, "cumulus_linux")
	for _, cmd := range []string{"nv set interface swp1 link mtu 9216", "nv config apply -y"} {
		r, err := d.SendCommand(cmd)
		if err != nil || r.Failed != nil {
			t.Fatalf("%s: %v %v", cmd, err, r.Failed)
		}
	}
	r, err := d.SendCommand("nv config show -o json")
	if err != nil || !strings.Contains(r.Result, `"mtu": 9216`) {
		t.Fatalf("show: %v %q", err, r.Result)
	}
	bad, err := d.SendCommand("nvv set x")
	if err != nil || bad.Failed == nil {
		t.Fatalf("an unknown command was not flagged: %v %q", err, bad.Result)
	}
}
