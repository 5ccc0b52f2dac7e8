package intent

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// wantCode asserts that err is a coded error with the given code and that its
// message contains every fragment.
func wantCode(t *testing.T, err error, code string, fragments ...string) {
	t.Helper()
	var ce *codedError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v: want a coded %s error", err, code)
	}
	if ce.code != code {
		t.Errorf("code = %s, want %s (%v)", ce.code, code, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("message %q does not contain %q", err.Error(), f)
		}
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		code string // "" when it parses
		msg  string
	}{
		{in: "150000B", want: 150000},
		{in: "150000 B", want: 150000},
		{in: "1 byte", want: 1},
		{in: "2bytes", want: 2},
		{in: "150KB", want: 150000},
		{in: "150kB", want: 150000},
		{in: "150kb", code: CodeBadUnit, msg: `unit "kb" is bits; sizes are in bytes: write kB`},
		{in: "1.5Mb", code: CodeBadUnit, msg: `unit "Mb" is bits; sizes are in bytes: write MB`},
		{in: "150000b", code: CodeBadUnit, msg: `unit "b" is bits`},
		{in: "1kib", want: 1024},
		{in: "1500KB", want: 1500000},
		{in: "1KiB", want: 1024},
		{in: "146.5KiB", want: 150016},
		{in: "1.5KB", want: 1500},
		{in: "0.5KiB", want: 512},
		{in: "15MB", want: 15000000},
		{in: "1MiB", want: 1048576},
		{in: "1.5MiB", want: 1572864},
		{in: "2GB", want: 2000000000},
		{in: "1GiB", want: 1 << 30},
		{in: "0B", want: 0},
		{in: "0.5B", code: CodeBadUnit, msg: "is not a whole number of bytes"},
		{in: "1.0001KB", code: CodeBadUnit, msg: "is not a whole number of bytes"},
		{in: "0.1KiB", code: CodeBadUnit, msg: "is not a whole number of bytes"},
		{in: "150000", code: CodeBadUnit, msg: `size "150000" has no unit`},
		{in: "150kbps", code: CodeBadUnit, msg: `unknown unit "kbps"`},
		{in: "150 kbps", code: CodeBadUnit, msg: `unknown unit "kbps"`},
		{in: "150K", code: CodeBadUnit, msg: `unknown unit "K"`},
		{in: "KB", code: CodeBadUnit, msg: "is not a size"},
		{in: "", code: CodeBadUnit, msg: "is not a size"},
		{in: "-5KB", code: CodeBadUnit, msg: "is not a size"},
		{in: "1.2.3KB", code: CodeBadUnit, msg: "is not a non-negative number"},
		{in: "99999999999GB", code: CodeBadUnit, msg: "is too large"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var b Bytes
			err := b.parseScalar(tt.in, "!!str")
			if tt.code != "" {
				wantCode(t, err, tt.code, tt.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.N != tt.want {
				t.Errorf("%s = %d bytes, want %d", tt.in, b.N, tt.want)
			}
		})
	}
}

func TestBytesString(t *testing.T) {
	if got := (Bytes{N: 150000}).String(); got != "150000B" {
		t.Errorf("String() = %q", got)
	}
}

func TestMeters(t *testing.T) {
	tests := []struct {
		in   string
		want int
		err  bool
	}{
		{in: "5m", want: 5},
		{in: "5 m", want: 5},
		{in: "300M", want: 300},
		{in: "1km", want: 1000},
		{in: "1.5km", want: 1500},
		{in: "0m", want: 0},
		{in: "5", err: true},
		{in: "5ft", err: true},
		{in: "1.5m", err: true},
		{in: "m", err: true},
		{in: "2000km", err: true}, // beyond any cable
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var m Meters
			err := m.parseScalar(tt.in, "!!str")
			if tt.err {
				wantCode(t, err, CodeBadUnit, "cable length")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.N != tt.want {
				t.Errorf("%s = %dm, want %dm", tt.in, m.N, tt.want)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{in: "200ms", want: 200 * time.Millisecond},
		{in: "1s", want: time.Second},
		{in: "1m30s", want: 90 * time.Second},
		{in: " 5s ", want: 5 * time.Second},
		{in: "0s", want: 0},
		{in: "200", err: true},
		{in: "-1s", err: true},
		{in: "soon", err: true},
		{in: "", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d Duration
			err := d.parseScalar(tt.in, "!!str")
			if tt.err {
				wantCode(t, err, CodeBadUnit, "is not a duration")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.D != tt.want {
				t.Errorf("%s = %v, want %v", tt.in, d.D, tt.want)
			}
			if d.String() != tt.want.String() {
				t.Errorf("String() = %q", d.String())
			}
		})
	}
}

func TestSwitchMTU(t *testing.T) {
	tests := []struct {
		in, tag string
		want    SwitchMTU
		err     bool
	}{
		{in: "max", tag: "!!str", want: SwitchMTU{Max: true}},
		{in: "MAX", tag: "!!str", want: SwitchMTU{Max: true}},
		{in: "9216", tag: "!!int", want: SwitchMTU{Value: 9216}},
		{in: "9214", tag: "!!str", want: SwitchMTU{Value: 9214}},
		{in: "9216.5", tag: "!!float", err: true},
		{in: "9216.0", tag: "!!float", err: true},
		{in: "jumbo", tag: "!!str", err: true},
		{in: "", tag: "!!str", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var m SwitchMTU
			err := m.parseScalar(tt.in, tt.tag)
			if tt.err {
				wantCode(t, err, CodeBadEnum, `must be "max" or a whole number`)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m != tt.want {
				t.Errorf("%s = %+v, want %+v", tt.in, m, tt.want)
			}
		})
	}
	if got := (SwitchMTU{Max: true}).String(); got != "max" {
		t.Errorf("String() = %q, want max", got)
	}
	if got := (SwitchMTU{Value: 9216}).String(); got != "9216" {
		t.Errorf("String() = %q, want 9216", got)
	}
}

func TestPercent(t *testing.T) {
	for in, want := range map[string]int{"40": 40, "40%": 40, " 5 % ": 5, "0": 0} {
		var p Percent
		if err := p.parseScalar(in, "!!str"); err != nil || p.N != want {
			t.Errorf("%q = %d, %v; want %d", in, p.N, err, want)
		}
	}
	for _, in := range []string{"forty", "40.5%", "%"} {
		var p Percent
		wantCode(t, p.parseScalar(in, "!!str"), CodeWrongType, "is not a whole percentage")
	}
}

func TestSpeed(t *testing.T) {
	tests := []struct {
		in      string
		mbps    int
		unknown bool
		code    string
		msg     string
	}{
		{in: "100G", mbps: 100000},
		{in: "400g", mbps: 400000},
		{in: "25G", mbps: 25000},
		{in: "2.5G", mbps: 2500},
		{in: "1.6T", mbps: 1600000},
		{in: "100M", mbps: 100},
		{in: "100Gb/s", mbps: 100000},
		{in: "100Gbps", mbps: 100000},
		{in: "100GbE", mbps: 100000},
		{in: " 200G ", mbps: 200000},
		{in: "unknown", unknown: true},
		{in: "Unknown", unknown: true},
		{in: "100000", mbps: 100000}, // SONiC's Mb/s
		{in: "400000", mbps: 400000},
		{in: "100", code: CodeBadUnit, msg: "needs a unit"},
		{in: "123456", code: CodeBadUnit, msg: "needs a unit"},
		{in: "G", code: CodeBadUnit, msg: "needs a unit"},
		{in: "", code: CodeBadUnit, msg: "needs a unit"},
		{in: "100GB", code: CodeBadUnit, msg: "is in bytes; speeds are bits per second: write 100G"},
		{in: "100KB", code: CodeBadUnit, msg: "unknown unit"},
		{in: "100Gig", code: CodeBadUnit, msg: `unknown unit "Gig"`},
		{in: "0G", code: CodeBadUnit, msg: "above zero"},
		{in: "0.5M", code: CodeBadUnit, msg: "whole number of Mb/s"},
		{in: "-100G", code: CodeBadUnit, msg: "needs a unit"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var s Speed
			err := s.parseScalar(tt.in, "!!str")
			if tt.code != "" {
				wantCode(t, err, tt.code, tt.msg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Mbps != tt.mbps || s.Unknown != tt.unknown || !s.Written() {
				t.Errorf("got %+v", s)
			}
		})
	}
	for s, want := range map[Speed]string{{Mbps: 100000}: "100G", {Mbps: 2500}: "2.5G", {Mbps: 1600000}: "1.6T", {Unknown: true}: "unknown", {}: ""} {
		if s.String() != want {
			t.Errorf("%+v.String() = %q, want %q", s, s.String(), want)
		}
	}
}
