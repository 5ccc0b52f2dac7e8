package gnmipath

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/rocefab/rocefab/devcfg"
)

func TestParseFormat(t *testing.T) {
	tests := []struct {
		name, in, canon string
		want            *gnmipb.Path
	}{
		{"root", "/", "/", &gnmipb.Path{}},
		{"plain", "/interfaces/interface/config/mtu", "/interfaces/interface/config/mtu",
			&gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "interfaces"}, {Name: "interface"}, {Name: "config"}, {Name: "mtu"}}}},
		{"keyed with slash in value", "/interfaces/interface[name=Ethernet1/1]/config/mtu", "/interfaces/interface[name=Ethernet1/1]/config/mtu",
			&gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "interfaces"}, {Name: "interface", Key: map[string]string{"name": "Ethernet1/1"}}, {Name: "config"}, {Name: "mtu"}}}},
		{"keys sorted", "/a/b[z=1][k=2]", "/a/b[k=2][z=1]",
			&gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "a"}, {Name: "b", Key: map[string]string{"z": "1", "k": "2"}}}}},
		{"origin", "sonic-db:/BUFFER_PG/Ethernet0|3/profile", "sonic-db:/BUFFER_PG/Ethernet0|3/profile",
			&gnmipb.Path{Origin: "sonic-db", Elem: []*gnmipb.PathElem{{Name: "BUFFER_PG"}, {Name: "Ethernet0|3"}, {Name: "profile"}}}},
		{"openconfig origin dropped", "openconfig:/qos", "/qos", &gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "qos"}}}},
		{"origin root", "cli:/", "cli:/", &gnmipb.Path{Origin: "cli"}},
		{"module-qualified name keeps colon", "/openconfig-qos:qos/queues", "/openconfig-qos:qos/queues",
			&gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "openconfig-qos:qos"}, {Name: "queues"}}}},
		{"escapes", `sonic-db:/INTERFACE/Ethernet0|10.0.0.1\/31/x[k=a\]b]`, `sonic-db:/INTERFACE/Ethernet0|10.0.0.1\/31/x[k=a\]b]`,
			&gnmipb.Path{Origin: "sonic-db", Elem: []*gnmipb.PathElem{{Name: "INTERFACE"}, {Name: "Ethernet0|10.0.0.1/31"}, {Name: "x", Key: map[string]string{"k": "a]b"}}}}},
		{"cli words", "cli:/interface Ethernet1/priority-flow-control on", "cli:/interface Ethernet1/priority-flow-control on",
			&gnmipb.Path{Origin: "cli", Elem: []*gnmipb.PathElem{{Name: "interface Ethernet1"}, {Name: "priority-flow-control on"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, protocmp.Transform()); d != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, d)
			}
			if s := Format(got); s != tt.canon {
				t.Errorf("Format = %q, want %q", s, tt.canon)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{"a/b", "/a//b", "/a/", "/a[k]", "/a[k=v", "/a[=v]", "/a]b", `/a\`, "/a[k=1][k=2]", "/a[k=v]x"} {
		t.Run(in, func(t *testing.T) {
			if _, err := Parse(in); !errors.Is(err, ErrSyntax) {
				t.Errorf("Parse(%q) = %v, want ErrSyntax", in, err)
			}
		})
	}
}

func TestUnder(t *testing.T) {
	tests := []struct {
		p, base string
		want    bool
	}{
		{"/a/b", "/a", true},
		{"/a/b[k=v]/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a", true},
		{"/a/b", "/", true},
		{"sonic-db:/A", "/", false},
		{"sonic-db:/A/x", "sonic-db:/", true},
	}
	for _, tt := range tests {
		if got := Under(tt.p, tt.base); got != tt.want {
			t.Errorf("Under(%q, %q) = %v, want %v", tt.p, tt.base, got, tt.want)
		}
	}
}

func TestFlatten(t *testing.T) {
	tests := []struct {
		name, base, json string
		want             devcfg.Paths
	}{
		{
			name: "openconfig list keys are direct scalars, prefixes stripped",
			base: "/",
			json: `{"openconfig-interfaces:interfaces":{"interface":[{"name":"Ethernet1","config":{"name":"Ethernet1","mtu":9216},
			        "ethernet":{"switched-vlan":{"config":{"interface-mode":"TRUNK","trunk-vlans":[100]}}}}]},
			        "openconfig-qos:qos":{"queue-management-profiles":{"queue-management-profile":[{"name":"ECN","wred":{"uniform":{"config":
			        {"min-threshold":"150000","enable-ecn":true}}}}]}}}`,
			want: devcfg.Paths{
				"/interfaces/interface[name=Ethernet1]/config/name":                                                   `"Ethernet1"`,
				"/interfaces/interface[name=Ethernet1]/config/mtu":                                                    `9216`,
				"/interfaces/interface[name=Ethernet1]/ethernet/switched-vlan/config/interface-mode":                  `"TRUNK"`,
				"/interfaces/interface[name=Ethernet1]/ethernet/switched-vlan/config/trunk-vlans":                     `[100]`,
				"/qos/queue-management-profiles/queue-management-profile[name=ECN]/wred/uniform/config/min-threshold": `"150000"`,
				"/qos/queue-management-profiles/queue-management-profile[name=ECN]/wred/uniform/config/enable-ecn":    `true`,
			},
		},
		{
			name: "two keys, numeric key",
			base: "/qos/interfaces",
			json: `{"interface":[{"interface-id":"Eth1","input":{"classifiers":{"classifier":[{"type":"IPV4","config":{"name":"ROCE"}}]}}}],
			        "x":{"sub":[{"index":0,"vrf":"red","config":{"a":1}}]}}`,
			want: devcfg.Paths{
				"/qos/interfaces/interface[interface-id=Eth1]/input/classifiers/classifier[type=IPV4]/config/name": `"ROCE"`,
				"/qos/interfaces/x/sub[index=0][vrf=red]/config/a":                                                 `1`,
			},
		},
		{
			name: "value at a list entry path skips its keys",
			base: "/interfaces/interface[name=Ethernet1]",
			json: `{"name":"Ethernet1","config":{"mtu":9216}}`,
			want: devcfg.Paths{"/interfaces/interface[name=Ethernet1]/config/mtu": `9216`},
		},
		{
			name: "array at a list path holds entries",
			base: "/qos/queues/queue",
			json: `[{"name":"Q3","config":{"queue-id":3}}]`,
			want: devcfg.Paths{"/qos/queues/queue[name=Q3]/config/queue-id": `3`},
		},
		{
			name: "scalar at a leaf",
			base: "/interfaces/interface[name=E1]/config/mtu",
			json: `9216`,
			want: devcfg.Paths{"/interfaces/interface[name=E1]/config/mtu": `9216`},
		},
		{
			name: "sonic-db objects are maps, arrays are values, no prefix stripping",
			base: "sonic-db:/",
			json: `{"PORT":{"Ethernet0":{"mtu":"9216"}},"BUFFER_PG":{"Ethernet0|3":{"profile":"NULL"}},
			        "VLAN":{"Vlan100":{"members":["Ethernet0"]}},"INTERFACE":{"Ethernet0|fc00::1/64":{}}}`,
			want: devcfg.Paths{
				"sonic-db:/PORT/Ethernet0/mtu":              `"9216"`,
				"sonic-db:/BUFFER_PG/Ethernet0|3/profile":   `"NULL"`,
				"sonic-db:/VLAN/Vlan100/members":            `["Ethernet0"]`,
				`sonic-db:/INTERFACE/Ethernet0|fc00::1\/64`: `{}`,
			},
		},
		{
			name: "leaf-list of objects without scalars stays a value; empty object is presence",
			base: "/",
			json: `{"a":{"b":[{"c":{}}],"p":{}}}`,
			want: devcfg.Paths{"/a/b": `[{"c":{}}]`, "/a/p": `{}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := devcfg.Paths{}
			if err := Flatten(MustParse(tt.base), []byte(tt.json), got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestFlattenErrors(t *testing.T) {
	for name, js := range map[string]string{
		"not json":          `{`,
		"trailing":          `{} {}`,
		"duplicate members": `{"a:x":1,"b:x":2}`,
	} {
		t.Run(name, func(t *testing.T) {
			if err := Flatten(MustParse("/"), []byte(js), devcfg.Paths{}); err == nil {
				t.Errorf("Flatten(%s) succeeded", js)
			}
		})
	}
}

func TestBuildRoundTrip(t *testing.T) {
	leaves := devcfg.Paths{
		"/interfaces/interface[name=Ethernet1]/config/mtu":                                       `9216`,
		"/interfaces/interface[name=Ethernet1]/subinterfaces/subinterface[index=0]/config/index": `0`,
		"/interfaces/interface[name=Ethernet2]/config/mtu":                                       `1500`,
		"/qos/queues/queue[name=Q3]/config/queue-id":                                             `3`,
		"/qos/x[a=007][b=true]/y/z":                                                              `"w"`,
	}
	var ls []Leaf
	for p, v := range leaves {
		ls = append(ls, Leaf{Elems: MustParse(p).GetElem(), Value: v})
	}
	raw, err := Build(ls, func(m string) string { return "openconfig-" + m + ":" + m })
	if err != nil {
		t.Fatal(err)
	}
	want := `{"openconfig-interfaces:interfaces":{"interface":[{"config":{"mtu":9216},"name":"Ethernet1","subinterfaces":{"subinterface":[{"config":{"index":0},"index":0}]}},{"config":{"mtu":1500},"name":"Ethernet2"}]},"openconfig-qos:qos":{"queues":{"queue":[{"config":{"queue-id":3},"name":"Q3"}]},"x":[{"a":"007","b":"true","y":{"z":"w"}}]}}`
	if string(raw) != want {
		t.Errorf("Build =\n%s\nwant\n%s", raw, want)
	}
	back := devcfg.Paths{}
	if err := Flatten(MustParse("/"), raw, back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(leaves, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

func TestEncodeDecode(t *testing.T) {
	in := devcfg.Paths{"/a/b": `9216`, "sonic-db:/PORT/Ethernet0/mtu": `"9216"`, "/c": `{}`}
	raw, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"/a/b":9216,"/c":{},"sonic-db:/PORT/Ethernet0/mtu":"9216"}`; string(raw) != want {
		t.Errorf("Encode = %s, want %s", raw, want)
	}
	out, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, out); d != "" {
		t.Error(d)
	}
}

func TestJoinStripsModulePrefixes(t *testing.T) {
	got := Format(Join(MustParse("/openconfig-qos:qos"), MustParse("/queues/queue[name=Q3]")))
	if got != "/qos/queues/queue[name=Q3]" {
		t.Errorf("Join = %s", got)
	}
	if got := Format(Join(&gnmipb.Path{Origin: "sonic-db"}, MustParse("/INTERFACE/Ethernet0|fc00::1"))); got != "sonic-db:/INTERFACE/Ethernet0|fc00::1" {
		t.Errorf("non-openconfig names must stay verbatim: %s", got)
	}
}

func TestSplitTarget(t *testing.T) {
	for _, tc := range []struct{ in, target, rest string }{
		{"COUNTERS_DB@/COUNTERS/Ethernet0/SAI_PORT_STAT_PFC_3_RX_PKTS", "COUNTERS_DB", "/COUNTERS/Ethernet0/SAI_PORT_STAT_PFC_3_RX_PKTS"},
		{"leaf1@sonic-db:/CONFIG_DB/localhost/PORT", "leaf1", "sonic-db:/CONFIG_DB/localhost/PORT"},
		{"/interfaces/interface[name=a@b]/state", "", "/interfaces/interface[name=a@b]/state"},
		{"cli:/", "", "cli:/"},
		{"@/a", "", "@/a"},
	} {
		target, rest := SplitTarget(tc.in)
		if target != tc.target || rest != tc.rest {
			t.Errorf("SplitTarget(%q) = %q, %q; want %q, %q", tc.in, target, rest, tc.target, tc.rest)
		}
		if tc.target != "" && WithTarget(target, rest) != tc.in {
			t.Errorf("WithTarget does not give %q back", tc.in)
		}
	}
}

// TestNumericLeaves: a SONiC Queues answer (keys holding ':', fields as
// strings) becomes one counter per numeric field; text fields and empty
// queues give none.
func TestNumericLeaves(t *testing.T) {
	raw := []byte(`{"Ethernet0:3": {"SAI_QUEUE_STAT_PACKETS": "12", "SAI_QUEUE_STAT_DROPPED_PACKETS": "0", "PFC_WD_STATUS": "operational"},
		"Ethernet0:4": {}, "n": 7, "neg": "-1"}`)
	got := NumericLeaves(MustParse("/COUNTERS/Ethernet0/Queues"), raw)
	want := map[string]uint64{
		"/COUNTERS/Ethernet0/Queues/Ethernet0:3/SAI_QUEUE_STAT_PACKETS":         12,
		"/COUNTERS/Ethernet0/Queues/Ethernet0:3/SAI_QUEUE_STAT_DROPPED_PACKETS": 0,
		"/COUNTERS/Ethernet0/Queues/n":                                          7,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d (got %v)", k, got[k], v, got)
		}
	}
	for _, bad := range []string{``, `"5"`, `[1,2]`, `{`} {
		if got := NumericLeaves(MustParse("/a"), []byte(bad)); len(got) != 0 {
			t.Errorf("%q: %v", bad, got)
		}
	}
}
