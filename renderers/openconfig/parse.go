package openconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// ErrNotLeaves marks input that is not a flat JSON object of gNMI leaves.
var ErrNotLeaves = errors.New("not a JSON object of gNMI leaf paths")

// Parse reads the gNMI driver's Fetch output: a flat JSON object of leaf
// path → JSON_IETF value ("/a/b[k=v]/c" for OpenConfig, "cli:/..." and
// "sonic-db:/..." for the fallback origins).
func Parse(raw []byte) (*devcfg.Config, error) {
	top, err := devcfg.DecodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotLeaves, err)
	}
	out := make(devcfg.Paths, len(top))
	for p, v := range top {
		if !validPath(p) {
			return nil, fmt.Errorf("%w: %q is not an [origin:]/path", ErrNotLeaves, p)
		}
		val, err := devcfg.ParseValue(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrNotLeaves, p, err)
		}
		out[p] = val
	}
	return &devcfg.Config{Platform: Name, Shape: devcfg.ShapePaths, Paths: out}, nil
}

// validPath accepts "/x..." or "origin:/x...", with balanced, escaped
// brackets and no empty element.
func validPath(p string) bool {
	if i := strings.Index(p, ":/"); i > 0 && !strings.ContainsAny(p[:i], `/[]\`) {
		p = p[i+1:]
	}
	if len(p) < 2 || p[0] != '/' {
		return false
	}
	depth, elemLen := 0, 0
	for i := 1; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			if i+1 == len(p) {
				return false
			}
			i++
			elemLen++
		case c == '[':
			if depth > 0 || elemLen == 0 {
				return false
			}
			depth++
		case c == ']':
			if depth == 0 {
				return false
			}
			depth--
		case c == '/' && depth == 0:
			if elemLen == 0 {
				return false
			}
			elemLen = 0
		default:
			elemLen++
		}
	}
	return depth == 0 && elemLen > 0
}

// isUint64Leaf reports the uint64 leaves rocefab renders; a target
// answering in JSON (not JSON_IETF) sends them as numbers. The WRED weight
// is a uint32 and stays a number.
func isUint64Leaf(p string) bool {
	return strings.HasSuffix(p, "/wred/uniform/config/min-threshold") ||
		strings.HasSuffix(p, "/wred/uniform/config/max-threshold") ||
		(strings.Contains(p, "/inputs/input[") && strings.HasSuffix(p, "/config/weight"))
}

// identityModules gives each identity rocefab renders its module.
var identityModules = map[string]string{
	"ONE_RATE_TWO_COLOR": "openconfig-qos-types",
	"ethernetCsmacd":     "iana-if-type",
	"ieee8023adLag":      "iana-if-type",
}

// yangDefaults are leaves inside rocefab's scope that it does not render
// and that a target reports at their YANG default (lemming, OpenConfig's
// reference server, populates defaults): a queue-management profile's
// red/uniform enable-ecn and drop, both "default false"
// (openconfig-qos-mem-mgmt.yang). At the default they mean nothing was set.
var yangDefaults = map[string]devcfg.Value{
	"/red/uniform/config/enable-ecn": devcfg.Bool(false),
	"/red/uniform/config/drop":       devcfg.Bool(false),
}

// Normalise rewrites what targets vary in but that means the same: uint64
// leaves sent as JSON numbers (JSON encoding) become RFC 7951 strings,
// identities without or with a short prefix ("oc-qos-types:X", "X") get
// their module prefix, trunk VLANs sent as strings become numbers, and
// unrendered leaves at their YANG default (yangDefaults) are dropped.
// Anything else is kept, so drift stays visible.
func Normalise(cfg *devcfg.Config) *devcfg.Config {
	if cfg == nil || cfg.Shape != devcfg.ShapePaths {
		return cfg
	}
	out := cfg.Clone()
	for p, v := range cfg.Paths {
		if strings.Contains(p, ":/") && !strings.HasPrefix(p, "/") {
			continue // fallback origins are opaque
		}
		if strings.HasPrefix(p, "/qos/queue-management-profiles/") {
			if i := strings.Index(p, "]/"); i > 0 {
				if d, ok := yangDefaults[p[i+1:]]; ok && v == d {
					delete(out.Paths, p)
					continue
				}
			}
		}
		if isUint64Leaf(p) && isDigits(string(v)) {
			out.Paths[p] = devcfg.String(string(v))
		}
		if strings.HasSuffix(p, "/switched-vlan/config/trunk-vlans") {
			out.Paths[p] = vlanNumbers(v)
		}
		if strings.HasSuffix(p, "/config/type") && strings.HasPrefix(string(v), `"`) {
			name := v.Text()
			if i := strings.LastIndexByte(name, ':'); i >= 0 {
				name = name[i+1:]
			}
			if mod, ok := identityModules[name]; ok {
				out.Paths[p] = devcfg.String(mod + ":" + name)
			}
		}
	}
	return out
}

// vlanNumbers writes VLAN IDs sent as strings ("100") as the numbers they
// are (vlan-id is the union's first member); ranges ("100..200") stay.
func vlanNumbers(v devcfg.Value) devcfg.Value {
	items, ok := v.Any().([]any)
	if !ok {
		return v
	}
	for i, it := range items {
		if s, ok := it.(string); ok && isDigits(s) && len(s) <= 4 {
			n := strings.TrimLeft(s, "0")
			if n == "" {
				n = "0"
			}
			items[i] = json.Number(n)
		}
	}
	return devcfg.JSON(items)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Encode writes the flat JSON object Parse reads: one leaf per line, keys
// sorted, values as JSON_IETF.
func Encode(cfg *devcfg.Config) ([]byte, error) {
	if cfg == nil || cfg.Shape != devcfg.ShapePaths {
		return nil, fmt.Errorf("openconfig: encode needs a paths config")
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	keys := cfg.Paths.Keys()
	for i, k := range keys {
		v := cfg.Paths[k]
		if !json.Valid([]byte(v)) {
			return nil, fmt.Errorf("openconfig: %s holds invalid JSON %q", k, v)
		}
		key, err := marshalNoEscape(k)
		if err != nil {
			return nil, err
		}
		b.WriteString("  ")
		b.Write(key)
		b.WriteString(": ")
		b.WriteString(string(v))
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// marshalNoEscape encodes a string without HTML escaping, so " > " in CLI
// keys stays readable.
func marshalNoEscape(s string) ([]byte, error) {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
	}
	if plain {
		return []byte(`"` + s + `"`), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
