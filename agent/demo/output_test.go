package demo

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestCondensePlan(t *testing.T) {
	long := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "  + qos map dscp %d to traffic-class 0\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, in, want string
	}{
		{"short plan unchanged",
			"Plan for fabric demo\n\nsw1 (eos via ssh): 1 to add\n  + interface Ethernet1 > mtu 9214\n\nSummary: 1 device(s).\n",
			"Plan for fabric demo\n\nsw1 (eos via ssh): 1 to add\n  + interface Ethernet1 > mtu 9214\n\nSummary: 1 device(s).\n"},
		{"long device keeps the first changes, MTU changes and notes",
			"sw1 (eos): 10 to add\n" + long(8) + "  ~ interface Ethernet1 > mtu 1500 -> mtu 9214\n  + interface Ethernet2 > mtu 9214\n  note: a note\n\nSummary: x\n",
			"sw1 (eos): 10 to add\n" + long(3) + "  ~ interface Ethernet1 > mtu 1500 -> mtu 9214\n  + interface Ethernet2 > mtu 9214\n" +
				"  ... and 5 more change(s), not shown here (rocefab plan prints them all)\n  note: a note\n\nSummary: x\n"},
		{"a block follows its change",
			"sw1 (nxos): 5 to add\n  + a\n      a1\n  + b\n      b1\n  + c\n      c1\n  + d\n      d1\nsw2 (eos): no changes\n",
			"sw1 (nxos): 5 to add\n  + a\n      a1\n  + b\n      b1\n  + c\n      c1\n" +
				"  ... and 1 more change(s), not shown here (rocefab plan prints them all)\nsw2 (eos): no changes\n"},
		{"counts restart per device",
			"a: 4\n" + long(4) + "b: 4\n" + long(4),
			"a: 4\n" + long(3) + "  ... and 1 more change(s), not shown here (rocefab plan prints them all)\n" +
				"b: 4\n" + long(3) + "  ... and 1 more change(s), not shown here (rocefab plan prints them all)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := condensePlan(tc.in, 3); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

var moreLine = regexp.MustCompile(`^  \.\.\. and (\d+) more change\(s\)`)

// Every change is either shown or counted, and every line that is not a
// change (headlines, notes, the summary) survives in order.
func FuzzCondensePlan(f *testing.F) {
	f.Add("Plan for fabric demo\n\nsw1 (eos): 2 to add\n  + a\n  ~ mtu 1 -> 2\n  note: n\n\nSummary: 1\n", 1)
	f.Add("sw (nxos): 3\n  + a\n      a1\n  - b\n  + c\n    c1\n  ! conflict\n", 0)
	f.Add("", 5)
	f.Fuzz(func(t *testing.T, in string, per int) {
		per = per % 50
		got := condensePlan(in, per)
		isKept := func(l string) bool {
			return l == "" || !strings.HasPrefix(l, " ") || strings.HasPrefix(l, "  note: ") ||
				strings.HasPrefix(l, "  warning: ") || strings.HasPrefix(l, "  ! ")
		}
		var inKept, outKept []string
		changesIn := 0
		for _, l := range strings.Split(strings.TrimRight(in, "\n"), "\n") {
			if isChange(l) {
				changesIn++
			} else if isKept(l) {
				inKept = append(inKept, l)
			}
		}
		changesOut := 0
		for _, l := range strings.Split(strings.TrimRight(got, "\n"), "\n") {
			if m := moreLine.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				changesOut += n
				continue
			}
			if isChange(l) {
				changesOut++
			} else if isKept(l) {
				outKept = append(outKept, l)
			}
		}
		if changesOut != changesIn {
			t.Fatalf("%d changes in, %d shown or counted out\nin:\n%q\nout:\n%q", changesIn, changesOut, in, got)
		}
		if strings.Join(inKept, "\n") != strings.Join(outKept, "\n") {
			t.Fatalf("structure lines changed\nin:\n%q\nout:\n%q", in, got)
		}
	})
}
