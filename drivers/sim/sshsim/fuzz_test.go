package sshsim

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLineDiscipline: whatever bytes arrive, in whatever chunks, lines never
// carry line ends, echo is the printable input, and nothing panics.
func FuzzLineDiscipline(f *testing.F) {
	f.Add([]byte("show running-config\r\n"), uint8(3))
	f.Add([]byte("conf t\rinterface Ethernet1/1\r\nmtu 9216\n\x7f\x7fexit\n"), uint8(1))
	f.Add([]byte("abc\x03def\x15ghi\tj\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		ld := lineDiscipline{echo: true}
		size := int(chunk%16) + 1
		var lines []string
		var echo []byte
		for i := 0; i < len(data); i += size {
			e, l := ld.feed(data[i:min(i+size, len(data))])
			echo = append(echo, e...)
			lines = append(lines, l...)
		}
		total := 0
		for _, l := range lines {
			if strings.ContainsAny(l, "\r\n") {
				t.Fatalf("line %q holds a line end", l)
			}
			if len(l) > maxLineLen {
				t.Fatalf("line of %d bytes exceeds the buffer", len(l))
			}
			total += len(l)
		}
		if total > len(data)+len(lines) {
			t.Fatalf("lines hold more than the input")
		}
		for _, c := range echo {
			if c < 0x20 && c != '\b' && c != '\x03' {
				t.Fatalf("control byte %#x echoed", c)
			}
		}
		quiet := lineDiscipline{}
		if e, _ := quiet.feed(data); len(e) != 0 {
			t.Fatal("echo while echo is off (a password prompt)")
		}
	})
}

// FuzzIOSConfig types arbitrary configuration lines into NX-OS and EOS:
// a rejected line never changes the configuration, the configuration stays
// printable and parseable as indented text, and nothing panics.
func FuzzIOSConfig(f *testing.F) {
	for _, seed := range []string{
		"interface Ethernet1/1\nmtu 9216\nno mtu\nexit",
		"policy-map type queuing Q\nclass type queuing c-out-8q-q3\nrandom-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0 ecn\nend",
		"qos profile P\nuc-tx-queue 3\nrandom-detect ecn minimum-threshold 1 mbytes maximum-threshold 2 mbytes weight 0\nno qos profile P",
		"no interface Ethernet1\ninterface   Ethernet2 \n  shutdown\nexit\nexit\nexit",
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, script string, nxos bool) {
		if len(script) > 4096 || !utf8.ValidString(script) {
			return
		}
		p := EOS
		if nxos {
			p = NXOS
		}
		sim := &Sim{opt: Options{Personality: p, Hostname: "sw", Blank: true, Ports: 2}, faults: Faults{}}
		sim.opt.Now = timeZero
		sim.log = nopLogger()
		dev, err := newIOSDevice(sim)
		if err != nil {
			t.Fatal(err)
		}
		sim.dev = dev
		sess := &session{user: "admin"}
		dev.login(sess)
		dev.exec(sess, "enable")
		dev.exec(sess, "configure terminal")
		for _, line := range strings.Split(script, "\n") {
			before := dev.config()
			out := dev.exec(sess, line)
			if strings.Contains(out, "% Invalid") && dev.config() != before {
				t.Fatalf("rejected line %q changed the configuration", line)
			}
			if !sess.inConfig {
				dev.exec(sess, "configure terminal")
			}
		}
		if _, err := parseTreeText(dev.config()); err != nil {
			t.Fatalf("configuration does not parse back: %v\n%s", err, dev.config())
		}
	})
}

// FuzzJunosEdit: a refused statement leaves the statements as they were;
// accepted ones store only well-formed statements.
func FuzzJunosEdit(f *testing.F) {
	for _, seed := range []string{
		"set interfaces et-0/0/1 mtu 9216",
		"set class-of-service drop-profiles P interpolate fill-level [ 1 10 ]",
		`set interfaces et-0/0/0 description "a b c"`,
		"delete interfaces et-0/0/0",
		"set foo bar",
		`set system host-name "x`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		base := junosInitial(Options{Hostname: "sw"})
		snapshot := strings.Join(base, "\n")
		out, err := junosEdit(append([]string(nil), base...), line)
		if err != nil {
			if strings.Join(base, "\n") != snapshot {
				t.Fatal("a refused edit changed the statements")
			}
			return
		}
		for _, st := range out {
			words, err := junosWords(st)
			if err != nil || len(words) == 0 {
				t.Fatalf("stored statement %q does not split: %v", st, err)
			}
		}
	})
}

// FuzzSONiCApplyPatch: a patch either fails and changes nothing, or
// leaves a config_db that passes validation.
func FuzzSONiCApplyPatch(f *testing.F) {
	f.Add([]byte(`[{"op":"replace","path":"/PORT/Ethernet0/mtu","value":"9216"}]`))
	f.Add([]byte(`[{"op":"add","path":"/WRED_PROFILE","value":{"P":{"ecn":"ecn_all"}}},{"op":"remove","path":"/PORT/Ethernet4"}]`))
	f.Add([]byte(`[{"op":"add","path":"/X~1Y/a~0b","value":1}]`))
	f.Add([]byte(`{"op":"test"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		sim := &Sim{opt: Options{Personality: SONiC, Hostname: "sw", Ports: 2}, log: nopLogger()}
		d := &sonicDevice{sim: sim, db: sonicInitial(sim.opt), checkpoints: map[string]map[string]any{}, files: map[string][]byte{"/tmp/p": body}}
		before := marshalConfigDB(d.db)
		out := d.applyPatch("/tmp/p")
		if strings.Contains(out, "Error:") {
			if marshalConfigDB(d.db) != before {
				t.Fatal("a failed patch changed config_db")
			}
			return
		}
		if err := validateConfigDB(d.db); err != nil {
			t.Fatalf("an applied patch left an invalid config_db: %v", err)
		}
	})
}

// FuzzParsePointer: a pointer that parses re-encodes to itself.
func FuzzParsePointer(f *testing.F) {
	for _, s := range []string{"", "/", "/a/b", "/a~1b/c~0d", "/~2", "a/b", "/PORT/Ethernet0|3/mtu"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		segs, err := parsePointer(p)
		if err != nil || p == "" {
			return
		}
		var b strings.Builder
		for _, s := range segs {
			b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
		}
		if b.String() != p {
			t.Fatalf("%q parsed to %q re-encodes as %q", p, segs, b.String())
		}
	})
}

// FuzzNVUEEdit: a refused `nv set`/`nv unset` leaves the tree as it was.
func FuzzNVUEEdit(f *testing.F) {
	for _, s := range []string{
		"nv set interface swp1 link mtu 9216",
		"nv set qos pfc default-global switch-priority 3",
		"nv unset interface swp1",
		"nv set interface swp1-4 qos pfc-watchdog state enable",
		"nv set qos egress-scheduler default-global traffic-class 0,3 bw-percent 50",
		"nv set interface swp1 link mtu 9216 extra",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tree := map[string]any{}
		_ = nvueSet(tree, []string{"interface", "swp1", "link", "mtu", "1500"})
		before, _ := json.Marshal(tree)
		msg := nvueEdit(tree, strings.Fields(line))
		after, _ := json.Marshal(tree)
		if msg != "" && string(before) != string(after) {
			t.Fatalf("refused %q changed the tree", line)
		}
	})
}
