package gnmi

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// jsonPatchRequest builds the SetRequest of a JSONPatch target (sonic-gnmi's
// sonic-db origin). sonic-gnmi turns each delete, replace and update into a
// remove, replace and add operation of one JSON patch whose path is the
// element names joined by "/" (sonic_data_client/mixed_db_client.go
// SetIncrementalConfig, ConvertToJsonPatch) and applies it with config
// apply-patch, which follows RFC 6902: an add needs its parent, a replace its
// target. So the driver reads the tables the updates touch, writes a field
// of an existing entry as a field, a new entry of an existing table as one
// object, and a new table whole, and sends every write as an update (add).
// Element names are escaped as in a JSON pointer ("~0", "~1"), which
// sonic-gnmi expects for a key holding '/' (json_client.go FixPath).
func (d *Driver) jsonPatchRequest(ctx context.Context, patch devcfg.Patch) (*gnmipb.SetRequest, error) {
	root := d.m.root()
	origin := d.m.Origin
	var writes []jsonWrite
	tables := map[string]bool{}
	rel := func(p string) ([]string, error) {
		pp, err := d.m.toGNMI(p)
		if err != nil {
			return nil, err
		}
		if gnmipath.Origin(pp.GetOrigin()) != d.m.origin() {
			return nil, fmt.Errorf("%w: %s is not under origin %s; the target takes one origin per SetRequest", drivers.ErrUnsupported, p, d.m.origin())
		}
		pp = d.m.unrooted(pp)
		var names []string
		for _, e := range pp.GetElem() {
			if len(e.GetKey()) > 0 {
				return nil, fmt.Errorf("%w: %s: element %s has keys, which a JSON patch path cannot carry", drivers.ErrUnsupported, p, e.GetName())
			}
			names = append(names, e.GetName())
		}
		if len(names) < 2 {
			return nil, fmt.Errorf("%w: %s does not name a table entry", drivers.ErrUnsupported, p)
		}
		return names, nil
	}
	for _, u := range patch.Updates {
		names, err := rel(u.Path)
		if err != nil {
			return nil, d.deviceErr("push", u.Path, "", err)
		}
		writes = append(writes, jsonWrite{names, u.Value})
		tables[names[0]] = true
	}
	var deletes [][]string
	for _, p := range patch.Deletes {
		names, err := rel(p)
		if err != nil {
			return nil, d.deviceErr("push", p, "", err)
		}
		deletes = append(deletes, names)
		tables[names[0]] = true
	}

	// What exists: one Get of every touched table (a table Get answers
	// empty, never NotFound).
	have := map[string]map[string]map[string]bool{} // table → key → fields
	if len(tables) > 0 {
		var paths []string
		for _, t := range slices.Sorted(maps.Keys(tables)) {
			paths = append(paths, gnmipath.Format(&gnmipb.Path{Origin: origin, Elem: append(append([]*gnmipb.PathElem(nil), root...), &gnmipb.PathElem{Name: t})}))
		}
		leaves := devcfg.Paths{}
		if err := d.get(ctx, "push", d.m.origin(), paths, leaves); err != nil && !isNotFound(err) {
			return nil, err
		}
		for k := range leaves {
			p, err := gnmipath.Parse(k)
			if err != nil {
				continue
			}
			e := d.m.unrooted(p).GetElem()
			if len(e) >= 2 {
				t, k := e[0].GetName(), e[1].GetName()
				if have[t] == nil {
					have[t] = map[string]map[string]bool{}
				}
				if have[t][k] == nil {
					have[t][k] = map[string]bool{}
				}
				if len(e) >= 3 {
					have[t][k][e[2].GetName()] = true
				}
			}
		}
	}

	req := &gnmipb.SetRequest{Prefix: &gnmipb.Path{Origin: origin}}
	if d.m.Target != "" {
		req.Prefix.Target = d.m.Target
	}
	elems := func(names ...string) []*gnmipb.PathElem {
		out := make([]*gnmipb.PathElem, 0, len(root)+len(names))
		out = append(out, root...)
		for _, n := range names {
			out = append(out, &gnmipb.PathElem{Name: pointerEscape(n)})
		}
		return out
	}
	for _, names := range emptied(have, deletes, writes) {
		req.Delete = append(req.Delete, &gnmipb.Path{Elem: elems(names...)})
	}

	// Group writes: fields of existing entries stay fields; new entries and
	// new tables become objects.
	newEntries := map[string]map[string]map[string]json.RawMessage{} // table → key → field → value
	for _, w := range writes {
		table, key := w.rel[0], w.rel[1]
		if _, ok := have[table][key]; ok || len(w.rel) > 3 {
			val, err := d.typed(w.value)
			if err != nil {
				return nil, d.deviceErr("push", strings.Join(w.rel, "/"), "", err)
			}
			req.Update = append(req.Update, &gnmipb.Update{Path: &gnmipb.Path{Elem: elems(w.rel...)}, Val: val})
			continue
		}
		if newEntries[table] == nil {
			newEntries[table] = map[string]map[string]json.RawMessage{}
		}
		if newEntries[table][key] == nil {
			newEntries[table][key] = map[string]json.RawMessage{}
		}
		if len(w.rel) == 3 {
			newEntries[table][key][w.rel[2]] = json.RawMessage(w.value)
		}
	}
	for _, table := range slices.Sorted(maps.Keys(newEntries)) {
		if have[table] == nil {
			raw, err := json.Marshal(newEntries[table])
			if err != nil {
				return nil, d.deviceErr("push", table, "", err)
			}
			req.Update = append(req.Update, &gnmipb.Update{Path: &gnmipb.Path{Elem: elems(table)},
				Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}})
			continue
		}
		for _, key := range slices.Sorted(maps.Keys(newEntries[table])) {
			raw, err := json.Marshal(newEntries[table][key])
			if err != nil {
				return nil, d.deviceErr("push", table+"/"+key, "", err)
			}
			req.Update = append(req.Update, &gnmipb.Update{Path: &gnmipb.Path{Elem: elems(table, key)},
				Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}})
		}
	}
	return req, nil
}

// jsonWrite is one update: table, key[, field] and its value.
type jsonWrite struct {
	rel   []string
	value devcfg.Value
}

// pointerEscape escapes a name for a JSON pointer (RFC 6901).
func pointerEscape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// emptied are the deletes to send: a delete that leaves an existing entry
// without fields removes the entry, and one that leaves a table without
// entries removes the table, since config_db holds no empty entries and
// apply-patch refuses a patch that leaves an empty table ("given patch is
// not valid because it will result in empty tables", sonic-utilities
// generic_config_updater). A delete of something the device does not have
// is kept (sonic-gnmi drops it).
func emptied(have map[string]map[string]map[string]bool, deletes [][]string, writes []jsonWrite) [][]string {
	written := map[string]bool{}
	for _, w := range writes {
		written[w.rel[0]] = true
		written[w.rel[0]+"\x00"+w.rel[1]] = true
	}
	gone := map[string]map[string]map[string]bool{} // what the deletes take
	whole := map[string]bool{}
	for _, d := range deletes {
		t := d[0]
		if len(d) == 1 {
			whole[t] = true
			continue
		}
		if gone[t] == nil {
			gone[t] = map[string]map[string]bool{}
		}
		if gone[t][d[1]] == nil {
			gone[t][d[1]] = map[string]bool{}
		}
		if len(d) == 2 {
			gone[t][d[1]]["\x00entry"] = true
		} else {
			gone[t][d[1]][d[2]] = true
		}
	}
	entryGone := func(t, k string) bool {
		g := gone[t][k]
		if g["\x00entry"] {
			return true
		}
		fields, ok := have[t][k]
		if !ok || len(fields) == 0 || written[t+"\x00"+k] {
			return false
		}
		for f := range fields {
			if !g[f] {
				return false
			}
		}
		return true
	}
	tableGone := func(t string) bool {
		if whole[t] {
			return true
		}
		if len(have[t]) == 0 || written[t] {
			return false
		}
		for k := range have[t] {
			if !entryGone(t, k) {
				return false
			}
		}
		return true
	}
	var out [][]string
	seen := map[string]bool{}
	for _, d := range deletes {
		var target []string
		switch {
		case tableGone(d[0]):
			target = d[:1]
		case len(d) >= 2 && entryGone(d[0], d[1]):
			target = d[:2]
		default:
			target = d
		}
		id := strings.Join(target, "\x00")
		if !seen[id] {
			seen[id] = true
			out = append(out, target)
		}
	}
	return out
}
