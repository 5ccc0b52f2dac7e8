package iosstyle

import (
	"slices"
	"testing"

	"github.com/rocefab/rocefab/renderers"
)

func TestMemberOwner(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trunk   bool
		implied []string
	}{
		// On a trunk, "allowed vlan all" already holds the VLAN.
		{"trunk", true, []string{"switchport trunk allowed vlan all"}},
		// Elsewhere it is the device default and never rocefab's.
		{"access", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := MemberOwner([]string{"interface Ethernet1"}, 100, tc.trunk)
			if o.Prefix != "switchport trunk allowed vlan add 100" || !o.Exact || !slices.Equal(o.Parents, []string{"interface Ethernet1"}) {
				t.Errorf("owner = %+v", o)
			}
			if !slices.Equal(o.ImpliedBy, tc.implied) {
				t.Errorf("ImpliedBy = %q, want %q", o.ImpliedBy, tc.implied)
			}
		})
	}
}

func TestLAGID(t *testing.T) {
	nums := renderers.LAGNumbers{Platform: "X", Example: "Port-Channel10", Min: 1, Max: 20}
	for _, tc := range []struct {
		lag, want string
		ok        bool
	}{
		{"Port-Channel7", "7", true},
		{"po020", "20", true},
		{"Port-Channel0", "", false},
		{"Port-Channel21", "", false},
		{"lag", "", false},
	} {
		got, err := LAGID("sw1", "Ethernet1", tc.lag, nums)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("LAGID(%q) = %q, %v; want %q, ok %v", tc.lag, got, err, tc.want, tc.ok)
		}
	}
}
