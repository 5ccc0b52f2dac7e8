package cumulus

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
)

// syntax: `nv set` adds one VLAN to a port's VLAN set and `nv unset` of
// "... vlan N" removes that one, so member paths need no rewrite.
var syntax = devcfg.Syntax{Style: devcfg.StyleStatements, Set: "nv set ", Delete: "nv unset "}

// Register adds the cumulus platform.
func Register(r *renderers.Registry) error {
	return r.Register(renderers.Entry{
		Name: "cumulus",
		New:  New,
		Attrs: renderers.Attributes{
			Platform: devcfg.Platform{
				Shape:       devcfg.ShapePaths,
				Scrapli:     "cumulus_linux",
				Commit:      devcfg.CommitDialect,
				Dialect:     Dialect,
				ShowRunning: "nv config show -o json",
				CLIErrors:   []string{"Error:", "Invalid config", "is not a", "Usage: nv"},
				Syntax:      syntax,
				Parse:       Parse,
				Normalise:   Normalise,
			},
			Transports:          []string{"ssh"},
			MTUCeiling:          MTUCeiling,
			PortPattern:         regexp.MustCompile(`^(swp\d+(s\d+)?|bond[A-Za-z0-9_-]*)$`),
			PortExample:         "swp1",
			MaxNoDropPriorities: 2,
			Singletons:          []string{"qos mapping default-global trust", "qos roce"},
			Classify: renderers.ClassifyByKeywords(map[string]string{
				"link mtu":       "an MTU change reprograms the port and drops frames in flight",
				"qos pfc ":       "a PFC change re-carves the port buffers and drops traffic while it applies",
				"traffic-pool":   "resizing the traffic pools re-carves the shared buffer and drops traffic while it applies",
				"qos link-pause": "switching link pause re-carves the port buffers",
			}),
			Encode:   Encode,
			Sources:  Sources,
			Watchdog: &renderers.WatchdogTimes{}, // times keep the platform defaults; see doc.go
			Headroom: &HeadroomFacts,
			FileExt:  ".nvue",
		},
	})
}

// Encode prints one `nv set` command per leaf, sorted by path.
func Encode(cfg *devcfg.Config) ([]byte, error) {
	var b strings.Builder
	for _, k := range cfg.Paths.Keys() {
		b.WriteString("nv set ")
		b.WriteString(k)
		if v := cfg.Paths[k]; v != devcfg.Empty {
			b.WriteByte(' ')
			b.WriteString(valueText(v))
		}
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

// EncodeJSON is the configuration as `nv config show -o json` prints it: a
// header object and the `set` tree. Drivers and simulators use it to
// show a config the way the device does.
func EncodeJSON(cfg *devcfg.Config) ([]byte, error) {
	tree := map[string]any{}
	for _, k := range cfg.Paths.Keys() {
		words := strings.Fields(k)
		node := tree
		for i, w := range words[:len(words)-1] {
			next, ok := node[w].(map[string]any)
			if !ok {
				if _, leaf := node[w]; leaf {
					return nil, fmt.Errorf("cumulus: %q is both a leaf and a container", strings.Join(words[:i+1], " "))
				}
				next = map[string]any{}
				node[w] = next
			}
			node = next
		}
		last := words[len(words)-1]
		v := cfg.Paths[k]
		if v == devcfg.Empty {
			if _, ok := node[last].(map[string]any); !ok {
				node[last] = map[string]any{}
			}
			continue
		}
		if _, ok := node[last].(map[string]any); ok {
			return nil, fmt.Errorf("cumulus: %q is both a leaf and a container", k)
		}
		node[last] = json.RawMessage(v)
	}
	doc := []map[string]any{
		{"header": map[string]any{"model": "rocefab", "nvue-api-version": "nvue_v1", "rev-id": "1.0", "version": "Cumulus Linux"}},
		{"set": tree},
	}
	return json.MarshalIndent(doc, "", "  ")
}

// valueText is v.Text() without the JSON decoder for a plain string.
func valueText(v devcfg.Value) string {
	if n := len(v); n >= 2 && v[0] == '"' && v[n-1] == '"' && !strings.ContainsRune(string(v[1:n-1]), '\\') {
		return string(v[1 : n-1])
	}
	return v.Text()
}
