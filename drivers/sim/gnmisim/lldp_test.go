package gnmisim_test

import (
	"context"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/sonic"
	"github.com/rocefab/rocefab/validators/cabling"
)

// TestSONiCServesLLDPFromAPPLDB: the SONiC personality serves the
// LLDP_ENTRY_TABLE a test wrote to APPL_DB over the DbClient, as
// sonic-gnmi does; rocefab's SONiC parser reads the answer and the cabling
// check finds two swapped host cables.
func TestSONiCServesLLDPFromAPPLDB(t *testing.T) {
	sim, c := client(t, gnmisim.Options{Personality: gnmisim.SONiC})
	h3, h4 := intent.Endpoint{Device: "gpu03", Port: "ens1f0"}, intent.Endpoint{Device: "gpu04", Port: "ens1f0"}
	links := []intent.Link{
		{A: h3, B: intent.Endpoint{Device: "leaf1", Port: "Ethernet24"}, HostEnd: &h3, SwitchEnd: intent.Endpoint{Device: "leaf1", Port: "Ethernet24"}},
		{A: h4, B: intent.Endpoint{Device: "leaf1", Port: "Ethernet28"}, HostEnd: &h4, SwitchEnd: intent.Endpoint{Device: "leaf1", Port: "Ethernet28"}},
	}
	entry := func(sys string) map[string]string {
		return map[string]string{"lldp_rem_sys_name": sys, "lldp_rem_port_id": "02:00:00:00:00:01", "lldp_rem_port_desc": "ens1f0", "lldp_rem_port_id_subtype": "3"}
	}
	get := func() (*gnmipb.GetResponse, error) {
		return c.Get(context.Background(), &gnmipb.GetRequest{Type: gnmipb.GetRequest_ALL, Encoding: gnmipb.Encoding_JSON_IETF,
			Prefix: &gnmipb.Path{Target: "APPL_DB"}, Path: []*gnmipb.Path{gnmipath.MustParse("/LLDP_ENTRY_TABLE")}})
	}
	if _, err := get(); status.Code(err) != codes.NotFound {
		t.Fatalf("no LLDP_ENTRY_TABLE yet: %v, want NotFound", err)
	}
	for _, v := range []struct {
		name    string
		entries map[string]map[string]string
		want    cabling.Status
	}{
		{"as cabled", map[string]map[string]string{"Ethernet24": entry("gpu03"), "Ethernet28": entry("gpu04")}, cabling.Verified},
		{"swapped", map[string]map[string]string{"Ethernet24": entry("gpu04"), "Ethernet28": entry("gpu03")}, cabling.Miscabled},
	} {
		sim.SetAPPLDB("LLDP_ENTRY_TABLE", v.entries)
		resp, err := get()
		if err != nil {
			t.Fatal(err)
		}
		raw := resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()
		nbs, err := sonic.ParseLLDP("leaf1", raw)
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
