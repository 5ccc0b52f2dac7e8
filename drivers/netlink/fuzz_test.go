package netlink

import (
	"strings"
	"testing"
	"unicode"
)

// FuzzParsePause: the pause step's read-back value is parsed to restore
// and compare it. Accepted values carry only 0/1 flags, print back in the
// read-back form, and that form parses to the same flags.
func FuzzParsePause(f *testing.F) {
	// Seeds in testdata/fuzz/FuzzParsePause: read-back values, partial and
	// reordered ones, and malformed values.
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePause(s)
		if err != nil {
			return
		}
		if p.Autoneg > 1 || p.RxPause > 1 || p.TxPause > 1 || p.Cmd != 0 {
			t.Fatalf("parsePause(%q) = %+v", s, p)
		}
		text := formatPause(p)
		back, err := parsePause(text)
		if err != nil || back != p {
			t.Fatalf("parsePause(%q) = %+v prints as %q, which parses to %+v, %v", s, p, text, back, err)
		}
		// Each flag is the last value its key was given, off when absent.
		last := map[string]string{"autoneg": "off", "rx": "off", "tx": "off"}
		for _, f := range strings.Fields(s) {
			k, v, _ := strings.Cut(f, "=")
			last[k] = v
		}
		if want := "autoneg=" + last["autoneg"] + " rx=" + last["rx"] + " tx=" + last["tx"]; text != want {
			t.Fatalf("parsePause(%q) prints as %q, want %q", s, text, want)
		}
	})
}

// FuzzParseTrustFile: qos/trust prints the mode alone or at the end of a
// sentence. The result is one word, empty only for a blank file, and does
// not change when the sentence or a newline is added around it.
func FuzzParseTrustFile(f *testing.F) {
	// Seeds in testdata/fuzz/FuzzParseTrustFile: both MLNX_OFED forms,
	// blank files, and a mode followed by a full stop.
	f.Fuzz(func(t *testing.T, s string) {
		mode := parseTrustFile(s)
		words := strings.Fields(strings.ToLower(s))
		if mode == "" && len(words) > 0 && words[len(words)-1] != "." {
			t.Fatalf("parseTrustFile(%q) is empty", s)
		}
		if strings.IndexFunc(mode, unicode.IsSpace) >= 0 || strings.ToLower(mode) != mode {
			t.Fatalf("parseTrustFile(%q) = %q: not one lower-case word", s, mode)
		}
		if mode == "" {
			return
		}
		for _, around := range []string{"Priority trust state: " + s, s + "\n", "\n" + s} {
			if got := parseTrustFile(around); got != mode {
				t.Fatalf("parseTrustFile(%q) = %q, but %q gives %q", s, mode, around, got)
			}
		}
	})
}
