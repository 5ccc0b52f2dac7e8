package gnmi_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// TestSONiCJSONPatchWrites: sonic-gnmi applies a sonic-db SetRequest as one
// JSON patch (mixed_db_client.go SetIncrementalConfig; RFC 6902 add needs
// the parent), so the driver writes a field of an existing entry as a field,
// a new entry whole, a new table whole, turns the removal of an entry's last
// field into the entry's and a table's last entry into the table's (no empty
// tables), and escapes '/' in a key as "~1" (json_client.go FixPath).
func TestSONiCJSONPatchWrites(t *testing.T) {
	plat := sonicPlatform()
	sim := startSim(t, gnmisim.Options{Personality: gnmisim.SONiC})
	base := gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: "leaf1", Ports: 2, BufferModel: "dynamic"})
	for f, v := range map[string]string{"lanes": "200,201,202,203", "speed": "100000", "admin_status": "up"} {
		base[sonic.Key("PORT", "Eth1/1", f)] = devcfg.String(v)
	}
	if err := sim.Load(base); err != nil {
		t.Fatal(err)
	}
	scope := devcfg.Scope{PathPrefixes: []string{"sonic-db:/"}}
	d := dial(t, options(t, sim, plat, scope))
	ctx := context.Background()
	push := func(p devcfg.Patch) {
		t.Helper()
		if _, err := d.Push(ctx, p, drivers.PushOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	s := devcfg.String
	push(devcfg.Patch{Updates: []devcfg.PathUpdate{
		{Path: sonic.Key("PORT", "Ethernet0", "mtu"), Value: s("9216")},                   // existing entry: a field
		{Path: sonic.Key("BUFFER_PG", "Ethernet0|3", "profile"), Value: s("NULL")},        // existing table: an entry
		{Path: sonic.Key("WRED_PROFILE", "ROCEFAB_LOSSLESS", "ecn"), Value: s("ecn_all")}, // new table
		{Path: sonic.Key("WRED_PROFILE", "ROCEFAB_LOSSLESS", "wred_green_enable"), Value: s("true")},
		{Path: sonic.Key("VLAN", "Vlan100", "vlanid"), Value: s("100")},
		{Path: sonic.Key("VLAN_MEMBER", "Vlan100|Eth1/1", "tagging_mode"), Value: s("tagged")}, // a '/' in the key
	}})
	l := sim.Leaves()
	for k, want := range map[string]devcfg.Value{
		"sonic-db:/PORT/Ethernet0/mtu":                       `"9216"`,
		"sonic-db:/PORT/Ethernet0/lanes":                     `"0,1,2,3"`,
		"sonic-db:/BUFFER_PG/Ethernet0|3/profile":            `"NULL"`,
		"sonic-db:/WRED_PROFILE/ROCEFAB_LOSSLESS/ecn":        `"ecn_all"`,
		`sonic-db:/VLAN_MEMBER/Vlan100|Eth1\/1/tagging_mode`: `"tagged"`,
	} {
		if l[k] != want {
			t.Errorf("%s = %s, want %s", k, l[k], want)
		}
	}
	running, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := running.Config.Paths[sonic.Key("VLAN_MEMBER", "Vlan100|Eth1/1", "tagging_mode")]; got != `"tagged"` {
		t.Errorf("read back Vlan100|Eth1/1 = %s (Get names the key raw)", got)
	}
	push(devcfg.Patch{Deletes: []string{
		sonic.Key("WRED_PROFILE", "ROCEFAB_LOSSLESS", "ecn"), sonic.Key("WRED_PROFILE", "ROCEFAB_LOSSLESS", "wred_green_enable"),
		sonic.Key("VLAN_MEMBER", "Vlan100|Eth1/1", "tagging_mode"), sonic.Key("VLAN", "Vlan100", "vlanid"),
		sonic.Key("PORT", "Ethernet0", "mtu"),
	}})
	tree := sim.Tree()
	for _, gone := range []string{"WRED_PROFILE", "VLAN", "PORT/Ethernet0/mtu"} {
		if strings.Contains(tree, "sonic-db:/"+gone) {
			t.Errorf("%s left behind:\n%s", gone, tree)
		}
	}
	if !strings.Contains(tree, "sonic-db:/PORT/Ethernet0/lanes") {
		t.Error("removing mtu removed the port")
	}
}

// TestSONiCOneOriginPerSet: sonic-gnmi refuses a SetRequest whose paths carry
// two origins (gnmi_server/server.go ParseOrigin, "Origin conflict in
// path"), so the driver refuses it before sending, naming the reason.
func TestSONiCOneOriginPerSet(t *testing.T) {
	sim := startSim(t, gnmisim.Options{Personality: gnmisim.SONiC})
	opt := options(t, sim, ocPlatform(), ocScope)
	opt.SingleOriginModels = []string{"sonic-db"}
	d := dial(t, opt)
	_, err := d.Push(context.Background(), devcfg.Patch{Updates: []devcfg.PathUpdate{
		{Path: "/qos/queues/queue[name=ROCEFAB_Q3]/config/name", Value: devcfg.String("ROCEFAB_Q3")},
		{Path: "sonic-db:/CONFIG_DB/localhost/PORT_QOS_MAP/Ethernet0/pfc_enable", Value: devcfg.String("3")},
	}}, drivers.PushOptions{})
	if !errors.Is(err, drivers.ErrUnsupported) || !strings.Contains(err.Error(), "mixing origins") {
		t.Fatalf("err = %v", err)
	}
	if sim.SetCount() != 0 {
		t.Error("the refused SetRequest reached the target")
	}
}

// TestSONiCNeedsJSONIETF: the sonic-db origin takes JSON_IETF only
// (mixed_db_client.go: "Value encoding is not IETF JSON"); a target that
// does not offer it is refused at connect.
func TestSONiCNeedsJSONIETF(t *testing.T) {
	sim := startSim(t, gnmisim.Options{Personality: gnmisim.SONiC, Encodings: []gnmipb.Encoding{gnmipb.Encoding_JSON}})
	_, err := gnmi.Dial(context.Background(), options(t, sim, sonicPlatform(), devcfg.Scope{}))
	if !errors.Is(err, drivers.ErrUnsupported) || !strings.Contains(err.Error(), "JSON_IETF") {
		t.Fatalf("err = %v", err)
	}
}

// TestEntryDeleteTakesTheWholeEntry: removing an OpenConfig list entry's
// key leaf (config/name) deletes the entry, so leaves a target holds at
// their defaults go with it. Found by the lemming oracle, which keeps
// red/uniform defaults in a queue-management profile and rejects an entry
// left without its key ("key field Name: element key <nil> != map key").
func TestEntryDeleteTakesTheWholeEntry(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	const qmp = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]"
	if err := sim.Load(devcfg.Paths{
		qmp + "/config/name":                     devcfg.String("ROCEFAB_ECN"),
		qmp + "/wred/uniform/config/enable-ecn":  devcfg.Bool(true),
		qmp + "/red/uniform/config/enable-ecn":   devcfg.Bool(false), // a default the target reports
		"/qos/queues/queue[name=Q1]/config/name": devcfg.String("Q1"),
	}); err != nil {
		t.Fatal(err)
	}
	d := dial(t, options(t, sim, ocPlatform(), devcfg.Scope{PathPrefixes: []string{"/qos/"}}))
	_, err := d.Push(context.Background(), devcfg.Patch{Deletes: []string{qmp + "/config/name", qmp + "/wred/uniform/config/enable-ecn"}}, drivers.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tree := sim.Tree(); strings.Contains(tree, "ROCEFAB_ECN") || !strings.Contains(tree, "queue[name=Q1]") {
		t.Fatalf("after the delete:\n%s", tree)
	}
}
