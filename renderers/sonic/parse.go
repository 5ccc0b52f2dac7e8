package sonic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// ErrNotConfigDB marks input that is not config_db JSON.
var ErrNotConfigDB = errors.New("not config_db JSON")

// Parse reads either form of the running CONFIG_DB:
//   - config_db JSON, as `show runningconfiguration all` prints it (ssh):
//     {"TABLE": {"key": {"field": "value"}}};
//   - the gNMI driver's flat JSON object of leaf path → value (gnmi):
//     {"sonic-db:/TABLE/key/field": "value"}.
//
// String values stay JSON strings; list fields (e.g. "members") keep their
// JSON array; an entry without fields is "{}".
func Parse(raw []byte) (*devcfg.Config, error) {
	top, err := devcfg.DecodeObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotConfigDB, err)
	}
	flat := false
	for k := range top {
		flat = strings.HasPrefix(k, keyPrefix)
		break
	}
	var out devcfg.Paths
	if flat {
		out, err = parseLeaves(top)
	} else {
		out, err = parseTables(top)
	}
	if err != nil {
		return nil, err
	}
	return &devcfg.Config{Platform: Name, Shape: devcfg.ShapePaths, Paths: out}, nil
}

func parseLeaves(top map[string]json.RawMessage) (devcfg.Paths, error) {
	out := make(devcfg.Paths, len(top))
	for p, v := range top {
		table, key, field, ok := SplitKey(p)
		if !ok {
			return nil, fmt.Errorf("%w: %q is not a sonic-db:/TABLE/key/field path", ErrNotConfigDB, p)
		}
		val, err := devcfg.ParseValue(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrNotConfigDB, p, err)
		}
		if field == "" && val != devcfg.Empty {
			return nil, fmt.Errorf("%w: entry %s|%s holds %s, not {}", ErrNotConfigDB, table, key, val)
		}
		// Re-key, so escapes are canonical ("\x" for a plain x is just x).
		if field == "" {
			out[EntryKey(table, key)] = val
		} else {
			out[Key(table, key, field)] = val
		}
	}
	return out, nil
}

func parseTables(tables map[string]json.RawMessage) (devcfg.Paths, error) {
	out := devcfg.Paths{}
	for table, body := range tables {
		if table == "" {
			return nil, fmt.Errorf("%w: a table has an empty name", ErrNotConfigDB)
		}
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(body, &entries); err != nil || entries == nil {
			return nil, fmt.Errorf("%w: table %q is not an object of entries", ErrNotConfigDB, table)
		}
		for key, ebody := range entries {
			if key == "" {
				return nil, fmt.Errorf("%w: table %s has an entry with an empty key", ErrNotConfigDB, table)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(ebody, &fields); err != nil || fields == nil {
				return nil, fmt.Errorf("%w: %s|%s is not an object of fields", ErrNotConfigDB, table, key)
			}
			if len(fields) == 0 {
				out[EntryKey(table, key)] = devcfg.Empty
				continue
			}
			for field, v := range fields {
				if field == "" {
					return nil, fmt.Errorf("%w: %s|%s has a field with an empty name", ErrNotConfigDB, table, key)
				}
				val, err := devcfg.ParseValue(v)
				if err != nil {
					return nil, fmt.Errorf("%w: %s|%s field %q: %v", ErrNotConfigDB, table, key, field, err)
				}
				out[Key(table, key, field)] = val
			}
		}
	}
	return out, nil
}

// generatedProfile matches the lossless profiles SONiC's buffer manager
// creates, e.g. pg_lossless_100000_5m_profile.
var generatedProfile = regexp.MustCompile(`^pg_lossless_[0-9]+_[0-9]+m(_mtu[0-9]+)?(_th-?[0-9]+)?_profile$`)

// wredDefaults are fields SONiC fills into a WRED profile at their default.
var wredDefaults = map[string]string{
	"wred_yellow_enable": "false",
	"wred_red_enable":    "false",
}

// Normalise drops what SONiC generates or defaults inside rocefab's scope:
// the dynamic buffer model's generated pg_lossless_* profiles shown in
// BUFFER_PG where rocefab wrote "NULL" become "NULL" again, the profiles
// themselves are dropped, WRED default colours are dropped, and priority
// lists are put in ascending order ("4,3" is "3,4").
func Normalise(cfg *devcfg.Config) *devcfg.Config {
	if cfg == nil || cfg.Shape != devcfg.ShapePaths {
		return cfg
	}
	out := cfg.Clone()
	for p, v := range cfg.Paths {
		table, key, field, ok := SplitKey(p)
		if !ok {
			continue
		}
		switch {
		case table == "BUFFER_PROFILE" && generatedProfile.MatchString(key):
			delete(out.Paths, p)
		case table == "BUFFER_PG" && field == "profile" && generatedProfile.MatchString(strings.TrimSuffix(strings.TrimPrefix(v.Text(), "[BUFFER_PROFILE|"), "]")):
			out.Paths[p] = devcfg.String("NULL")
		case table == "WRED_PROFILE" && wredDefaults[field] != "" && v.Text() == wredDefaults[field]:
			delete(out.Paths, p)
		case table == "PORT_QOS_MAP" && (field == "pfc_enable" || field == "pfcwd_sw_enable"):
			out.Paths[p] = devcfg.String(sortedList(v.Text()))
		}
	}
	return out
}

// sortedList orders a comma-separated priority list; anything that is not
// such a list is returned unchanged.
func sortedList(s string) string {
	parts := strings.Split(s, ",")
	nums := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return s
		}
		nums = append(nums, n)
	}
	slices.Sort(nums)
	return priorityList(slices.Compact(nums))
}

// Encode writes config_db JSON (4-space indent, keys sorted), the form
// `config load` and `sonic-cfggen` read. It is written directly rather than
// through encoding/json, which would reflect over three map levels for
// every one of a switch's thousand fields.
func Encode(cfg *devcfg.Config) ([]byte, error) {
	if cfg == nil || cfg.Shape != devcfg.ShapePaths {
		return nil, fmt.Errorf("sonic: encode needs a paths config")
	}
	type field struct {
		name  string
		value devcfg.Value
	}
	doc := map[string]map[string][]field{}
	for p, v := range cfg.Paths {
		table, key, name, ok := SplitKey(p)
		if !ok {
			return nil, fmt.Errorf("sonic: %q is not a sonic-db:/TABLE/key/field path", p)
		}
		if doc[table] == nil {
			doc[table] = map[string][]field{}
		}
		entry := doc[table][key]
		if name == "" {
			if v != devcfg.Empty {
				return nil, fmt.Errorf("sonic: entry path %q must hold {}", p)
			}
		} else {
			if !json.Valid([]byte(v)) {
				return nil, fmt.Errorf("sonic: %s holds invalid JSON %q", p, v)
			}
			entry = append(entry, field{name, v})
		}
		doc[table][key] = entry
	}
	var b bytes.Buffer
	b.Grow(64 * len(cfg.Paths))
	if len(doc) == 0 {
		b.WriteString("{}\n")
		return b.Bytes(), nil
	}
	b.WriteString("{\n")
	tables := slices.Sorted(maps.Keys(doc))
	for ti, table := range tables {
		b.WriteString("    " + string(devcfg.String(table)) + ": {\n")
		keys := slices.Sorted(maps.Keys(doc[table]))
		for ki, key := range keys {
			fields := doc[table][key]
			b.WriteString("        " + string(devcfg.String(key)) + ": {")
			if len(fields) > 0 {
				slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
				b.WriteString("\n")
				for fi, f := range fields {
					b.WriteString("            ")
					b.WriteString(string(devcfg.String(f.name)))
					b.WriteString(": ")
					b.WriteString(string(f.value))
					b.WriteString(comma(fi, len(fields)))
					b.WriteByte('\n')
				}
				b.WriteString("        ")
			}
			b.WriteString("}" + comma(ki, len(keys)) + "\n")
		}
		b.WriteString("    }" + comma(ti, len(tables)) + "\n")
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func comma(i, n int) string {
	if i < n-1 {
		return ","
	}
	return ""
}
