package gnmi

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// flattenTyped adds the leaves of one Get update. JSON and JSON_IETF
// subtrees are flattened; scalar values become leaves (integers as JSON
// numbers: without a schema their width is unknown).
func flattenTyped(full *gnmipb.Path, tv *gnmipb.TypedValue, into devcfg.Paths) error {
	switch v := tv.GetValue().(type) {
	case *gnmipb.TypedValue_JsonIetfVal:
		return gnmipath.Flatten(full, v.JsonIetfVal, into)
	case *gnmipb.TypedValue_JsonVal:
		return gnmipath.Flatten(full, v.JsonVal, into)
	}
	raw, err := scalarJSON(tv)
	if err != nil {
		return err
	}
	into[gnmipath.Format(full)] = raw
	return nil
}

func scalarJSON(tv *gnmipb.TypedValue) (devcfg.Value, error) {
	switch v := tv.GetValue().(type) {
	case *gnmipb.TypedValue_StringVal:
		return devcfg.String(v.StringVal), nil
	case *gnmipb.TypedValue_AsciiVal:
		return devcfg.String(v.AsciiVal), nil
	case *gnmipb.TypedValue_BoolVal:
		return devcfg.Bool(v.BoolVal), nil
	case *gnmipb.TypedValue_IntVal:
		return devcfg.Int(v.IntVal), nil
	case *gnmipb.TypedValue_UintVal:
		return devcfg.Value(strconv.FormatUint(v.UintVal, 10)), nil
	case *gnmipb.TypedValue_DoubleVal:
		if math.IsNaN(v.DoubleVal) || math.IsInf(v.DoubleVal, 0) {
			return "", fmt.Errorf("non-finite number")
		}
		return devcfg.Value(strconv.FormatFloat(v.DoubleVal, 'g', -1, 64)), nil
	case *gnmipb.TypedValue_LeaflistVal:
		parts := make([]string, 0, len(v.LeaflistVal.GetElement()))
		for _, e := range v.LeaflistVal.GetElement() {
			s, err := scalarJSON(e)
			if err != nil {
				return "", err
			}
			parts = append(parts, string(s))
		}
		return devcfg.Value("[" + strings.Join(parts, ",") + "]"), nil
	case *gnmipb.TypedValue_JsonIetfVal:
		return gnmipath.CanonicalValue(v.JsonIetfVal)
	case *gnmipb.TypedValue_JsonVal:
		return gnmipath.CanonicalValue(v.JsonVal)
	}
	return "", fmt.Errorf("unsupported value type %T", tv.GetValue())
}

// counterValue reads a counter from any of the encodings targets use.
func counterValue(tv *gnmipb.TypedValue) (uint64, bool) {
	switch v := tv.GetValue().(type) {
	case *gnmipb.TypedValue_UintVal:
		return v.UintVal, true
	case *gnmipb.TypedValue_IntVal:
		if v.IntVal >= 0 {
			return uint64(v.IntVal), true
		}
		return 0, false
	case *gnmipb.TypedValue_StringVal:
		n, err := strconv.ParseUint(v.StringVal, 10, 64)
		return n, err == nil
	case *gnmipb.TypedValue_JsonIetfVal:
		return jsonCounter(v.JsonIetfVal)
	case *gnmipb.TypedValue_JsonVal:
		return jsonCounter(v.JsonVal)
	}
	return 0, false
}

func jsonCounter(raw []byte) (uint64, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		n, err := strconv.ParseUint(s, 10, 64)
		return n, err == nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		u, err := strconv.ParseUint(n.String(), 10, 64)
		return u, err == nil
	}
	return 0, false
}

// counterLeaves reads a JSON object value at base as a subtree of
// counters (gnmipath.NumericLeaves), in path order.
func counterLeaves(base *gnmipb.Path, tv *gnmipb.TypedValue) []Counter {
	raw := tv.GetJsonIetfVal()
	if raw == nil {
		raw = tv.GetJsonVal()
	}
	leaves := gnmipath.NumericLeaves(base, raw)
	out := make([]Counter, 0, len(leaves))
	for p, v := range leaves {
		out = append(out, Counter{Path: p, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
