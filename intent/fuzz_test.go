package intent

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var codePattern = regexp.MustCompile(`^RF0(0[1-9]|1[0-7])$`)

// FuzzLoad feeds arbitrary bytes to the loader and the resolver. Neither may
// panic, every diagnostic must carry a loader code and a position in the
// file, the output must be sorted and deterministic, and secrets must never
// be echoed. Seeds are under testdata/fuzz/FuzzLoad: the reference example,
// the broken examples and edge cases.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(docHead + "spec: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, diags := LoadBytes("f.yaml", data)
		if fab == nil {
			t.Fatal("LoadBytes returned no fabric")
		}
		checkDiagnostics(t, diags)
		again, diags2 := LoadBytes("f.yaml", data)
		if !slices.Equal(diagStrings(diags), diagStrings(diags2)) || len(again.Switches) != len(fab.Switches) {
			t.Fatalf("loading twice differs:\n%v\n%v", diagStrings(diags), diagStrings(diags2))
		}
		r, rdiags := Resolve(fab)
		checkDiagnostics(t, rdiags)
		seen := map[string]bool{}
		for _, s := range r.Switches {
			if seen[s.Name] || r.Switch(s.Name) != s {
				t.Fatalf("switch %q resolved twice or not indexed", s.Name)
			}
			seen[s.Name] = true
		}
		for _, h := range r.Hosts {
			if seen[h.Name] || r.Host(h.Name) != h {
				t.Fatalf("host %q resolved twice, clashes with a switch, or is not indexed", h.Name)
			}
			seen[h.Name] = true
		}
		for _, l := range r.Links {
			if l.HostEnd != nil && r.Host(l.HostEnd.Device) == nil {
				t.Fatalf("link %v has a host end that is not a host", l)
			}
			_ = r.HostLinks()
		}
		// What is said about credentials never repeats the secret in them.
		for _, d := range diags {
			if !strings.Contains(d.Field, "credentials") {
				continue
			}
			for _, c := range credentialsOf(fab) {
				for _, secret := range []string{c.Password, c.Token} {
					if len(secret) > 3 && strings.Contains(d.Message, secret) {
						t.Fatalf("diagnostic echoes a secret: %s", d)
					}
				}
			}
		}
	})
}

func checkDiagnostics(t *testing.T, ds Diagnostics) {
	t.Helper()
	for i, d := range ds {
		if !codePattern.MatchString(d.Code) {
			t.Fatalf("diagnostic with a code the loader does not own: %s", d)
		}
		if d.File != "f.yaml" || d.Line < 0 || d.Col < 0 || d.Message == "" {
			t.Fatalf("diagnostic without a proper position or message: %#v", d)
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			p := ds[i-1]
			if p.Line > d.Line || (p.Line == d.Line && p.Col > d.Col) {
				t.Fatalf("diagnostics are not sorted: %s before %s", p, d)
			}
		}
	}
}

func credentialsOf(fab *Fabric) []*Credentials {
	var out []*Credentials
	for i := range fab.Groups {
		out = append(out, fab.Groups[i].Credentials)
	}
	for i := range fab.Switches {
		out = append(out, fab.Switches[i].Credentials)
	}
	for i := range fab.Hosts {
		out = append(out, fab.Hosts[i].Credentials)
	}
	return slices.DeleteFunc(out, func(c *Credentials) bool { return c == nil })
}
