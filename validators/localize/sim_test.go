package localize

import (
	"fmt"
	"math/rand/v2"
)

// simFabric is a leaf-spine fabric for simulated observations: leaf L<i>
// port up<j> is cabled to spine S<j> port down<i>; host L<i>h<k> eth0 to
// leaf port h<k>.
type simFabric struct {
	leaves, spines, hosts int
}

func (s simFabric) host(leaf, k int) string { return fmt.Sprintf("L%dh%d", leaf, k) }

func (s simFabric) up(leaf, spine int) Element {
	return Link(fmt.Sprintf("L%d", leaf), fmt.Sprintf("up%d", spine), fmt.Sprintf("S%d", spine), fmt.Sprintf("down%d", leaf))
}

func (s simFabric) down(spine, leaf int) Element { return s.up(leaf, spine).Reverse() }

func (s simFabric) hostUp(leaf, k int) Element {
	return Link(s.host(leaf, k), "eth0", fmt.Sprintf("L%d", leaf), fmt.Sprintf("h%d", k))
}

// simFlow is one flow: from host (sl, sk) to (dl, dk) over spine sp
// (ignored within a leaf).
type simFlow struct{ sl, sk, dl, dk, sp int }

func (f simFlow) name(s simFabric) string {
	return fmt.Sprintf("%s→%s via S%d", s.host(f.sl, f.sk), s.host(f.dl, f.dk), f.sp)
}

// steps are the (link into, device) pairs of the flow after its source.
func (f simFlow) steps(s simFabric) [][2]Element {
	src := Device(s.host(f.sl, f.sk))
	_ = src
	out := [][2]Element{{s.hostUp(f.sl, f.sk), Device(fmt.Sprintf("L%d", f.sl))}}
	if f.sl != f.dl {
		out = append(out,
			[2]Element{s.up(f.sl, f.sp), Device(fmt.Sprintf("S%d", f.sp))},
			[2]Element{s.down(f.sp, f.dl), Device(fmt.Sprintf("L%d", f.dl))})
	}
	return append(out, [2]Element{s.hostUp(f.dl, f.dk).Reverse(), Device(s.host(f.dl, f.dk))})
}

// returnPath is how hop h's reply travels back to the source: one way
// from a leaf or a spine, either spine from the far leaf.
func (f simFlow) returnPath(s simFabric, h int) []Segment {
	home := []Segment{{Device(fmt.Sprintf("L%d", f.sl))}, {s.hostUp(f.sl, f.sk).Reverse()}}
	switch h {
	case 0:
		return home[1:]
	case 1:
		return append([]Segment{{s.down(f.sp, f.sl)}}, home...)
	}
	var up, down Segment
	for sp := 1; sp <= s.spines; sp++ {
		up = append(up, s.up(f.dl, sp))
		down = append(down, s.down(sp, f.sl))
	}
	return append([]Segment{up, down}, home...)
}

// fault is a symptom an element causes on every packet that crosses it,
// or on a share of them.
type fault struct {
	el    Element
	class Class
	share float64 // loss: probability a packet is lost; else 1
}

// simOptions shape the observations.
type simOptions struct {
	noHops  bool            // end to end only
	silent  map[string]bool // devices that drop ICMP: no hop replies from them
	packets int             // per flow (loss)
	rng     *rand.Rand
}

// observe turns flows and faults into observations, the way the mesh does:
// an end-to-end observation per flow and class, and one per router hop.
func observe(s simFabric, flows []simFlow, faults []fault, opt simOptions) []Observation {
	if opt.packets == 0 {
		opt.packets = 200
	}
	if opt.rng == nil {
		opt.rng = rand.New(rand.NewPCG(1, 2))
	}
	var out []Observation
	for _, f := range flows {
		steps := f.steps(s)
		src := Device(s.host(f.sl, f.sk))
		for _, c := range Classes {
			// path up to and including the link into step n (hop n+1).
			prefix := func(n int, withDevice bool) []Segment {
				p := []Segment{{src}}
				for i := 0; i <= n && i < len(steps); i++ {
					p = append(p, Segment{steps[i][0]})
					if i < n || withDevice {
						p = append(p, Segment{steps[i][1]})
					}
				}
				return p
			}
			hit := func(path []Segment) (bool, int) {
				lost := 0
				bad := false
				for _, seg := range path {
					actual := seg[0]
					if len(seg) > 1 {
						actual = seg[f.sp%len(seg)] // the reply hashes onto some spine
					}
					for _, fl := range faults {
						if fl.class != c || fl.el != actual {
							continue
						}
						if c == Loss {
							for range opt.packets {
								if opt.rng.Float64() < fl.share {
									lost++
								}
							}
							bad = bad || lost > 0
						} else {
							bad = true
						}
					}
				}
				return bad, lost
			}
			e2e := prefix(len(steps)-1, true)
			bad, lost := hit(e2e)
			o := Observation{Flow: f.name(s), Class: c, At: steps[len(steps)-1][1].Device, Bad: bad, Total: opt.packets, Path: e2e}
			switch c {
			case DSCP:
				o.Expected, o.Value = 26, 26
				if bad {
					o.Value = 8
				}
			case Loss:
				o.Affected = lost
			case MTU:
				o.Value = 9000
			}
			if bad && c != Loss {
				o.Affected = opt.packets
			}
			out = append(out, o)
			if opt.noHops || (c == Loss && !bad) {
				continue
			}
			for h := 0; h < len(steps)-1; h++ {
				if opt.silent[steps[h][1].Device] {
					continue
				}
				p := prefix(h, false)
				if c == Loss {
					// The hop's ICMP reply comes back to the source, and can
					// be lost on the way too.
					p = append(p, f.returnPath(s, h)...)
				}
				hb, hl := hit(p)
				ho := Observation{Flow: f.name(s), Class: c, Hop: h + 1, At: steps[h][1].Device, Bad: hb, Path: p, Total: opt.packets}
				if c == Loss {
					ho.Affected = hl
				} else if hb {
					ho.Affected = 1
				}
				if c == DSCP {
					ho.Expected, ho.Value = 26, 26
					if hb {
						ho.Value = 8
					}
				}
				out = append(out, ho)
			}
		}
	}
	return out
}

// meshFlows: every host pair under a leaf, and for each ordered leaf pair
// perSpine flows over every spine, hosts round-robin.
func meshFlows(s simFabric, perSpine int) []simFlow {
	var out []simFlow
	for l := 1; l <= s.leaves; l++ {
		for a := 1; a <= s.hosts; a++ {
			for b := 1; b <= s.hosts; b++ {
				if a != b {
					out = append(out, simFlow{l, a, l, b, 0})
				}
			}
		}
	}
	n := 0
	for sl := 1; sl <= s.leaves; sl++ {
		for dl := 1; dl <= s.leaves; dl++ {
			if sl == dl {
				continue
			}
			for sp := 1; sp <= s.spines; sp++ {
				for range perSpine {
					out = append(out, simFlow{sl, 1 + n%s.hosts, dl, 1 + (n/s.hosts)%s.hosts, sp})
					n++
				}
			}
		}
	}
	return out
}
