package perftest

import (
	"fmt"
	"strconv"
	"strings"
)

// field is one member of a perftest JSON object. perftest up to at least
// 6.06 writes keys and most values unquoted, with trailing commas
// ({test_info: {test: RDMA_Write_BW_Test, Device: "mlx5_0", ...},}); later
// releases write standard JSON. Both read the same way here, and
// duplicate keys (several "results" objects) are kept in order.
type field struct {
	key   string
	val   string // scalar value; empty for an object
	obj   []field
	isObj bool
}

type relaxedParser struct {
	s   string
	pos int
}

// parseRelaxed reads one perftest JSON document.
func parseRelaxed(s string) ([]field, error) {
	p := &relaxedParser{s: s}
	p.space()
	if !p.eat('{') {
		return nil, p.errf("expected '{'")
	}
	obj, err := p.object(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.s) {
		return nil, p.errf("text after the closing '}'")
	}
	return obj, nil
}

const maxDepth = 8

func (p *relaxedParser) errf(format string, args ...any) error {
	return fmt.Errorf("perftest JSON at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *relaxedParser) space() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *relaxedParser) eat(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// object reads members after '{' up to the matching '}'.
func (p *relaxedParser) object(depth int) ([]field, error) {
	if depth > maxDepth {
		return nil, p.errf("objects nested too deep")
	}
	out := []field{}
	for {
		p.space()
		if p.eat('}') {
			return out, nil
		}
		if p.eat(',') { // trailing or doubled commas
			continue
		}
		if p.pos >= len(p.s) {
			return nil, p.errf("unterminated object")
		}
		key, err := p.scalar(":")
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, p.errf("empty key")
		}
		p.space()
		if !p.eat(':') {
			return nil, p.errf("expected ':' after key %q", key)
		}
		p.space()
		if p.eat('{') {
			obj, err := p.object(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, field{key: key, obj: obj, isObj: true})
		} else {
			val, err := p.scalar(",}\n")
			if err != nil {
				return nil, err
			}
			out = append(out, field{key: key, val: val})
		}
		p.space()
		if p.eat(',') {
			continue
		}
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			continue
		}
		return nil, p.errf("expected ',' or '}'")
	}
}

// scalar reads a quoted string or bare text up to one of stops.
func (p *relaxedParser) scalar(stops string) (string, error) {
	if p.pos < len(p.s) && p.s[p.pos] == '"' {
		end := p.pos + 1
		for end < len(p.s) && p.s[end] != '"' {
			if p.s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(p.s) {
			return "", p.errf("unterminated string")
		}
		raw := p.s[p.pos : end+1]
		p.pos = end + 1
		v, err := strconv.Unquote(raw)
		if err != nil {
			return strings.Trim(raw, `"`), nil // perftest does not escape; keep the text
		}
		return v, nil
	}
	start := p.pos
	for p.pos < len(p.s) && strings.IndexByte(stops, p.s[p.pos]) < 0 && p.s[p.pos] != '{' && p.s[p.pos] != '}' {
		p.pos++
	}
	return strings.TrimSpace(p.s[start:p.pos]), nil
}

func (f field) get(key string) (string, bool) {
	for _, m := range f.obj {
		if !m.isObj && strings.EqualFold(m.key, key) {
			return m.val, true
		}
	}
	return "", false
}
