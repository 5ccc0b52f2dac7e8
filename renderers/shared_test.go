package renderers

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// TestCLIBytesPair: NX-OS and EOS thresholds carry one unit keyword for
// both (every vendor example does: Cisco's RoCE script "150 kbytes ... 1500
// kbytes", AVD's "320 kbytes ... 320 kbytes"), the largest dividing both
// exactly; no value is approximated.
func TestCLIBytesPair(t *testing.T) {
	for _, tc := range []struct {
		lo, hi uint64
		want   string
	}{
		{150000, 1500000, "150 kbytes|1500 kbytes"},
		{1000000, 3000000, "1 mbytes|3 mbytes"},
		{150000, 3000000, "150 kbytes|3000 kbytes"},
		{153600, 3000000, "153600 bytes|3000000 bytes"},
		{1, 2, "1 bytes|2 bytes"},
		{0, 1000, "0 bytes|1000 bytes"},
	} {
		lo, hi := CLIBytesPair(tc.lo, tc.hi)
		if got := lo + "|" + hi; got != tc.want {
			t.Errorf("CLIBytesPair(%d, %d) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestDecimalSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		200 * time.Millisecond: "0.2", 2 * time.Second: "2", 1110 * time.Millisecond: "1.11",
		50 * time.Millisecond: "0.05", 60 * time.Second: "60", time.Millisecond: "0.001",
	} {
		if got := DecimalSeconds(d); got != want {
			t.Errorf("DecimalSeconds(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestTimeRangeCheck(t *testing.T) {
	r := TimeRange{Step: 10 * time.Millisecond, Min: 10 * time.Millisecond, Max: time.Minute, Form: "seconds with at most two decimals"}
	for d, bad := range map[time.Duration]string{
		0: "", 200 * time.Millisecond: "", 205 * time.Millisecond: "two decimals", 2 * time.Minute: "maximum", -time.Second: "negative",
	} {
		err := r.Check("eos", "detection", d)
		if (bad == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), bad)) {
			t.Errorf("Check(%s) = %v, want %q", d, err, bad)
		}
	}
	if err := (TimeRange{}).Check("nxos", "detection", 205*time.Millisecond); err != nil {
		t.Errorf("a time the platform does not render is its default, not an error: %v", err)
	}
}

func TestSwitchMTU(t *testing.T) {
	if got := SwitchMTU(intent.Policy{SwitchMTU: intent.SwitchMTU{Max: true}}, 9214); got != 9214 {
		t.Errorf("max: %d, want the ceiling 9214", got)
	}
	if got := SwitchMTU(intent.Policy{SwitchMTU: intent.SwitchMTU{Value: 4200}}, 9214); got != 4200 {
		t.Errorf("value: %d, want 4200", got)
	}
}

func TestHasSwitchedPort(t *testing.T) {
	routed, access := intent.Port{Name: "e1", Mode: "routed"}, intent.Port{Name: "e2", Mode: "access"}
	if HasSwitchedPort([]intent.Port{routed}) || HasSwitchedPort(nil) {
		t.Error("routed ports only: no VLAN needed")
	}
	if !HasSwitchedPort([]intent.Port{routed, access}) {
		t.Error("an access port needs the VLAN")
	}
}

func TestDSCPClasses(t *testing.T) {
	p := intent.Policy{RoCEDSCP: []int{26, 70}, CNPDSCP: 48, NoDropPriority: 3, CNPPriority: 6}
	tc := DSCPClasses(p)
	for d, c := range tc {
		switch {
		case d == 26 && c != 3, d == 48 && c != 6:
			t.Errorf("DSCP %d → class %d", d, c)
		case d != 26 && c == 3, d != 48 && c == 6:
			t.Errorf("DSCP %d shares a RoCE or CNP class: %d", d, c)
		case d != 26 && d != 48 && d>>3 != 3 && d>>3 != 6 && c != d>>3:
			t.Errorf("DSCP %d → class %d, want the default %d", d, c, d>>3)
		}
	}
}

func TestCheckDSCPs(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    intent.Policy
		want string
	}{
		{"valid", intent.Policy{RoCEDSCP: []int{26, 28}, CNPDSCP: 48}, ""},
		{"CNP out of range", intent.Policy{RoCEDSCP: []int{26}, CNPDSCP: 64}, "CNP DSCP 64 is outside 0..63"},
		{"RoCE out of range", intent.Policy{RoCEDSCP: []int{-1}, CNPDSCP: 48}, "RoCE DSCP -1 is outside 0..63"},
		{"RoCE is CNP", intent.Policy{RoCEDSCP: []int{26, 48}, CNPDSCP: 48}, "DSCP 48 is both a RoCE and the CNP code point"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckDSCPs(tc.p)
			if (err == nil) != (tc.want == "") || (err != nil && err.Error() != tc.want) {
				t.Fatalf("CheckDSCPs: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPlanClasses(t *testing.T) {
	pfc := func(prios ...int) intent.Policy {
		return intent.Policy{Profile: intent.ProfileDCQCN, PFCEnabled: true, PFCPriorities: prios, NoDropPriority: 3, CNPPriority: 6}
	}
	for _, tc := range []struct {
		name string
		p    intent.Policy
		want TrafficClasses
		err  string
	}{
		{"one lossless class", pfc(3), TrafficClasses{RoCE: 3, CNP: 6, Lossless: []int{3}, Other: 0}, ""},
		{"lossless sorted and deduplicated", pfc(4, 3, 4), TrafficClasses{RoCE: 3, CNP: 6, Lossless: []int{3, 4}, Other: 0}, ""},
		{"other skips taken classes", pfc(0, 3), TrafficClasses{RoCE: 3, CNP: 6, Lossless: []int{0, 3}, Other: 1}, ""},
		{"PFC off", intent.Policy{Profile: intent.ProfileECNOnly, PFCPriorities: []int{3}, NoDropPriority: 3, CNPPriority: 6},
			TrafficClasses{RoCE: 3, CNP: 6, Other: 0}, ""},
		{"priority out of range", intent.Policy{NoDropPriority: 8, CNPPriority: 6}, TrafficClasses{}, "priority 8 is outside 0..7"},
		{"CNP is no-drop", intent.Policy{NoDropPriority: 3, CNPPriority: 3}, TrafficClasses{}, "CNP priority 3 equals the no-drop priority"},
		{"PFC on CNP", pfc(3, 6), TrafficClasses{}, "PFC priority 6 is the CNP priority"},
		{"no class left", pfc(0, 1, 2, 3, 4, 5, 7), TrafficClasses{}, "no traffic class is left for other traffic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanClasses(tc.p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.RoCE != tc.want.RoCE || got.CNP != tc.want.CNP || got.Other != tc.want.Other || !slices.Equal(got.Lossless, tc.want.Lossless) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	c := TrafficClasses{RoCE: 3, CNP: 6, Lossless: []int{3, 4}, Other: 0}
	for prio, want := range map[int]int{3: 3, 4: 4, 6: 6, 1: 0, 7: 0} {
		if got := c.ClassOf(prio); got != want {
			t.Errorf("ClassOf(%d) = %d, want %d", prio, got, want)
		}
	}
}

func TestExpandVLANs(t *testing.T) {
	tree, err := devcfg.ParseIndented("vlan 1,10-12\n  name storage\nvlan 11\n  state active\ninterface e1\nvlan 1-5000\nvlan 7,x\n")
	if err != nil {
		t.Fatal(err)
	}
	got := (&devcfg.Tree{Nodes: ExpandVLANs(tree.Nodes)}).Text(2)
	want := "vlan 1\n  name storage\nvlan 10\n  name storage\nvlan 11\n  name storage\n  state active\nvlan 12\n  name storage\n" +
		"interface e1\nvlan 1-5000\nvlan 7,x\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestWatchdogMillis(t *testing.T) {
	for _, tc := range []struct {
		d         time.Duration
		want, err string
	}{
		{0, "200", ""},
		{400 * time.Millisecond, "400", ""},
		{1500 * time.Microsecond, "", "detection time 1.5ms is not a whole number of milliseconds"},
		{10 * time.Second, "", "detection time 10s is outside SONiC's 100..5000 ms"},
		{50 * time.Millisecond, "", "outside SONiC's 100..5000 ms"},
	} {
		got, err := WatchdogMillis("SONiC", "detection", tc.d, 200, 100, 5000)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("WatchdogMillis(%s) = %q, %v; want %q, %q", tc.d, got, err, tc.want, tc.err)
		}
	}
}
