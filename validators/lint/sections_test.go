package lint_test

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

// TestPlatformSections: a platform's own section is decoded through the
// registry with the loader's diagnostics, on any switch or group; a key
// that names no platform taking one is an unknown field.
func TestPlatformSections(t *testing.T) {
	in := `apiVersion: rocefab.io/v1alpha1
kind: Fabric
spec:
  groups:
    - name: g
      platform: junos
      junoss: {queueBufferSize: 10MB}
      platfrom: x
    - {name: unused, platform: eos, junos: {queueBufferSize: 1XB}}
  switches:
    - name: leaf1
      group: g
      address: 192.0.2.11
      eos: {foo: 1}
      junos:
        queueBufferSize: 15MB
        fillLevelMin: 1
        fillLevelMin: 2
        colour: red
      ports: [{names: et-0/0/0-3}]
    - {name: leaf2, platform: eos, address: 192.0.2.12, junos: 15MB, ports: [{names: Ethernet1-4}]}
`
	_, diags := lint.ValidateBytes(all.Renderers(), "f.yaml", []byte(in))
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	for _, want := range []string{
		`f.yaml:7:7: RF002 error spec.groups[0].junoss: unknown field "junoss" (did you mean "junos"?)`,
		`f.yaml:8:7: RF002 error spec.groups[0].platfrom: unknown field "platfrom" (did you mean "platform"?)`,
		`f.yaml:9:62: RF012 error spec.groups[1].junos.queueBufferSize: unknown unit "XB"`,
		`f.yaml:14:7: RF002 error spec.switches[0].eos: unknown field "eos"`,
		`f.yaml:18:9: RF004 error spec.switches[0].junos.fillLevelMin: duplicate key "fillLevelMin" (first at line 17)`,
		`f.yaml:19:9: RF002 error spec.switches[0].junos.colour: unknown field "colour"`,
		`f.yaml:21:64: RF003 error spec.switches[1].junos: expected a mapping, got a scalar`,
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, want)
		}
		if !found {
			t.Errorf("missing %s\ngot:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 7 {
		t.Errorf("got %d diagnostics, want 7:\n%s", len(got), strings.Join(got, "\n"))
	}
}
