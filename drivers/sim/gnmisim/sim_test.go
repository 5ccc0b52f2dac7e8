package gnmisim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/internal/yangdir"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

func client(t *testing.T, opt gnmisim.Options) (*gnmisim.Target, gnmipb.GNMIClient) {
	t.Helper()
	opt.NoAuth, opt.Plaintext = true, true
	sim, err := gnmisim.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Stop)
	conn, err := grpc.NewClient(sim.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return sim, gnmipb.NewGNMIClient(conn)
}

func update(path, js string) *gnmipb.Update {
	return &gnmipb.Update{Path: gnmipath.MustParse(path), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(js)}}}
}

func TestSetIsAllOrNothing(t *testing.T) {
	sim, c := client(t, gnmisim.Options{})
	if err := sim.Load(devcfg.Paths{"/interfaces/interface[name=E1]/config/mtu": "1500"}); err != nil {
		t.Fatal(err)
	}
	before := sim.Tree()
	_, err := c.Set(context.Background(), &gnmipb.SetRequest{
		Delete: []*gnmipb.Path{gnmipath.MustParse("/interfaces")},
		Update: []*gnmipb.Update{update("/interfaces/interface[name=E1]/config/mtu", "9216"),
			update("/interfaces/interface[name=E1]/state/mtu", "1")}, // read-only: fails the whole Set
	})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "/interfaces/interface[name=E1]/state/mtu") {
		t.Fatalf("err = %v", err)
	}
	if sim.Tree() != before {
		t.Fatalf("partial Set applied:\n%s", sim.Tree())
	}
}

func TestGetEncodings(t *testing.T) {
	sim, c := client(t, gnmisim.Options{})
	if err := sim.Load(devcfg.Paths{"/qos/queues/queue[name=Q3]/config/queue-id": "3"}); err != nil {
		t.Fatal(err)
	}
	for enc, want := range map[gnmipb.Encoding]string{
		gnmipb.Encoding_JSON_IETF: `{"openconfig-qos:queues":{"queue":[{"config":{"queue-id":3},"name":"Q3"}]}}`,
		gnmipb.Encoding_JSON:      `{"queues":{"queue":[{"config":{"queue-id":3},"name":"Q3"}]}}`,
	} {
		resp, err := c.Get(context.Background(), &gnmipb.GetRequest{Path: []*gnmipb.Path{gnmipath.MustParse("/qos")}, Encoding: enc, Type: gnmipb.GetRequest_CONFIG})
		if err != nil {
			t.Fatal(err)
		}
		v := resp.GetNotification()[0].GetUpdate()[0].GetVal()
		got := string(v.GetJsonIetfVal()) + string(v.GetJsonVal())
		if got != want {
			t.Errorf("%s: %s, want %s", enc, got, want)
		}
	}
	// A keyless list path returns the entries; a missing path is NotFound.
	resp, err := c.Get(context.Background(), &gnmipb.GetRequest{Path: []*gnmipb.Path{gnmipath.MustParse("/qos/queues/queue")}, Encoding: gnmipb.Encoding_JSON_IETF})
	if err != nil || string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()) != `[{"config":{"queue-id":3},"name":"Q3"}]` {
		t.Errorf("list get: %v %v", resp, err)
	}
	if _, err := c.Get(context.Background(), &gnmipb.GetRequest{Path: []*gnmipb.Path{gnmipath.MustParse("/nothing")}, Encoding: gnmipb.Encoding_JSON_IETF}); status.Code(err) != codes.NotFound {
		t.Errorf("missing path: %v", err)
	}
}

func TestYANGValidation(t *testing.T) {
	_, c := client(t, gnmisim.Options{YANGDir: yangdir.Require(t)})
	wred := "/qos/queue-management-profiles/queue-management-profile[name=ECN]/wred/uniform/config/"
	tests := []struct {
		name, path, value, wantErr string
	}{
		{"uint64 as string", wred + "min-threshold", `"150000"`, ""},
		{"uint64 as number", wred + "min-threshold", `150000`, "RFC 7951"},
		{"uint16 as number", "/interfaces/interface[name=E1]/config/mtu", `9216`, ""},
		{"uint16 as string", "/interfaces/interface[name=E1]/config/mtu", `"9216"`, "JSON number"},
		{"uint16 out of range", "/interfaces/interface[name=E1]/config/mtu", `70000`, "exceeds"},
		{"boolean", wred + "enable-ecn", `true`, ""},
		{"enum", "/interfaces/interface[name=E1]/ethernet/switched-vlan/config/interface-mode", `"TRUNK"`, ""},
		{"bad enum", "/interfaces/interface[name=E1]/ethernet/switched-vlan/config/interface-mode", `"HYBRID"`, "enumeration"},
		{"unknown leaf", "/interfaces/interface[name=E1]/config/pfc", `true`, "no schema node"},
		{"bad key", "/interfaces/interface[id=E1]/config/mtu", `9216`, "no key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Set(context.Background(), &gnmipb.SetRequest{Update: []*gnmipb.Update{update(tt.path, tt.value)}})
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	if _, err := gnmisim.Start(gnmisim.Options{NoAuth: true, Plaintext: true, YANGDir: t.TempDir() + "/absent"}); !errors.Is(err, gnmisim.ErrNoYANG) {
		t.Errorf("absent YANG folder: %v", err)
	}
}

func TestSONiCPersonality(t *testing.T) {
	sim, c := client(t, gnmisim.Options{Personality: gnmisim.SONiC})
	ctx := context.Background()
	_, err := c.Set(ctx, &gnmipb.SetRequest{Prefix: &gnmipb.Path{Origin: gnmisim.OriginSONiC}, Update: []*gnmipb.Update{
		update("/PORT/Ethernet0/speed", `"100000"`),
		update("/PORT_QOS_MAP/Ethernet0/pfc_enable", `"3"`),
		update("/BUFFER_PG/Ethernet0|3/profile", `"NULL"`),
		update("/WRED_PROFILE/ROCEFAB_ECN/ecn", `"ecn_all"`),
	}})
	if err != nil {
		t.Fatal(err)
	}
	l := sim.Leaves()
	for k, v := range map[string]devcfg.Value{
		"sonic-db:/BUFFER_PROFILE/pg_lossless_100000_5m_profile/pool": `"ingress_lossless_pool"`,
		"sonic-db:/BUFFER_PG/Ethernet0|3/profile":                     `"pg_lossless_100000_5m_profile"`,
		"sonic-db:/WRED_PROFILE/ROCEFAB_ECN/wred_yellow_enable":       `"false"`,
		"sonic-db:/WRED_PROFILE/ROCEFAB_ECN/wred_red_enable":          `"false"`,
	} {
		if l[k] != v {
			t.Errorf("%s = %s, want %s", k, l[k], v)
		}
	}
	// Removing PFC and the PG lets the generated profile go again.
	if _, err := c.Set(ctx, &gnmipb.SetRequest{Delete: []*gnmipb.Path{
		{Origin: gnmisim.OriginSONiC, Elem: gnmipath.MustParse("/PORT_QOS_MAP").GetElem()},
		{Origin: gnmisim.OriginSONiC, Elem: gnmipath.MustParse("/BUFFER_PG").GetElem()},
	}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sim.Tree(), "BUFFER_PROFILE") {
		t.Errorf("generated profile left behind:\n%s", sim.Tree())
	}
}

func TestHandChange(t *testing.T) {
	sim, _ := client(t, gnmisim.Options{})
	if err := sim.HandChange("/interfaces/interface[name=E1]/config/mtu", "1500"); err != nil {
		t.Fatal(err)
	}
	if err := sim.HandChange("cli:/interface Ethernet1 > priority-flow-control on", devcfg.String("interface Ethernet1\n   priority-flow-control on")); err != nil {
		t.Fatal(err)
	}
	want := "/interfaces/interface[name=E1]/config/mtu = 1500\ncli:/interface Ethernet1 > priority-flow-control on = \"interface Ethernet1\\n   priority-flow-control on\"\n"
	if got := sim.Tree(); got != want {
		t.Errorf("tree:\n%s\nwant\n%s", got, want)
	}
	if err := sim.HandChange("/interfaces", ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sim.Tree(), "/interfaces") {
		t.Error("hand delete left leaves")
	}
}

func TestAuthRequiredUnlessNoAuth(t *testing.T) {
	if _, err := gnmisim.Start(gnmisim.Options{Plaintext: true}); err == nil {
		t.Fatal("a target without credentials and without NoAuth started")
	}
}
