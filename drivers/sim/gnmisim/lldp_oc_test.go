package gnmisim_test

import (
	"context"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/cabling"
)

// TestOpenConfigLLDPParsedAndMiscablingFound: a Get of /lldp answers the
// openconfig-lldp neighbour state a test loaded; ParseOpenConfig reads the
// JSON_IETF value and the cabling check finds two swapped host cables.
func TestOpenConfigLLDPParsedAndMiscablingFound(t *testing.T) {
	sim, c := client(t, gnmisim.Options{})
	h3, h4 := intent.Endpoint{Device: "gpu03", Port: "ens1f0"}, intent.Endpoint{Device: "gpu04", Port: "ens1f0"}
	sw := func(p string) intent.Endpoint { return intent.Endpoint{Device: "leaf1", Port: p} }
	links := []intent.Link{
		{A: h3, B: sw("Ethernet7"), HostEnd: &h3, SwitchEnd: sw("Ethernet7")},
		{A: h4, B: sw("Ethernet8"), HostEnd: &h4, SwitchEnd: sw("Ethernet8")},
	}
	neighbours := func(on7, on8 string) devcfg.Paths {
		out := devcfg.Paths{}
		for port, sys := range map[string]string{"Ethernet7": on7, "Ethernet8": on8} {
			base := "/lldp/interfaces/interface[name=" + port + "]/neighbors/neighbor[id=" + sys + "]/state/"
			out[base+"system-name"] = devcfg.String(sys)
			out[base+"port-id"] = devcfg.String("02:00:00:00:00:01")
			out[base+"port-description"] = devcfg.String("ens1f0")
		}
		return out
	}
	for _, v := range []struct {
		name     string
		on7, on8 string
		want     cabling.Status
	}{
		{"as cabled", "gpu03", "gpu04", cabling.Verified},
		{"swapped", "gpu04", "gpu03", cabling.Miscabled},
	} {
		if err := sim.Load(neighbours(v.on7, v.on8)); err != nil {
			t.Fatal(err)
		}
		resp, err := c.Get(context.Background(), &gnmipb.GetRequest{Path: []*gnmipb.Path{gnmipath.MustParse("/lldp")}, Encoding: gnmipb.Encoding_JSON_IETF})
		if err != nil {
			t.Fatal(err)
		}
		raw := resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()
		nbs, err := cabling.ParseOpenConfig("leaf1", raw)
		if err != nil || len(nbs) != 2 {
			t.Fatalf("%s: parsed %v (%v) from %s", v.name, nbs, err, raw)
		}
		rep := cabling.Classify(links, []string{"leaf1", "gpu03", "gpu04"}, cabling.Observed{Read: []string{"leaf1"}, Neighbors: nbs})
		for _, l := range links {
			if got := rep.Status(l); got != v.want {
				t.Errorf("%s: %s is %s, want %s", v.name, cabling.LinkName(l), got, v.want)
			}
		}
	}
}
