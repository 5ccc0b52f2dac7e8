package renderers

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

var testLAGs = LAGNumbers{Platform: "X", Example: "Port-Channel10", Min: 1, Max: 4096}

func TestLAGNumber(t *testing.T) {
	for _, tc := range []struct {
		lag  string
		want int
		err  string
	}{
		{"Port-Channel10", 10, ""},
		{"po1", 1, ""},
		{"4096", 4096, ""},
		{"Port-Channel0", 0, "X port-channel numbers are 1..4096"},
		{"Port-Channel4097", 0, "X port-channel numbers are 1..4096"},
		{"Port-Channel", 0, "has no port-channel number (write e.g. Port-Channel10)"},
		{"", 0, "has no port-channel number"},
	} {
		n, err := testLAGs.Number("Ethernet1", tc.lag)
		if tc.err == "" {
			if err != nil || n != tc.want {
				t.Errorf("Number(%q) = %d, %v; want %d", tc.lag, n, err, tc.want)
			}
			continue
		}
		var pe *PortError
		if !errors.As(err, &pe) || pe.Port != "Ethernet1" || pe.Field != "lag" || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Number(%q) = %d, %v; want a lag PortError with %q", tc.lag, n, err, tc.err)
		}
	}
}

// FuzzLAGNumber: any name gives a number in range or an error, never both.
func FuzzLAGNumber(f *testing.F) {
	for _, s := range []string{"Port-Channel10", "po0", "99999999999999999999", "Po-1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lag string) {
		n, err := testLAGs.Number("Ethernet1", lag)
		if err != nil {
			if n != 0 {
				t.Fatalf("Number(%q) = %d with error %v", lag, n, err)
			}
			return
		}
		// The number is the name's trailing digits, in range.
		digits := lag[len(strings.TrimRight(lag, "0123456789")):]
		if n < testLAGs.Min || n > testLAGs.Max || strings.TrimLeft(digits, "0") != strconv.Itoa(n) {
			t.Fatalf("Number(%q) = %d", lag, n)
		}
	})
}
