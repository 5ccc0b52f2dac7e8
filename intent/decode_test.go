package intent

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lines joins YAML lines, so a test can count them: the first is line 1.
func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

// header is the three lines every document starts with; spec's content
// starts on line 4.
var header = []string{"apiVersion: rocefab.io/v1alpha1", "kind: Fabric", "spec:"}

func withHeader(ls ...string) []byte { return lines(append(append([]string{}, header...), ls...)...) }

func diagStrings(ds Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// TestDecodeDiagnostics asserts the complete output, positions included, for
// each kind of loader problem.
func TestDecodeDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want []string
	}{
		{
			name: "unknown field with suggestion",
			in:   withHeader("  losless:", "    vlan: 100"),
			want: []string{`f.yaml:4:3: RF002 error spec.losless: unknown field "losless" (did you mean "lossless"?)`},
		},
		{
			name: "unknown field without a close match",
			in:   withHeader("  lossless:", "    colour: blue"),
			want: []string{`f.yaml:5:5: RF002 error spec.lossless.colour: unknown field "colour"`},
		},
		{
			name: "unknown field in a list item, case-insensitive suggestion",
			in:   withHeader("  hosts:", "    - name: h1", "      Nics: []"),
			want: []string{`f.yaml:6:7: RF002 error spec.hosts[0].Nics: unknown field "Nics" (did you mean "nics"?)`},
		},
		{
			name: "merge key",
			in:   withHeader("  groups:", "    - &g {name: g1}", "  switches:", "    - {name: s1, <<: *g}"),
			want: []string{`f.yaml:7:18: RF002 error spec.switches[0].<<: YAML merge keys (<<) are not supported; share attributes with groups`},
		},
		{
			name: "wrong types",
			in: withHeader(
				"  lossless:",
				`    vlan: "100"`,
				"    noDropPriority: [3]",
				"    roceDscp: 26",
				"    pfc:",
				"      enabled: yes",
				"    ecn: [1, 2]",
				"  probe:",
				"    maxLossPercent: lots",
				"    sizes: {a: 1}",
				"  switches: {name: s1}",
			),
			want: []string{
				`f.yaml:5:11: RF003 error spec.lossless.vlan: expected an integer, got "100"`,
				`f.yaml:6:21: RF003 error spec.lossless.noDropPriority: expected an integer, got a list`,
				`f.yaml:7:15: RF003 error spec.lossless.roceDscp: expected a list, got a scalar`,
				`f.yaml:9:16: RF003 error spec.lossless.pfc.enabled: expected true or false, got "yes"`,
				`f.yaml:10:10: RF003 error spec.lossless.ecn: expected a mapping, got a list`,
				`f.yaml:12:21: RF003 error spec.probe.maxLossPercent: expected a number, got "lots"`,
				`f.yaml:13:12: RF003 error spec.probe.sizes: expected a list, got a mapping`,
				`f.yaml:14:13: RF003 error spec.switches: expected a list, got a mapping`,
			},
		},
		{
			name: "string field given a list or null",
			in:   withHeader("  switches:", "    - name: [a, b]", "      platform:", "  hosts:", "    - name: h1", "      address: [192.0.2.1]"),
			want: []string{
				`f.yaml:5:13: RF003 error spec.switches[0].name: expected a string, got a list`,
				`f.yaml:6:16: RF003 error spec.switches[0].platform: expected a string, got null`,
				`f.yaml:9:16: RF003 error spec.hosts[0].address: expected a scalar value, got a list`,
			},
		},
		{
			name: "integer out of range and float for integer",
			in:   withHeader("  lossless:", "    vlan: 99999999999999999999", "    mtu: {host: 9000.5, switch: 9216.0}"),
			want: []string{
				`f.yaml:5:11: RF003 error spec.lossless.vlan: expected an integer, got "99999999999999999999"`,
				`f.yaml:6:17: RF003 error spec.lossless.mtu.host: expected an integer, got "9000.5"`,
				`f.yaml:6:33: RF009 error spec.lossless.mtu.switch: switch MTU "9216.0" must be "max" or a whole number`,
			},
		},
		{
			name: "duplicate keys in a struct, a map and inline attributes",
			in: lines(
				"apiVersion: rocefab.io/v1alpha1",
				"kind: Fabric",
				"metadata:",
				"  labels: {site: a, site: b}",
				"spec:",
				"  lossless:",
				"    vlan: 100",
				"    vlan: 200",
				"  switches:",
				"    - name: s1",
				"      platform: eos",
				"      address: 192.0.2.1",
				"      platform: nxos",
			),
			want: []string{
				`f.yaml:4:21: RF004 error metadata.labels.site: duplicate key "site"`,
				`f.yaml:8:5: RF004 error spec.lossless.vlan: duplicate key "vlan" (first at line 7)`,
				`f.yaml:13:7: RF004 error spec.switches[0].platform: duplicate key "platform" (first at line 11)`,
			},
		},
		{
			name: "required fields",
			in: withHeader(
				"  groups:",
				"    - platform: eos",
				"  switches:",
				"    - null",
				"    - name: s1",
				"      ports:",
				"        - mode: trunk",
				"  links:",
				"    - {a: s1:Ethernet1}",
				"  probe:",
				"    list:",
				"      - {from: h1}",
			),
			want: []string{
				`f.yaml:5:7: RF005 error spec.groups[0].name: required field "name" is missing`,
				`f.yaml:7:7: RF005 error spec.switches[0].name: required field "name" is missing`,
				`f.yaml:10:11: RF005 error spec.switches[1].ports[0].names: required field "names" is missing`,
				`f.yaml:12:7: RF005 error spec.links[0].b: required field "b" is missing`,
				`f.yaml:15:9: RF005 error spec.probe.list[0].to: required field "to" is missing`,
			},
		},
		{
			name: "missing top-level fields",
			in:   lines("metadata: {name: x}"),
			want: []string{
				`f.yaml:1:1: RF005 error apiVersion: required field "apiVersion" is missing`,
				`f.yaml:1:1: RF005 error kind: required field "kind" is missing`,
				`f.yaml:1:1: RF005 error spec: required field "spec" is missing`,
			},
		},
		{
			name: "apiVersion and kind",
			in:   lines("apiVersion: rocefab.io/v1", "kind: Fabrik", "spec: {}"),
			want: []string{
				`f.yaml:1:1: RF006 error apiVersion: apiVersion "rocefab.io/v1" is not supported (want rocefab.io/v1alpha1)`,
				`f.yaml:2:1: RF006 error kind: kind "Fabrik" is not supported (want Fabric)`,
			},
		},
		{
			name: "enums, including inline device attributes",
			in: withHeader(
				"  lossless:",
				"    profile: lossless",
				"    trust: dscpp",
				"    roceMode: v3",
				"    pfc:",
				"      watchdog: {action: pause}",
				"  groups:",
				"    - name: g1",
				"      transport: telnet",
				"  switches:",
				"    - name: s1",
				"      transport: SSH",
				"      ports:",
				"        - {names: swp1, mode: bridged}",
				"  probe:",
				"    pairs: all",
			),
			want: []string{
				`f.yaml:5:14: RF009 error spec.lossless.profile: "lossless" is not one of dcqcn, pfc-only, ecn-only`,
				`f.yaml:6:12: RF009 error spec.lossless.trust: "dscpp" is not one of dscp, pcp`,
				`f.yaml:7:15: RF009 error spec.lossless.roceMode: "v3" is not one of v2, v1`,
				`f.yaml:9:26: RF009 error spec.lossless.pfc.watchdog.action: "pause" is not one of drop, forward`,
				`f.yaml:12:18: RF009 error spec.groups[0].transport: "telnet" is not one of gnmi, ssh, netlink`,
				`f.yaml:15:18: RF009 error spec.switches[0].transport: "SSH" is not one of gnmi, ssh, netlink`,
				`f.yaml:17:31: RF009 error spec.switches[0].ports[0].mode: "bridged" is not one of routed, trunk, access`,
				`f.yaml:19:12: RF009 error spec.probe.pairs: "all" is not one of cabling, listed`,
			},
		},
		{
			name: "bad address, port range and unit",
			in: withHeader(
				"  lossless:",
				"    ecn:",
				"      minThreshold: 150kbps",
				"      maxThreshold: 1500000",
				"    pfc:",
				"      cableLength: 5",
				"      watchdog: {detectionTime: 200}",
				"  switches:",
				"    - name: s1",
				"      address: 192.0.2.1:99999",
				"      ports:",
				"        - names: Ethernet4-1",
				"        - names: [swp1, swp2 step 2]",
			),
			want: []string{
				`f.yaml:6:21: RF012 error spec.lossless.ecn.minThreshold: unknown unit "kbps" (use B, KB, KiB, MB or MiB)`,
				`f.yaml:7:21: RF012 error spec.lossless.ecn.maxThreshold: size "1500000" has no unit: write e.g. 150000B, 150KB (KB is 1000 bytes) or 150KiB (KiB is 1024 bytes)`,
				`f.yaml:9:20: RF012 error spec.lossless.pfc.cableLength: cable length "5" needs a unit: m or km (e.g. 5m)`,
				`f.yaml:10:33: RF012 error spec.lossless.pfc.watchdog.detectionTime: "200" is not a duration (e.g. 200ms, 1s)`,
				`f.yaml:13:16: RF010 error spec.switches[0].address: address "192.0.2.1:99999": port must be 1..65535`,
				`f.yaml:15:18: RF011 error spec.switches[0].ports[0].names: port range "Ethernet4-1" ends before it starts`,
				`f.yaml:16:18: RF011 error spec.switches[0].ports[1].names: port "swp2 step 2" has a step but no range (e.g. Ethernet0-124 step 4)`,
			},
		},
		{
			name: "bad speed and cable length",
			in: withHeader(
				"  switches:",
				"    - name: s1",
				"      portSpeed: 100",
				"      ports:",
				"        - {names: swp1, speed: 100GB}",
				"  links:",
				"    - {a: h1:eth0, b: s1:swp1, length: 30ft}",
			),
			want: []string{
				`f.yaml:6:18: RF012 error spec.switches[0].portSpeed: port speed "100" needs a unit: write e.g. 100G, 400G, 25G (Gb/s) or unknown`,
				`f.yaml:8:32: RF012 error spec.switches[0].ports[0].speed: port speed "100GB" is in bytes; speeds are bits per second: write 100G`,
				`f.yaml:10:40: RF012 error spec.links[0].length: cable length "30ft" needs a unit: m or km (e.g. 5m)`,
			},
		},
		{
			name: "bad link end",
			in:   withHeader("  links:", "    - {a: h1, b: leaf1:Ethernet1}"),
			want: []string{`f.yaml:5:11: RF011 error spec.links[0].a: link end "h1" must be device:port, e.g. leaf1:Ethernet1/1`},
		},
		{
			name: "document that is not a mapping",
			in:   lines("- a", "- b"),
			want: []string{`f.yaml:1:1: RF003 error (document): expected a mapping, got a list`},
		},
		{
			name: "syntax error keeps yaml's line",
			in:   withHeader("\tswitches: []"),
			want: []string{`f.yaml:4:1: RF001 error (document): found character that cannot start any token`},
		},
		{
			name: "syntax error in a later document keeps the earlier ones",
			in:   lines("apiVersion: rocefab.io/v1alpha1", "kind: Fabric", "spec:", "  lossless: {vlan: 0x}", "---", "a: [b"),
			want: []string{
				`f.yaml:4:20: RF003 error spec.lossless.vlan: expected an integer, got "0x"`,
				`f.yaml:6:1: RF001 error (document): did not find expected ',' or ']'`,
			},
		},
		{
			name: "empty file",
			in:   []byte("# nothing here\n"),
			want: []string{`f.yaml:1:1: RF014 error (document): no intent documents found (the file is empty or holds only comments)`},
		},
		{
			name: "null sections and list items are allowed",
			in:   withHeader("  lossless:", "  switches:", "  hosts: null", "  probe: ~"),
		},
		{
			name: "aliases are followed",
			in: withHeader(
				"  lossless:",
				"    roceDscp: &dscp [26]",
				"    cnp: {dscp: 48}",
				"  groups:",
				"    - name: g1",
				"      overrides: {roceDscp: *dscp}",
			),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := LoadBytes("f.yaml", tt.in)
			if diff := cmp.Diff(tt.want, diagStrings(diags)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeValues checks that values land in the right fields, including
// DeviceAttrs inlined into groups and switches, and the forms each takes.
func TestDecodeValues(t *testing.T) {
	in := withHeader(
		"  lossless:",
		"    vlan: 0x64",
		"    roceDscp: [26, 24]",
		"    ecn: {minThreshold: 150KB, maxThreshold: 1.5MB, markProbability: 50}",
		"    pfc: {enabled: false, cableLength: 100m, watchdog: {detectionTime: 200ms}}",
		"    mtu: {switch: 9216, host: 9000}",
		"  groups:",
		"    - name: leaves",
		"      platform: sonic",
		"      asic: mellanox",
		"      credentials: {username: rocefab, passwordEnv: SW_PASS}",
		"      overrides: {noDropPriority: 4}",
		"  switches:",
		"    - name: leaf1",
		"      group: leaves",
		"      transport: gnmi",
		"      address: '[2001:db8::11]:8080'",
		"      tls: {serverName: leaf1.example.net}",
		"      junos: {queueBufferSize: 10MB, fillLevelMin: 1%, fillLevelMax: 10}",
		"      openconfig: {pfcFallback: {platform: eos}}",
		"      ports:",
		"        - names: [Ethernet0-8 step 4, Ethernet64]",
		"          mode: trunk",
		"          lag: PortChannel1",
		"  probe:",
		"    maxLossPercent: 1",
		"    duration: 2s",
	)
	docs, diags := Parse("f.yaml", in)
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics: %v", diagStrings(diags))
	}
	spec := docs[0].Spec
	l := spec.Lossless
	if *l.VLAN != 100 || l.RoCEDSCP[1] != 24 || l.ECN.MinThreshold.N != 150000 || l.ECN.MaxThreshold.N != 1500000 ||
		*l.ECN.MarkProbability != 50 || *l.PFC.Enabled || l.PFC.CableLength.N != 100 ||
		l.PFC.Watchdog.DetectionTime.D.String() != "200ms" || l.MTU.Switch.Value != 9216 || *l.MTU.Host != 9000 {
		t.Errorf("lossless decoded wrongly: %+v", l)
	}
	g := spec.Groups[0]
	if g.Platform != "sonic" || g.ASIC != "mellanox" || g.Credentials.PasswordEnv != "SW_PASS" || *g.Overrides.NoDropPriority != 4 {
		t.Errorf("group decoded wrongly: %+v", g)
	}
	if !g.Has("platform") || !g.Has("asic") || g.Has("model") {
		t.Errorf("group Has: inline fields must be recorded as written")
	}
	sw := spec.Switches[0]
	if sw.Transport != "gnmi" || sw.Address.Host != "2001:db8::11" || sw.Address.Port != 8080 || sw.TLS.ServerName != "leaf1.example.net" ||
		!sw.Has("junos") ||
		sw.OpenConfig.PFCFallback.Platform != "eos" {
		t.Errorf("switch decoded wrongly: %+v", sw)
	}
	if q := decodeSection(t, sw.Sections, "junos"); q.QueueBufferSize.N != 10000000 || q.FillLevelMin.N != 1 || q.FillLevelMax.N != 10 {
		t.Errorf("junos section decoded wrongly: %+v", q)
	}
	if got := sw.Ports[0].Names.Names; strings.Join(got, ",") != "Ethernet0,Ethernet4,Ethernet8,Ethernet64" {
		t.Errorf("port names = %v", got)
	}
	if sw.Ports[0].Mode != "trunk" || sw.Ports[0].LAG != "PortChannel1" {
		t.Errorf("port = %+v", sw.Ports[0])
	}
	if spec.Probe.MaxLossPercent == nil || *spec.Probe.MaxLossPercent != 1 || spec.Probe.Duration.D.String() != "2s" {
		t.Errorf("probe = %+v", spec.Probe)
	}
	// Positions: the key of each written field, and the object's own start.
	if got := sw.At("transport"); got != (Loc{File: "f.yaml", Line: 19, Col: 7, Field: "spec.switches[0].transport"}) {
		t.Errorf("At(transport) = %+v", got)
	}
	if got := sw.At("model"); got != (Loc{File: "f.yaml", Line: 17, Col: 7, Field: "spec.switches[0].model"}) {
		t.Errorf("At(model), not written = %+v", got)
	}
	if got := sw.Ports[0].Loc(); got != (Loc{File: "f.yaml", Line: 25, Col: 11, Field: "spec.switches[0].ports[0]"}) {
		t.Errorf("port Loc = %+v", got)
	}
	if got := l.ECN.At("maxThreshold"); got != (Loc{File: "f.yaml", Line: 7, Col: 32, Field: "spec.lossless.ecn.maxThreshold"}) {
		t.Errorf("ecn At(maxThreshold) = %+v", got)
	}
}

func TestDiagnosticFormats(t *testing.T) {
	d := Diagnostic{Loc: Loc{File: "fabric.yaml", Line: 14, Col: 5, Field: "spec.lossless.ecn.minThreshold"},
		Code: CodeBadUnit, Severity: SeverityError, Message: `unknown unit "kbps"`}
	if got, want := d.String(), `fabric.yaml:14:5: RF012 error spec.lossless.ecn.minThreshold: unknown unit "kbps"`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	js, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"file":"fabric.yaml","line":14,"column":5,"code":"RF012","severity":"error","field":"spec.lossless.ecn.minThreshold","message":"unknown unit \"kbps\""}`
	if string(js) != want {
		t.Errorf("JSON = %s, want %s", js, want)
	}
	w := Diagnostic{Loc: Loc{File: "a.yaml"}, Code: "RF014", Severity: SeverityWarning, Message: "m"}
	if got := w.String(); got != "a.yaml: RF014 warning (document): m" {
		t.Errorf("String() without a line = %q", got)
	}
}

func TestDiagnosticsSortCountErr(t *testing.T) {
	ds := Diagnostics{
		{Loc: Loc{File: "b.yaml", Line: 1, Col: 1}, Code: "RF002"},
		{Loc: Loc{File: "a.yaml", Line: 9, Col: 1}, Code: "RF003", Severity: SeverityWarning},
		{Loc: Loc{File: "a.yaml", Line: 2, Col: 7}, Code: "RF004"},
		{Loc: Loc{File: "a.yaml", Line: 2, Col: 3}, Code: "RF009"},
		{Loc: Loc{File: "a.yaml", Line: 2, Col: 3}, Code: "RF005"},
	}
	ds.Sort()
	var order []string
	for _, d := range ds {
		order = append(order, d.Code)
	}
	if got := strings.Join(order, " "); got != "RF005 RF009 RF004 RF003 RF002" {
		t.Errorf("sorted = %s", got)
	}
	if e, w := ds.Count(); e != 4 || w != 1 {
		t.Errorf("Count() = %d, %d", e, w)
	}
	err := ds.Err()
	if err == nil || !strings.Contains(err.Error(), "a.yaml:2:3: RF005 error (document): ") || strings.Count(err.Error(), "\n") != 4 {
		t.Errorf("Err() = %v", err)
	}
	if warnOnly := (Diagnostics{{Severity: SeverityWarning}}); warnOnly.Err() != nil || warnOnly.HasErrors() {
		t.Error("warnings alone are not an error")
	}
}

// TestBadValuesStayUnset: a value that does not decode is left unset, so
// resolution applies the default instead of a zero, and nothing downstream
// reports the zero again.
func TestBadValuesStayUnset(t *testing.T) {
	fab, diags := LoadBytes("f.yaml", withHeader(
		"  lossless:",
		"    vlan: 100",
		"    roceDscp: [26, x]",
		"    ecn: {markProbability: 100%, maxThreshold: 1.5Mb, minThreshold: 100KB}",
		"  switches:",
		"    - {name: s1, address: 192.0.2.300, ports: [{names: swp1}]}",
		"  links:",
		"    - {a: s1, b: s1:swp1}",
	))
	if len(diags) != 5 {
		t.Fatalf("want 5 loader diagnostics, got %v", diagStrings(diags))
	}
	l := fab.Lossless
	if l.RoCEDSCP != nil || l.ECN.MarkProbability != nil || l.ECN.MaxThreshold != nil || fab.Switches[0].Address != nil {
		t.Errorf("bad values were set: dscp %v, mark %v, max %v, address %v", l.RoCEDSCP, l.ECN.MarkProbability, l.ECN.MaxThreshold, fab.Switches[0].Address)
	}
	if *l.VLAN != 100 || l.ECN.MinThreshold.N != 100000 {
		t.Error("good values beside bad ones were lost")
	}
	r, rdiags := Resolve(fab)
	if len(rdiags) != 0 || len(r.Links) != 0 {
		t.Errorf("a link end that did not parse is reported again: %v", diagStrings(rdiags))
	}
	if p := r.Policy; !slices.Equal(p.RoCEDSCP, []int{26}) || p.MarkProbability != 100 || p.ECNMax != 1500000 {
		t.Errorf("defaults did not apply: %+v", p)
	}
	if !fab.Switches[0].Has("address") {
		t.Error("a written but invalid address must still count as written")
	}
}

// queueSettings stands for a platform's own section type.
type queueSettings struct {
	Src
	QueueBufferSize *Bytes   `yaml:"queueBufferSize"`
	FillLevelMin    *Percent `yaml:"fillLevelMin"`
	FillLevelMax    *Percent `yaml:"fillLevelMax"`
}

// decodeSection decodes the section named name; a section not written
// decodes to the zero value.
func decodeSection(t *testing.T, s Sections, name string) queueSettings {
	t.Helper()
	var q queueSettings
	if sec, ok := s.Section(name); ok {
		if diags := sec.Decode(&q); len(diags) > 0 {
			t.Fatalf("section %s: %v", name, diagStrings(diags))
		}
	}
	return q
}
