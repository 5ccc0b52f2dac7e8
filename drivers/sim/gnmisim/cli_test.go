package gnmisim_test

import (
	"context"
	"strings"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

func cliUpdate(text string) *gnmipb.Update {
	return &gnmipb.Update{Path: &gnmipb.Path{Origin: "cli"}, Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_AsciiVal{AsciiVal: text}}}
}

// TestCLIOrigin: origin cli takes CLI text as ascii_val at the empty path
// and has no delete (openconfig/reference rpc/gnmi/gnmi-union_replace.md;
// featureprofiles' cliSetRequest for EOS); "no" lines unconfigure, a
// single-valued command's new value replaces its old one, and "no <mode>"
// removes the mode with everything in it.
func TestCLIOrigin(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  *gnmipb.SetRequest
		code codes.Code
	}{
		{"json value", &gnmipb.SetRequest{Update: []*gnmipb.Update{{Path: &gnmipb.Path{Origin: "cli"}, Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`"interface Ethernet1"`)}}}}}, codes.InvalidArgument},
		{"addressed path", &gnmipb.SetRequest{Update: []*gnmipb.Update{{Path: gnmipath.MustParse("cli:/interface Ethernet1"), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_AsciiVal{AsciiVal: "mtu 9214"}}}}}, codes.InvalidArgument},
		{"delete", &gnmipb.SetRequest{Delete: []*gnmipb.Path{gnmipath.MustParse("cli:/interface Ethernet1 > priority-flow-control on")}}, codes.InvalidArgument},
		{"replace", &gnmipb.SetRequest{Replace: []*gnmipb.Update{cliUpdate("interface Ethernet1\n")}}, codes.Unimplemented},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := client(t, gnmisim.Options{})
			if _, err := c.Set(ctx, tc.req); status.Code(err) != tc.code {
				t.Errorf("Set = %v, want %v", err, tc.code)
			}
		})
	}

	sim, c := client(t, gnmisim.Options{})
	steps := []struct {
		text string
		want devcfg.Paths
	}{
		{"interface Ethernet1\n   priority-flow-control on\n   priority-flow-control pause watchdog port timer timeout 1 polling-interval 0.1 recovery-time 2\n" +
			"policy-map type network-qos NQ\n  class type network-qos c1\n    pause pfc-cos 3\n    mtu 9216\n",
			devcfg.Paths{
				"cli:/interface Ethernet1 > priority-flow-control on":                               devcfg.String("interface Ethernet1\n   priority-flow-control on"),
				"cli:/interface Ethernet1 > priority-flow-control pause watchdog port timer":        devcfg.String("interface Ethernet1\n   priority-flow-control pause watchdog port timer timeout 1 polling-interval 0.1 recovery-time 2"),
				"cli:/policy-map type network-qos NQ > class type network-qos c1 > pause pfc-cos 3": devcfg.String("policy-map type network-qos NQ\n  class type network-qos c1\n    pause pfc-cos 3"),
				"cli:/policy-map type network-qos NQ > class type network-qos c1 > mtu":             devcfg.String("policy-map type network-qos NQ\n  class type network-qos c1\n    mtu 9216"),
			}},
		{"interface Ethernet1\n   priority-flow-control pause watchdog port timer timeout 0.5 polling-interval 0.1 recovery-time 1\n   no priority-flow-control on\nno policy-map type network-qos NQ\n",
			devcfg.Paths{
				"cli:/interface Ethernet1 > priority-flow-control pause watchdog port timer": devcfg.String("interface Ethernet1\n   priority-flow-control pause watchdog port timer timeout 0.5 polling-interval 0.1 recovery-time 1"),
			}},
	}
	for i, s := range steps {
		if _, err := c.Set(ctx, &gnmipb.SetRequest{Update: []*gnmipb.Update{cliUpdate(s.text)}}); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got := devcfg.Paths{}
		for k, v := range sim.Leaves() {
			if strings.HasPrefix(k, "cli:") {
				got[k] = v
			}
		}
		if got.Text() != s.want.Text() {
			t.Errorf("step %d: cli leaves\n%s\nwant\n%s", i, got.Text(), s.want.Text())
		}
	}
}
