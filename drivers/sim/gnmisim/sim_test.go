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

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/internal/yangdir"
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

// sonicPath is a sonic-db path as sonic-gnmi takes it:
// /CONFIG_DB/localhost/TABLE/key/field under origin sonic-db.
func sonicPath(rel ...string) *gnmipb.Path {
	p := &gnmipb.Path{Origin: gnmisim.OriginSONiC, Elem: []*gnmipb.PathElem{{Name: gnmisim.SONiCDB}, {Name: gnmisim.SONiCInstance}}}
	for _, n := range rel {
		p.Elem = append(p.Elem, &gnmipb.PathElem{Name: n})
	}
	return p
}

func sonicUpdate(js string, rel ...string) *gnmipb.Update {
	return &gnmipb.Update{Path: sonicPath(rel...), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(js)}}}
}

// TestSONiCServesWhatSonicGNMIServes checks the SONiC personality against
// sonic-net/sonic-gnmi's own source: gnmi_server/server.go (Get type ALL
// only, ParseOrigin), sonic_data_client/mixed_db_client.go (paths
// /CONFIG_DB/localhost/..., JSON_IETF, NotFound for a missing entry, a JSON
// patch applied by config apply-patch) and db_client.go (target CONFIG_DB).
func TestSONiCServesWhatSonicGNMIServes(t *testing.T) {
	sim, c := client(t, gnmisim.Options{Personality: gnmisim.SONiC})
	if err := sim.Load(gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: "leaf1", Ports: 4, BufferModel: "dynamic"})); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	get := func(typ gnmipb.GetRequest_DataType, enc gnmipb.Encoding, prefix *gnmipb.Path, paths ...*gnmipb.Path) (*gnmipb.GetResponse, error) {
		return c.Get(ctx, &gnmipb.GetRequest{Type: typ, Encoding: enc, Prefix: prefix, Path: paths})
	}
	rel := func(s string) *gnmipb.Path { return gnmipath.MustParse(s) }
	all, ietf := gnmipb.GetRequest_ALL, gnmipb.Encoding_JSON_IETF
	originOnly := &gnmipb.Path{Origin: gnmisim.OriginSONiC}

	t.Run("get", func(t *testing.T) {
		if _, err := get(gnmipb.GetRequest_CONFIG, ietf, originOnly, rel("/CONFIG_DB/localhost/PORT")); status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "unsupported request type") {
			t.Errorf("type CONFIG: %v", err)
		}
		resp, err := get(all, ietf, originOnly, rel("/CONFIG_DB/localhost/PORT/Ethernet4/lanes"), rel("/CONFIG_DB/localhost/DEVICE_METADATA/localhost"))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()); got != `"4,5,6,7"` {
			t.Errorf("lanes = %s", got)
		}
		if got := string(resp.GetNotification()[1].GetUpdate()[0].GetVal().GetJsonIetfVal()); !strings.Contains(got, `"buffer_model":"dynamic"`) {
			t.Errorf("DEVICE_METADATA entry = %s", got)
		}
		if _, err := get(all, ietf, originOnly, rel("/PORT/Ethernet4/lanes")); status.Code(err) != codes.NotFound {
			t.Errorf("a path without /CONFIG_DB/localhost: %v, want NotFound (Invalid target)", err)
		}
		if _, err := get(all, ietf, originOnly, rel("/CONFIG_DB/localhost/PORT/Ethernet252")); status.Code(err) != codes.NotFound {
			t.Errorf("missing entry: %v, want NotFound", err)
		}
		if resp, err := get(all, ietf, originOnly, rel("/CONFIG_DB/localhost/WRED_PROFILE")); err != nil || len(resp.GetNotification()) != 0 {
			t.Errorf("an absent table reads empty: %v %v", resp, err)
		}
		if _, err := get(all, gnmipb.Encoding_JSON, originOnly, rel("/CONFIG_DB/localhost/PORT")); status.Code(err) != codes.NotFound {
			t.Errorf("JSON on sonic-db: %v, want NotFound (Unknown encoding)", err)
		}
		resp, err = get(all, ietf, &gnmipb.Path{Target: "CONFIG_DB"}, rel("/PORT/Ethernet0/mtu"))
		if err != nil || string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal()) != `"9100"` {
			t.Errorf("target CONFIG_DB (DbClient): %v %v", resp, err)
		}
		if _, err := get(all, ietf, &gnmipb.Path{Target: "CONFIG_DB"}, rel("/PORT/Ethernet0/mtu"), rel("/PORT/Ethernet252/mtu")); status.Code(err) != codes.NotFound {
			t.Errorf("target CONFIG_DB with a missing path: %v, want NotFound", err)
		}
	})

	set := func(req *gnmipb.SetRequest) error { _, err := c.Set(ctx, req); return err }
	unchanged := func(t *testing.T, before string) {
		t.Helper()
		if sim.Tree() != before {
			t.Errorf("a refused Set changed the device")
		}
	}
	t.Run("set refusals", func(t *testing.T) {
		before := sim.Tree()
		mixed := &gnmipb.SetRequest{Update: []*gnmipb.Update{sonicUpdate(`"3"`, "PORT_QOS_MAP", "Ethernet0", "pfc_enable"), update("/qos/queues/queue[name=Q3]/config/name", `"Q3"`)}}
		if err := set(mixed); status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "Origin conflict in path") {
			t.Errorf("mixed origins: %v", err)
		}
		if err := set(&gnmipb.SetRequest{Update: []*gnmipb.Update{sonicUpdate(`"ROCEFAB"`, "QUEUE", "Ethernet0|3", "scheduler")}}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("a field of a missing entry (JSON patch add without parent): %v", err)
		}
		jsonVal := &gnmipb.Update{Path: sonicPath("PORT", "Ethernet0", "mtu"), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonVal{JsonVal: []byte(`"9216"`)}}}
		if err := set(&gnmipb.SetRequest{Update: []*gnmipb.Update{jsonVal}}); err == nil || !strings.Contains(err.Error(), "Value encoding is not IETF JSON") {
			t.Errorf("JSON value: %v", err)
		}
		if err := set(&gnmipb.SetRequest{Update: []*gnmipb.Update{sonicUpdate(`{"mtu":"9216"}`, "PORT", "Ethernet252")}}); err == nil || !strings.Contains(err.Error(), "mandatory lanes") {
			t.Errorf("a PORT entry with only mtu: %v", err)
		}
		if err := set(&gnmipb.SetRequest{Delete: []*gnmipb.Path{sonicPath("CABLE_LENGTH", "AZURE")}}); err == nil || !strings.Contains(err.Error(), "empty tables") {
			t.Errorf("removing a table's last entry: %v", err)
		}
		lagAndVLAN := &gnmipb.SetRequest{Update: []*gnmipb.Update{
			sonicUpdate(`{"PortChannel1":{"admin_status":"up"}}`, "PORTCHANNEL"),
			sonicUpdate(`{"PortChannel1|Ethernet0":{}}`, "PORTCHANNEL_MEMBER"),
			sonicUpdate(`{"Vlan100":{"vlanid":"100"}}`, "VLAN"),
			sonicUpdate(`{"Vlan100|Ethernet0":{"tagging_mode":"tagged"}}`, "VLAN_MEMBER"),
		}}
		if err := set(lagAndVLAN); err == nil || !strings.Contains(err.Error(), "member of a port channel") {
			t.Errorf("VLAN member on a port channel member: %v", err)
		}
		unchanged(t, before)
	})

	t.Run("set", func(t *testing.T) {
		err := set(&gnmipb.SetRequest{Prefix: originOnly, Delete: []*gnmipb.Path{rel("/CONFIG_DB/localhost/QUEUE/Ethernet0|3")}, Update: []*gnmipb.Update{
			{Path: rel("/CONFIG_DB/localhost/PORT/Ethernet0/mtu"), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`"9216"`)}}},
			{Path: rel("/CONFIG_DB/localhost/PORT_QOS_MAP"), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"Ethernet0":{"pfc_enable":"3"}}`)}}},
			{Path: sonicPath("PORT_QOS_MAP", "Eth1~11"), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"pfc_enable":"3"}`)}}},
		}})
		if err == nil || !strings.Contains(err.Error(), "PORT_QOS_MAP|Eth1/1") {
			t.Fatalf("a '~1' in a key is '/': want the leafref error naming Eth1/1, got %v", err)
		}
		err = set(&gnmipb.SetRequest{Prefix: originOnly, Delete: []*gnmipb.Path{rel("/CONFIG_DB/localhost/QUEUE/Ethernet0|3")}, Update: []*gnmipb.Update{
			{Path: rel("/CONFIG_DB/localhost/PORT/Ethernet0/mtu"), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`"9216"`)}}},
			{Path: rel("/CONFIG_DB/localhost/PORT_QOS_MAP"), Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`{"Ethernet0":{"pfc_enable":"3"}}`)}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		l := sim.Leaves()
		if l["sonic-db:/PORT/Ethernet0/mtu"] != `"9216"` || l["sonic-db:/PORT/Ethernet0/lanes"] != `"0,1,2,3"` || l["sonic-db:/PORT_QOS_MAP/Ethernet0/pfc_enable"] != `"3"` {
			t.Errorf("after Set:\n%s", sim.Tree())
		}
		if l["sonic-db:/BUFFER_PG/Ethernet0|3-4/profile"] != `"NULL"` || l["sonic-db:/BUFFER_PG/Ethernet0|3/profile"] != "" {
			t.Errorf("the dynamic model writes nothing into CONFIG_DB BUFFER_PG:\n%s", sim.Tree())
		}
	})
}

// TestSONiCTraditionalBufferManager: under the traditional buffer model a
// pfc_enable change makes buffermgrd write BUFFER_PG|<port>|<runs of
// priorities> with pg_lossless_<speed>_<cable>_profile (sonic-swss
// cfgmgr/buffermgr.cpp doSpeedUpdateTask), leaving other keys alone.
func TestSONiCTraditionalBufferManager(t *testing.T) {
	sim, c := client(t, gnmisim.Options{Personality: gnmisim.SONiC})
	if err := sim.Load(gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: "leaf1", Ports: 2, BufferModel: "traditional"})); err != nil {
		t.Fatal(err)
	}
	_, err := c.Set(context.Background(), &gnmipb.SetRequest{Update: []*gnmipb.Update{
		sonicUpdate(`{"Ethernet0":{"pfc_enable":"3"},"Ethernet4":{"pfc_enable":"2,3,4,6"}}`, "PORT_QOS_MAP")}})
	if err != nil {
		t.Fatal(err)
	}
	l := sim.Leaves()
	for k, want := range map[string]devcfg.Value{
		"sonic-db:/BUFFER_PG/Ethernet0|3/profile":   `"pg_lossless_100000_5m_profile"`,
		"sonic-db:/BUFFER_PG/Ethernet0|3-4/profile": `"pg_lossless_100000_5m_profile"`, // stock, untouched
		"sonic-db:/BUFFER_PG/Ethernet4|2-4/profile": `"pg_lossless_100000_5m_profile"`,
		"sonic-db:/BUFFER_PG/Ethernet4|6/profile":   `"pg_lossless_100000_5m_profile"`,
	} {
		if l[k] != want {
			t.Errorf("%s = %s, want %s", k, l[k], want)
		}
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
