package sonic

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
)

// factoryConfig is a running config of the simulated factory switch, edited.
func factoryConfig(t *testing.T, ports int, model string, edit func(p devcfg.Paths)) *devcfg.Config {
	t.Helper()
	p := gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: "leaf-sonic", Ports: ports, BufferModel: model})
	if edit != nil {
		edit(p)
	}
	return &devcfg.Config{Shape: devcfg.ShapePaths, Paths: p}
}

// fit renders sw and fits it to running.
func fit(t *testing.T, sw *intent.Switch, running *devcfg.Config) (*devcfg.Config, error) {
	t.Helper()
	desired := mustRender(t, sw)
	return desired, Fit(sw, desired, running)
}

// TestFitRefusesMissingPorts: a leaf whose intent lists Ethernet0-124 on a
// device with 16 ports gets no push at all; the plan names the missing
// ports. SONiC rejects a PORT entry without lanes (sonic-port.yang: lanes
// and speed are mandatory), so writing PORT|Ethernet124 mtu alone fails.
func TestFitRefusesMissingPorts(t *testing.T) {
	_, err := fit(t, basicSwitch(t), factoryConfig(t, 16, BufferModelDynamic, nil))
	if err == nil {
		t.Fatal("a device without Ethernet64-124 was not refused")
	}
	for _, want := range []string{"16 port(s) of the intent are not in the device's PORT table", "Ethernet64, Ethernet68", "Ethernet124", "16 ports, Ethernet0 … Ethernet60", "lanes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if _, err := fit(t, basicSwitch(t), &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{}}); err == nil || !strings.Contains(err.Error(), "no PORT table") {
		t.Errorf("empty CONFIG_DB: %v", err)
	}
	if _, err := fit(t, basicSwitch(t), factoryConfig(t, 32, BufferModelDynamic, nil)); err != nil {
		t.Errorf("a device with every port: %v", err)
	}
}

// TestFitRefusesVLANConflicts: SONiC refuses a VLAN member that is a port
// channel member or a router interface, and a second untagged VLAN on a
// port (sonic-vlan.yang VLAN_MEMBER must statements; sonic-utilities
// config/vlan.py add_vlan_member: "is part of portchannel!", "is a router
// interface!", "is already untagged member!"). Fit says so at plan time.
func TestFitRefusesVLANConflicts(t *testing.T) {
	access := func(sw *intent.Switch) {
		sw.Ports = []intent.Port{{Name: "Ethernet0", Mode: "access"}, {Name: "Ethernet4", Mode: "trunk"},
			{Name: "Ethernet8", Mode: "trunk", LAG: "PortChannel10"}, {Name: "Ethernet12", Mode: "routed"}}
	}
	cases := []struct {
		name string
		edit func(p devcfg.Paths)
		want string
	}{
		{"portchannel member", func(p devcfg.Paths) {
			p[Key("PORTCHANNEL", "PortChannel5", "admin_status")] = devcfg.String("up")
			p[EntryKey("PORTCHANNEL_MEMBER", "PortChannel5|Ethernet4")] = devcfg.Empty
		}, "Ethernet4 is a member of PortChannel5 (PORTCHANNEL_MEMBER|PortChannel5|Ethernet4): SONiC refuses it as a member of Vlan100"},
		{"member of another port channel", func(p devcfg.Paths) {
			p[Key("PORTCHANNEL", "PortChannel5", "admin_status")] = devcfg.String("up")
			p[EntryKey("PORTCHANNEL_MEMBER", "PortChannel5|Ethernet8")] = devcfg.Empty
		}, "Ethernet8 is a member of PortChannel5 on the device (PORTCHANNEL_MEMBER|PortChannel5|Ethernet8), not of PortChannel10"},
		{"router interface", func(p devcfg.Paths) {
			p[EntryKey("INTERFACE", "Ethernet4")] = devcfg.Empty
			p[EntryKey("INTERFACE", "Ethernet4|192.0.2.1/31")] = devcfg.Empty
		}, "Ethernet4 is a router interface"},
		{"routed port channel", func(p devcfg.Paths) {
			p[EntryKey("PORTCHANNEL_INTERFACE", "PortChannel10|198.51.100.1/31")] = devcfg.Empty
		}, "PortChannel10 is a router interface"},
		{"untagged twice", func(p devcfg.Paths) {
			p[Key("VLAN", "Vlan20", "vlanid")] = devcfg.String("20")
			p[Key("VLAN_MEMBER", "Vlan20|Ethernet0", "tagging_mode")] = devcfg.String("untagged")
		}, "Ethernet0 is already untagged in Vlan20"},
		{"missing port channel", func(p devcfg.Paths) { delete(p, Key("PORTCHANNEL", "PortChannel10", "admin_status")) }, "port channel PortChannel10 is not in the device's PORTCHANNEL table"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			access(sw)
			running := factoryConfig(t, 4, BufferModelDynamic, func(p devcfg.Paths) {
				p[Key("PORTCHANNEL", "PortChannel10", "admin_status")] = devcfg.String("up")
				tc.edit(p)
			})
			if _, err := fit(t, sw, running); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
	t.Run("clean", func(t *testing.T) {
		sw := basicSwitch(t)
		access(sw)
		running := factoryConfig(t, 4, BufferModelDynamic, func(p devcfg.Paths) {
			p[Key("PORTCHANNEL", "PortChannel10", "admin_status")] = devcfg.String("up")
			p[EntryKey("INTERFACE", "Ethernet12|192.0.2.1/31")] = devcfg.Empty // routed in the intent too
			p[EntryKey("PORTCHANNEL_MEMBER", "PortChannel10|Ethernet8")] = devcfg.Empty
		})
		if _, err := fit(t, sw, running); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFitBufferModel: the plan says which buffer model the device runs and
// writes what that model expects (sonic-buildimage buffermgrd.sh picks the
// dynamic model only for buffer_model "dynamic"). Dynamic: BUFFER_PG
// <port>|3 "NULL" (buffermgrdyn.cpp handleSingleBufferPgEntry: "NULL" is a
// dynamically sized lossless PG), and the stock 3-4 entry that would
// overlap it is removed. Traditional: buffermgrd writes BUFFER_PG
// <port>|<pfc_enable runs> itself (buffermgr.cpp doSpeedUpdateTask), so
// rocefab neither writes nor owns it, and a static headroom profile is
// refused.
func TestFitBufferModel(t *testing.T) {
	t.Run("dynamic", func(t *testing.T) {
		desired, err := fit(t, basicSwitch(t), factoryConfig(t, 32, BufferModelDynamic, nil))
		if err != nil {
			t.Fatal(err)
		}
		if v := desired.Paths[Key("BUFFER_PG", "Ethernet0|3", "profile")]; v.Text() != "NULL" {
			t.Errorf("BUFFER_PG|Ethernet0|3 = %s", v)
		}
		if !desired.Owned.OwnsPath(EntryKey("BUFFER_PG", "Ethernet0|3-4")) || desired.Owned.OwnsPath(EntryKey("BUFFER_PG", "Ethernet0|0")) {
			t.Error("the stock PG 3-4 must be owned (to be removed) and the lossy PG 0 left alone")
		}
		assertNote(t, desired, "buffer model dynamic", "removes 32 lossless BUFFER_PG entries")
	})
	t.Run("dynamic two lossless keeps the stock 3-4", func(t *testing.T) {
		desired, err := fit(t, variantSwitch(t, "two-lossless"), factoryConfig(t, 32, BufferModelDynamic, nil))
		if err != nil {
			t.Fatal(err)
		}
		if v := desired.Paths[Key("BUFFER_PG", "Ethernet0|3-4", "profile")]; v.Text() != "NULL" {
			t.Errorf("BUFFER_PG|Ethernet0|3-4 = %s, want NULL (the key buffermgrd uses for PGs 3 and 4)", v)
		}
		for _, n := range desired.Notes {
			if strings.Contains(n, "removes") {
				t.Errorf("nothing overlaps, yet: %s", n)
			}
		}
	})
	t.Run("traditional", func(t *testing.T) {
		desired, err := fit(t, basicSwitch(t), factoryConfig(t, 32, BufferModelTraditional, nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := desired.Paths[Key("BUFFER_PG", "Ethernet0|3", "profile")]; ok || desired.Owned.OwnsPath(EntryKey("BUFFER_PG", "Ethernet0|3")) {
			t.Error("under the traditional model BUFFER_PG|Ethernet0|3 is buffermgrd's")
		}
		if desired.Paths[Key("PORT_QOS_MAP", "Ethernet0", "pfc_enable")].Text() != "3" {
			t.Error("pfc_enable is what makes buffermgrd write the lossless PG")
		}
		assertNote(t, desired, "buffer model traditional: buffermgrd writes BUFFER_PG|<port>|3", "removes 32 lossless BUFFER_PG entries")
	})
	t.Run("traditional unset", func(t *testing.T) {
		desired, err := fit(t, basicSwitch(t), factoryConfig(t, 32, BufferModelTraditional, func(p devcfg.Paths) {
			delete(p, Key("DEVICE_METADATA", "localhost", "buffer_model"))
		}))
		if err != nil {
			t.Fatal(err)
		}
		assertNote(t, desired, "has no buffer_model, which SONiC runs as traditional")
	})
	t.Run("traditional static refused", func(t *testing.T) {
		_, err := fit(t, variantSwitch(t, "static-buffers"), factoryConfig(t, 32, BufferModelTraditional, nil))
		if err == nil || !strings.Contains(err.Error(), "static profile of pfc.headroom/xoff/xon cannot hold") {
			t.Fatalf("err = %v", err)
		}
	})
	// buffermgrd (traditional) looks headroom up by speed and cable length
	// in pg_profile_lookup.ini and refuses a length it lacks; the stock
	// files have 5m, 40m and 300m. examples/basic: Ethernet0 is on 3 m,
	// Ethernet124 on 30 m.
	t.Run("traditional rounds cable lengths up to the lookup table", func(t *testing.T) {
		sw := basicSwitch(t)
		sw.Ports[1].Cable = &intent.Cable{Length: 1000}
		sw.Ports[2].Cable = &intent.Cable{Length: 2000}
		desired, err := fit(t, sw, factoryConfig(t, 32, BufferModelTraditional, func(p devcfg.Paths) {
			// The device already has a 1000 m profile: its file has that length.
			p[Key("BUFFER_PROFILE", "pg_lossless_100000_1000m_profile", "pool")] = devcfg.String("ingress_lossless_pool")
		}))
		if err != nil {
			t.Fatal(err)
		}
		for port, want := range map[string]string{"Ethernet0": "5m", "Ethernet124": "40m", "Ethernet4": "1000m", "Ethernet8": "2000m"} {
			if got := desired.Paths[Key("CABLE_LENGTH", CableLengthKey, port)].Text(); got != want {
				t.Errorf("CABLE_LENGTH %s = %q, want %q", port, got, want)
			}
		}
		assertNote(t, desired, "CABLE_LENGTH rounded up to a length the device's pg_profile_lookup.ini has (5m, 40m, 300m, 1000m): Ethernet0 3m to 5m, Ethernet124 30m to 40m",
			"longer than every length the device is known to have (5m, 40m, 300m, 1000m): Ethernet8 2000m")
	})
	t.Run("dynamic takes any cable length", func(t *testing.T) {
		desired, err := fit(t, basicSwitch(t), factoryConfig(t, 32, BufferModelDynamic, nil))
		if err != nil {
			t.Fatal(err)
		}
		if got := desired.Paths[Key("CABLE_LENGTH", CableLengthKey, "Ethernet0")].Text(); got != "3m" {
			t.Errorf("CABLE_LENGTH Ethernet0 = %q, want the link's 3m", got)
		}
	})
	t.Run("lossy range over a lossless PG", func(t *testing.T) {
		_, err := fit(t, basicSwitch(t), factoryConfig(t, 32, BufferModelDynamic, func(p devcfg.Paths) {
			delete(p, Key("BUFFER_PG", "Ethernet0|0", "profile"))
			p[Key("BUFFER_PG", "Ethernet0|0-3", "profile")] = devcfg.String("ingress_lossy_profile")
		}))
		if err == nil || !strings.Contains(err.Error(), "BUFFER_PG|Ethernet0|0-3 holds the lossy profile ingress_lossy_profile") {
			t.Fatalf("err = %v", err)
		}
	})
}

func assertNote(t *testing.T, cfg *devcfg.Config, wants ...string) {
	t.Helper()
	all := strings.Join(cfg.Notes, "\n")
	for _, w := range wants {
		if !strings.Contains(all, w) {
			t.Errorf("no note says %q:\n%s", w, all)
		}
	}
}

func TestPGRuns(t *testing.T) {
	for in, want := range map[string]string{"3": "3", "3 4": "3-4", "2 3 4 6": "2-4,6", "4 3": "3-4", "": "", "0 7": "0,7"} {
		var pgs []int
		for _, f := range strings.Fields(in) {
			pgs = append(pgs, int(f[0]-'0'))
		}
		if got := strings.Join(PGRuns(pgs), ","); got != want {
			t.Errorf("PGRuns(%s) = %s, want %s", in, got, want)
		}
	}
}
