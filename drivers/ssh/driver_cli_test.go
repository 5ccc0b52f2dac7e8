package ssh

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nxos"
)

func TestPushAndFetchCLI(t *testing.T) {
	cases := []struct {
		personality sshsim.Personality
		platform    devcfg.Platform
		lines       []string
		want        string
	}{
		{sshsim.NXOS, treePlatform("nxos", "cisco_nxos", nxos.Dialect),
			[]string{"interface Ethernet1/2", "mtu 9216", "priority-flow-control mode on", "exit"},
			"interface Ethernet1/2\n  mtu 9216\n  priority-flow-control mode on\n"},
		{sshsim.EOS, treePlatform("eos", "arista_eos", eos.Dialect),
			[]string{"interface Ethernet2", "mtu 9214", "exit"},
			"interface Ethernet2\n  mtu 9214\n"},
	}
	for _, tc := range cases {
		t.Run(string(tc.personality), func(t *testing.T) {
			sim, kh := startSim(t, sshsim.Options{Personality: tc.personality})
			d := open(t, testOptions(sim, kh, tc.platform, nil))
			ctx := testCtx(t)
			p, err := d.Push(ctx, devcfg.Patch{Lines: tc.lines}, drivers.PushOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Confirm(ctx); err != nil {
				t.Fatal(err)
			}
			run, err := d.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := run.Config.Text(); !strings.Contains(got, tc.want) {
				t.Fatalf("running config lacks %q:\n%s", tc.want, got)
			}
		})
	}
}
