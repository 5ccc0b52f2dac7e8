package probe

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseStats feeds arbitrary SEND payloads (they arrive from the
// network) to parseStats. It must not panic; whatever it accepts must
// re-encode to a message that decodes to the same thing.
func FuzzParseStats(f *testing.F) {
	// Seeds in testdata/fuzz/FuzzParseStats: every message kind as the
	// probe sends it, a reply with DSCP counters, replies with a per-flow
	// page (whole, truncated, past its total, a later release's section), a
	// Query for a later page, a data SEND, a future version, truncations and
	// an out-of-range DSCP.
	f.Fuzz(func(t *testing.T, b []byte, peer string) {
		m, err := parseStats(b, peer)
		if !isStatsPayload(b) {
			if !errors.Is(err, errNotStats) {
				t.Fatalf("non-stats payload %x: err = %v", b, err)
			}
			return
		}
		var verr *StatsVersionError
		if errors.As(err, &verr) {
			if verr.Got != b[4] || verr.Want != StatsVersion || verr.Peer != peer || !errors.Is(err, ErrStatsVersion) {
				t.Fatalf("version error %+v for version byte %d", verr, b[4])
			}
			if m.Version != b[4] || m.Token != uint32(b[8])<<24|uint32(b[9])<<16|uint32(b[10])<<8|uint32(b[11]) {
				t.Fatalf("version error without the token to answer: %+v", m)
			}
			return
		}
		if err != nil {
			return
		}
		var again []byte
		switch m.Kind {
		case statsBegin:
			again = appendStatsRequest(nil, m.Kind, m.Token)
			if m.HostMTU != 0 {
				again = appendStatsBegin(nil, m.Token, m.HostMTU)
			}
		case statsQuery:
			again = appendStatsQuery(nil, m.Token, m.FirstFlow)
		case statsError:
			again = appendStatsError(nil, m.Token, m.ErrCode, m.ErrArg)
		case statsReply:
			if m.Stats.Token != m.Token {
				t.Fatalf("reply token %d, header token %d", m.Stats.Token, m.Token)
			}
			again = appendStatsReply(nil, &m.Stats)
		default:
			t.Fatalf("accepted unknown kind %d", m.Kind)
		}
		m2, err := parseStats(again, peer)
		if err != nil {
			t.Fatalf("re-encoded %v message does not parse: %v", m.Kind, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip changed the message:\n%+v\n%+v", m, m2)
		}
	})
}

// FuzzParseTarget: a target the CLI accepts is a valid, unmapped address
// and prints back to text that parses to the same target.
func FuzzParseTarget(f *testing.F) {
	// Seeds in testdata/fuzz/FuzzParseTarget.
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		if !tg.Addr.IsValid() || tg.Addr.Is4In6() {
			t.Fatalf("ParseTarget(%q) = %s", s, tg.Addr)
		}
		if strings.Contains(tg.Name, "=") {
			t.Fatalf("ParseTarget(%q): name %q keeps the separator", s, tg.Name)
		}
		text := tg.Addr.String()
		if tg.Name != "" {
			text = tg.Name + "=" + text
		}
		back, err := ParseTarget(text)
		if err != nil || back != tg {
			t.Fatalf("ParseTarget(%q) = %+v prints as %q, which parses to %+v, %v", s, tg, text, back, err)
		}
		if tg.label() == "" {
			t.Fatalf("ParseTarget(%q): empty label", s)
		}
	})
}

// FuzzReadReport: `rocefab probe` reads reports other hosts wrote. A report
// it accepts has this build's schema, renders as text and Markdown without
// error, and survives a JSON round trip unchanged.
func FuzzReadReport(f *testing.F) {
	// Seeds in testdata/fuzz/FuzzReadReport: the golden report, an empty
	// and an unreachable-only report, another schema, broken JSON.
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadReport(bytes.NewReader(data))
		if err != nil {
			if r != nil {
				t.Fatal("report returned with an error")
			}
			return
		}
		if r.SchemaVersion != SchemaVersion {
			t.Fatalf("accepted schema %q", r.SchemaVersion)
		}
		if err := r.WriteText(io.Discard); err != nil {
			t.Fatalf("text: %v", err)
		}
		if err := r.WriteMarkdown(io.Discard); err != nil {
			t.Fatalf("markdown: %v", err)
		}
		var buf bytes.Buffer
		if err := r.WriteJSON(&buf); err != nil {
			t.Fatalf("accepted report does not encode: %v", err)
		}
		back, err := ReadReport(&buf)
		if err != nil {
			t.Fatalf("re-encoded report does not read: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(r, back) {
			t.Fatalf("JSON round trip changed the report:\n%+v\n%+v", r, back)
		}
	})
}
