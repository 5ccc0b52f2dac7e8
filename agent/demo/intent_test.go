package demo

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/internal/golden"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

// fixedParams fill the template the same way on every run, for golden files.
func fixedParams() intentParams {
	return intentParams{
		CABundle: "/tmp/rocefab-demo-1/ca.pem", KnownHosts: "/tmp/rocefab-demo-1/known_hosts",
		Username: simUsername, PasswordEnv: simPasswordEnv, PasswordFile: "/tmp/rocefab-demo-1/switch.password",
		Addr: map[string]string{"nxos": "127.0.0.1:40001", "eos": "127.0.0.1:40002", "sonic": "127.0.0.1:40003", "openconfig": "127.0.0.1:40004"},
	}
}

// The embedded intent renders to a clean intent in both modes: no error and
// no warning from `rocefab validate`, with the hosts cabled to RoCE ports.
func TestEmbeddedIntentIsValid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		set   func(*intentParams)
		hosts map[string]string // host -> switch it hangs off
	}{
		{"netns", func(p *intentParams) {
			p.Netns = &netnsParams{Router: "rfdemo-1-abc-sw", Host1: "rfdemo-1-abc-h1", Host2: "rfdemo-1-abc-h2",
				Host1Addr: host1Prefix.Addr(), Host2Addr: host2Prefix.Addr()}
		}, map[string]string{"gpu01": "leaf-linux", "gpu02": "leaf-linux"}},
		{"loopback", func(p *intentParams) {
			p.Loopback = &loopbackParams{Host1Addr: loopbackHost1, Host2Addr: loopbackHost2}
		}, map[string]string{"gpu01": "leaf-nxos", "gpu02": "leaf-eos"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fixedParams()
			tc.set(&p)
			data, err := renderIntent(p)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "intent-"+tc.name+".golden.yaml"), data)
			res, diags := lint.ValidateBytes(all.Renderers(), "fabric.yaml", data)
			if len(diags) != 0 || res == nil {
				t.Fatalf("rendered intent is not clean:\n%v", diags)
			}
			if len(res.Hosts) != 2 {
				t.Fatalf("%d hosts, want 2", len(res.Hosts))
			}
			links := map[string]string{}
			for _, l := range res.HostLinks() {
				links[l.HostEnd.Device] = l.SwitchEnd.Device
			}
			for h, sw := range tc.hosts {
				if links[h] != sw {
					t.Errorf("host %s is cabled to %q, want %s", h, links[h], sw)
				}
			}
			if strings.Contains(string(data), "<no value>") {
				t.Error("a template field was left empty")
			}
		})
	}
}

func TestEmbeddedIntentNeedsAMode(t *testing.T) {
	if _, err := renderIntent(fixedParams()); err == nil {
		t.Fatal("rendering without netns or loopback hosts should fail")
	}
}
