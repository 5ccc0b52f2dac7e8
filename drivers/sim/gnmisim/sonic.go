package gnmisim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/drivers/sim/factory"
)

// SONiC origin and config_db behaviour, as sonic-net/sonic-gnmi serves it
// (gnmi_server/server.go, sonic_data_client/mixed_db_client.go,
// db_client.go, json_client.go).
const (
	OriginSONiC = "sonic-db"
	OriginCLI   = "cli"

	// SONiCDB and SONiCInstance are the first two elements of every
	// sonic-db path: /CONFIG_DB/localhost/TABLE/key/field.
	SONiCDB       = "CONFIG_DB"
	SONiCInstance = "localhost"

	sonicPrefix = OriginSONiC + ":/"
)

// sonicDBNames are the targets sonic-gnmi's Get hands to its DbClient
// (sonic_db_config: the databases of database_config.json).
var sonicDBNames = map[string]bool{"APPL_DB": true, "ASIC_DB": true, "COUNTERS_DB": true, "LOGLEVEL_DB": true,
	"CONFIG_DB": true, "PFC_WD_DB": true, "FLEX_COUNTER_DB": true, "STATE_DB": true, "APPL_STATE_DB": true}

// configDB is config_db as a document: table → key → field → JSON value.
// An entry without fields is an empty map.
type configDB map[string]map[string]map[string]json.RawMessage

// sonicKey is the tree key of a table, entry or field.
func sonicKey(names ...string) string {
	elems := make([]*gnmipb.PathElem, len(names))
	for i, n := range names {
		elems[i] = &gnmipb.PathElem{Name: n}
	}
	return gnmipath.Format(&gnmipb.Path{Origin: OriginSONiC, Elem: elems})
}

// configDBOf reads the sonic-db part of the tree.
func configDBOf(t tree) configDB {
	db := configDB{}
	for k, v := range t {
		if !strings.HasPrefix(k, sonicPrefix) {
			continue
		}
		p, err := gnmipath.Parse(k)
		if err != nil || len(p.GetElem()) < 2 {
			continue
		}
		e := p.GetElem()
		table, key := e[0].GetName(), e[1].GetName()
		if db[table] == nil {
			db[table] = map[string]map[string]json.RawMessage{}
		}
		if db[table][key] == nil {
			db[table][key] = map[string]json.RawMessage{}
		}
		if len(e) >= 3 {
			db[table][key][e[2].GetName()] = json.RawMessage(v)
		}
	}
	return db
}

// store replaces the sonic-db part of the tree with db.
func (db configDB) store(t tree) {
	for k := range t {
		if strings.HasPrefix(k, sonicPrefix) {
			delete(t, k)
		}
	}
	for table, entries := range db {
		for key, fields := range entries {
			if len(fields) == 0 {
				t[sonicKey(table, key)] = devcfg.Empty
				continue
			}
			for f, v := range fields {
				c, err := gnmipath.CanonicalValue(v)
				if err != nil {
					c = devcfg.Value(v)
				}
				t[sonicKey(table, key, f)] = c
			}
		}
	}
}

func (db configDB) field(table, key, field string) string {
	var s string
	if err := json.Unmarshal(db[table][key][field], &s); err != nil {
		return ""
	}
	return s
}

func (db configDB) setField(table, key, field, value string) {
	if db[table] == nil {
		db[table] = map[string]map[string]json.RawMessage{}
	}
	if db[table][key] == nil {
		db[table][key] = map[string]json.RawMessage{}
	}
	db[table][key][field] = json.RawMessage(devcfg.String(value))
}

// --- Get ---

// sonicGet answers a Get the way sonic-gnmi does: only type ALL
// ("unsupported request type"); a prefix target naming a database goes to
// the DbClient (paths /TABLE/key/field, NotFound when any is missing);
// origin sonic-db to the MixedDbClient (paths /CONFIG_DB/localhost/...,
// JSON_IETF only, a table reads empty, a missing entry or field is
// NotFound); other origins (translib's OpenConfig) to the common tree.
func (t *Target) sonicGet(req *gnmipb.GetRequest) (*gnmipb.GetResponse, bool, error) {
	if req.GetType() != gnmipb.GetRequest_ALL {
		return nil, true, status.Errorf(codes.Unimplemented, "unsupported request type: %s", req.GetType())
	}
	switch req.GetEncoding() {
	case gnmipb.Encoding_JSON, gnmipb.Encoding_JSON_IETF, gnmipb.Encoding_PROTO:
	default:
		return nil, true, status.Errorf(codes.Unimplemented, "unsupported encoding: %s", req.GetEncoding())
	}
	prefix := req.GetPrefix()
	target, origin := prefix.GetTarget(), prefix.GetOrigin()
	if target == countersDBTarget {
		resp, err := t.countersDBGet(req)
		return resp, true, err
	}
	if sonicDBNames[target] {
		resp, err := t.dbClientGet(req)
		return resp, true, err
	}
	if origin == "" {
		var err error
		if origin, err = parseOrigin(req.GetPath()); err != nil {
			return nil, true, err
		}
	}
	if origin != OriginSONiC {
		return nil, false, nil
	}
	resp, err := t.mixedDBGet(req)
	return resp, true, err
}

// parseOrigin is sonic-gnmi's ParseOrigin: every path names the same origin.
func parseOrigin(paths []*gnmipb.Path) (string, error) {
	origin := ""
	for i, p := range paths {
		if i == 0 {
			origin = p.GetOrigin()
		} else if origin != p.GetOrigin() {
			return "", status.Error(codes.Unimplemented, "Origin conflict in path")
		}
	}
	return origin, nil
}

// sonicRel checks /DB/instance/... and returns the names after them.
func sonicRel(prefix, p *gnmipb.Path) ([]string, error) {
	elems := append(append([]*gnmipb.PathElem(nil), prefix.GetElem()...), p.GetElem()...)
	if len(elems) < 2 {
		return nil, status.Error(codes.Unimplemented, "Invalid elem length")
	}
	if elems[0].GetName() != SONiCDB || elems[1].GetName() != SONiCInstance {
		// NewMixedDbClient's "Invalid target" comes back as NotFound.
		return nil, status.Errorf(codes.NotFound, "Invalid target: %s/%s (this target serves /%s/%s)", elems[0].GetName(), elems[1].GetName(), SONiCDB, SONiCInstance)
	}
	var names []string
	for _, e := range elems[2:] {
		names = append(names, e.GetName())
	}
	return names, nil
}

func (t *Target) mixedDBGet(req *gnmipb.GetRequest) (*gnmipb.GetResponse, error) {
	if req.GetEncoding() != gnmipb.Encoding_JSON_IETF {
		// msi2TypedValue: "Unknown encoding", returned as NotFound.
		return nil, status.Errorf(codes.NotFound, "Unknown encoding %v", req.GetEncoding())
	}
	t.mu.Lock()
	db := configDBOf(t.tree)
	t.mu.Unlock()
	resp := &gnmipb.GetResponse{}
	for _, p := range req.GetPath() {
		names, err := sonicRel(req.GetPrefix(), p)
		if err != nil {
			return nil, err
		}
		var v any
		switch len(names) {
		case 0:
			v = db
		case 1:
			if len(db[names[0]]) == 0 {
				continue // a table with nothing: no notification
			}
			v = db[names[0]]
		case 2:
			entry, ok := db[names[0]][names[1]]
			if !ok {
				return nil, status.Errorf(codes.NotFound, "No valid entry found for path %v", p)
			}
			v = entry
		case 3:
			val, ok := db[names[0]][names[1]][names[2]]
			if !ok {
				return nil, status.Errorf(codes.NotFound, "No valid entry found for path %v", p)
			}
			v = val
		default:
			return nil, status.Errorf(codes.NotFound, "Invalid db table Path %v", p)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%v", err)
		}
		resp.Notification = append(resp.Notification, &gnmipb.Notification{
			Prefix: req.GetPrefix(),
			Update: []*gnmipb.Update{{Path: p, Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}}},
		})
	}
	return resp, nil
}

// countersDBTarget is the target of SONiC's counters.
const countersDBTarget = "COUNTERS_DB"

// countersDBGet answers a Get under target COUNTERS_DB (countersDBValue);
// any path it does not serve fails the whole Get, as ValidatePaths does.
func (t *Target) countersDBGet(req *gnmipb.GetRequest) (*gnmipb.GetResponse, error) {
	now := time.Now()
	resp := &gnmipb.GetResponse{}
	for _, p := range req.GetPath() {
		t.mu.Lock()
		val, err := t.counters.countersDBValue(t.opt.Ports, gnmipath.Join(&gnmipb.Path{Elem: req.GetPrefix().GetElem()}, p), now)
		t.mu.Unlock()
		if err != nil {
			return nil, err
		}
		resp.Notification = append(resp.Notification, &gnmipb.Notification{Timestamp: now.UnixNano(), Prefix: req.GetPrefix(),
			Update: []*gnmipb.Update{{Path: p, Val: val}}})
	}
	return resp, nil
}

// dbClientGet is the read-only DbClient: target CONFIG_DB, paths
// /TABLE[/key[/field]] with no database elements; any missing path fails
// the whole Get with NotFound (ValidatePaths). Other databases read empty.
func (t *Target) dbClientGet(req *gnmipb.GetRequest) (*gnmipb.GetResponse, error) {
	if req.GetPrefix().GetTarget() == "APPL_DB" {
		return t.applDBGet(req)
	}
	t.mu.Lock()
	db := configDBOf(t.tree)
	t.mu.Unlock()
	resp := &gnmipb.GetResponse{}
	for _, p := range req.GetPath() {
		var names []string
		for _, e := range append(append([]*gnmipb.PathElem(nil), req.GetPrefix().GetElem()...), p.GetElem()...) {
			names = append(names, e.GetName())
		}
		var v any
		ok := req.GetPrefix().GetTarget() == SONiCDB
		if ok {
			switch len(names) {
			case 1:
				v, ok = db[names[0]]
			case 2:
				v, ok = db[names[0]][names[1]]
			case 3:
				v, ok = db[names[0]][names[1]][names[2]]
			default:
				ok = false
			}
		}
		if !ok {
			return nil, status.Errorf(codes.NotFound, "%s: path %s does not exist", req.GetPrefix().GetTarget(), gnmipath.Format(p))
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%v", err)
		}
		resp.Notification = append(resp.Notification, &gnmipb.Notification{
			Prefix: req.GetPrefix(),
			Update: []*gnmipb.Update{{Path: p, Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}}},
		})
	}
	return resp, nil
}

// SetAPPLDB replaces one APPL_DB table (key → field → value), as a SONiC
// daemon writes it: lldp_syncd's LLDP_ENTRY_TABLE is keyed by local port
// with lldp_rem_sys_name, lldp_rem_port_id and lldp_rem_port_desc.
func (t *Target) SetAPPLDB(table string, entries map[string]map[string]string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.applDB == nil {
		t.applDB = map[string]map[string]map[string]string{}
	}
	c := map[string]map[string]string{}
	for k, fields := range entries {
		c[k] = map[string]string{}
		for f, v := range fields {
			c[k][f] = v
		}
	}
	t.applDB[table] = c
}

// applDBGet is the DbClient's Get on APPL_DB: /TABLE, /TABLE/key or
// /TABLE/key/field, NotFound when any is missing.
func (t *Target) applDBGet(req *gnmipb.GetRequest) (*gnmipb.GetResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	resp := &gnmipb.GetResponse{}
	for _, p := range req.GetPath() {
		var names []string
		for _, e := range append(append([]*gnmipb.PathElem(nil), req.GetPrefix().GetElem()...), p.GetElem()...) {
			names = append(names, e.GetName())
		}
		var v any
		ok := false
		switch len(names) {
		case 1:
			v, ok = t.applDB[names[0]]
		case 2:
			v, ok = t.applDB[names[0]][names[1]]
		case 3:
			v, ok = t.applDB[names[0]][names[1]][names[2]]
		}
		if !ok {
			return nil, status.Errorf(codes.NotFound, "APPL_DB: path %s does not exist", gnmipath.Format(p))
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%v", err)
		}
		resp.Notification = append(resp.Notification, &gnmipb.Notification{
			Prefix: req.GetPrefix(),
			Update: []*gnmipb.Update{{Path: p, Val: &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}}},
		})
	}
	return resp, nil
}

// --- Set ---

// patchOp is one JSON patch operation on config_db.
type patchOp struct {
	op    string // add, replace, remove
	names []string
	value json.RawMessage
}

// sonicSet applies a sonic-db SetRequest as sonic-gnmi does: deletes,
// replaces and updates become remove, replace and add operations of one
// JSON patch (a remove of a missing path is dropped), values must be
// JSON_IETF, and config apply-patch applies it: RFC 6902 semantics, no
// empty tables, then validation of the whole result (a subset of the
// SONiC YANG, see validateConfigDB). Element names are JSON-pointer
// decoded ("~1" is '/', "~0" is '~').
func (t *Target) sonicSet(req *gnmipb.SetRequest, next tree) ([]*gnmipb.UpdateResult, error) {
	prefix := req.GetPrefix()
	before := configDBOf(next)
	db := configDBOf(next)
	var ops []patchOp
	var results []*gnmipb.UpdateResult
	names := func(p *gnmipb.Path) ([]string, error) {
		rel, err := sonicRel(prefix, p)
		if err != nil {
			return nil, err
		}
		for i, n := range rel {
			rel[i] = strings.ReplaceAll(strings.ReplaceAll(n, "~1", "/"), "~0", "~")
		}
		if len(rel) == 0 {
			return nil, status.Error(codes.Unimplemented, "the simulator does not replace the whole CONFIG_DB")
		}
		if err := t.checkWritable(gnmipath.MustParse(sonicKey(rel...))); err != nil {
			return nil, err
		}
		return rel, nil
	}
	value := func(u *gnmipb.Update) (json.RawMessage, error) {
		v := u.GetVal().GetJsonIetfVal()
		if len(v) == 0 {
			return nil, status.Error(codes.Unknown, "Value encoding is not IETF JSON")
		}
		if !json.Valid(v) {
			return nil, status.Errorf(codes.Unknown, "Fail to parse %s", v)
		}
		return v, nil
	}
	for _, d := range req.GetDelete() {
		rel, err := names(d)
		if err != nil {
			return nil, err
		}
		if db.has(rel) {
			ops = append(ops, patchOp{op: "remove", names: rel})
		}
		results = append(results, &gnmipb.UpdateResult{Path: d, Op: gnmipb.UpdateResult_DELETE})
	}
	for _, list := range []struct {
		op      string
		updates []*gnmipb.Update
		kind    gnmipb.UpdateResult_Operation
	}{{"replace", req.GetReplace(), gnmipb.UpdateResult_REPLACE}, {"add", req.GetUpdate(), gnmipb.UpdateResult_UPDATE}} {
		for _, u := range list.updates {
			rel, err := names(u.GetPath())
			if err != nil {
				return nil, err
			}
			v, err := value(u)
			if err != nil {
				return nil, err
			}
			ops = append(ops, patchOp{op: list.op, names: rel, value: v})
			results = append(results, &gnmipb.UpdateResult{Path: u.GetPath(), Op: list.kind})
		}
	}
	for _, op := range ops {
		if err := db.apply(op); err != nil {
			return nil, status.Errorf(codes.Unknown, "apply-patch: %v", err)
		}
	}
	var empty []string
	for table, entries := range db {
		if len(entries) == 0 {
			empty = append(empty, table)
		}
	}
	if len(empty) > 0 {
		sort.Strings(empty)
		return nil, status.Errorf(codes.Unknown, "apply-patch: given patch is not valid because it will result in empty tables which is not allowed in ConfigDb. Tables: %s", strings.Join(empty, ", "))
	}
	if errs := validateConfigDB(db); len(errs) > 0 {
		return nil, status.Errorf(codes.Unknown, "apply-patch: Given patch will produce invalid config. Error: %s", strings.Join(errs, "; "))
	}
	bufferManager(before, db, false)
	db.store(next)
	return results, nil
}

func (db configDB) has(names []string) bool {
	entries, ok := db[names[0]]
	switch {
	case !ok:
		return false
	case len(names) == 1:
		return true
	}
	fields, ok := entries[names[1]]
	switch {
	case !ok:
		return false
	case len(names) == 2:
		return true
	}
	_, ok = fields[names[2]]
	return ok && len(names) == 3
}

// apply is one RFC 6902 operation: add needs the parent, replace and
// remove the target.
func (db configDB) apply(op patchOp) error {
	path := "/" + strings.Join(op.names, "/")
	if len(op.names) > 3 {
		return fmt.Errorf("%s %s: list items are not simulated", op.op, path)
	}
	exists := db.has(op.names)
	parent := len(op.names) == 1 || db.has(op.names[:len(op.names)-1])
	switch op.op {
	case "remove":
		if !exists {
			return fmt.Errorf("can't remove a non-existent object '%s'", path)
		}
	case "replace":
		if !exists {
			return fmt.Errorf("can't replace a non-existent object '%s'", path)
		}
	case "add":
		if !parent {
			return fmt.Errorf("member '%s' not found: can't add %s", op.names[len(op.names)-2], path)
		}
	}
	table := op.names[0]
	switch len(op.names) {
	case 1:
		if op.op == "remove" {
			delete(db, table)
			return nil
		}
		var entries map[string]map[string]json.RawMessage
		if err := json.Unmarshal(op.value, &entries); err != nil {
			return fmt.Errorf("%s %s: a table is an object of entries: %v", op.op, path, err)
		}
		if entries == nil {
			entries = map[string]map[string]json.RawMessage{}
		}
		for k, f := range entries {
			if f == nil {
				entries[k] = map[string]json.RawMessage{}
			}
		}
		db[table] = entries
	case 2:
		if op.op == "remove" {
			delete(db[table], op.names[1])
			return nil
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(op.value, &fields); err != nil {
			return fmt.Errorf("%s %s: an entry is an object of fields: %v", op.op, path, err)
		}
		if fields == nil {
			fields = map[string]json.RawMessage{}
		}
		db[table][op.names[1]] = fields
	case 3:
		if op.op == "remove" {
			delete(db[table][op.names[1]], op.names[2])
			return nil
		}
		var v any
		if err := json.Unmarshal(op.value, &v); err != nil {
			return err
		}
		switch v.(type) {
		case string, []any:
		default:
			return fmt.Errorf("%s %s: config_db holds strings and lists, not %s", op.op, path, op.value)
		}
		db[table][op.names[1]][op.names[2]] = op.value
	}
	return nil
}

// validateConfigDB checks the constraints of the SONiC YANG models that
// bear on what a QoS push writes (sonic-buildimage
// src/sonic-yang-models/yang-models): sonic-port (PORT lanes and speed
// are mandatory), sonic-portchannel (admin_status mandatory; members
// reference PORTCHANNEL and PORT), leafrefs to PORT from PORT_QOS_MAP,
// QUEUE, BUFFER_PG, PFC_WD, CABLE_LENGTH, INTERFACE and VLAN_MEMBER,
// BUFFER_PG profile (a BUFFER_PROFILE or "NULL"), QUEUE scheduler and
// wred_profile, and sonic-vlan's VLAN_MEMBER must statements (not a port
// channel member, not a router interface, untagged in one VLAN at most).
// yanglint over the whole module set is the full check (tests).
func validateConfigDB(db configDB) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	port := func(p string) bool { _, ok := db["PORT"][p]; return ok }
	lag := func(p string) bool { _, ok := db["PORTCHANNEL"][p]; return ok }
	for _, name := range slices.Sorted(maps.Keys(db["PORT"])) {
		for _, f := range []string{"lanes", "speed"} {
			if _, ok := db["PORT"][name][f]; !ok {
				fail("PORT|%s: mandatory %s is missing (sonic-port)", name, f)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(db["PORTCHANNEL"])) {
		if _, ok := db["PORTCHANNEL"][name]["admin_status"]; !ok {
			fail("PORTCHANNEL|%s: mandatory admin_status is missing (sonic-portchannel)", name)
		}
	}
	lagMember := map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(db["PORTCHANNEL_MEMBER"])) {
		l, p, _ := strings.Cut(key, "|")
		if !lag(l) || !port(p) {
			fail("PORTCHANNEL_MEMBER|%s: leafref to a missing PORTCHANNEL or PORT", key)
		}
		lagMember[p] = l
	}
	for _, table := range []string{"QUEUE", "BUFFER_PG", "BUFFER_QUEUE"} {
		for _, key := range slices.Sorted(maps.Keys(db[table])) {
			p, _, _ := strings.Cut(key, "|")
			if !port(p) {
				fail("%s|%s: leafref to missing PORT %s", table, key, p)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(db["PORT_QOS_MAP"])) {
		if key != "global" && !port(key) && !lag(key) {
			fail("PORT_QOS_MAP|%s: leafref to a missing PORT or PORTCHANNEL", key)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(db["PFC_WD"])) {
		if key != "GLOBAL" && !port(key) {
			fail("PFC_WD|%s: leafref to missing PORT", key)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(db["CABLE_LENGTH"])) {
		for p := range db["CABLE_LENGTH"][name] {
			if !port(p) {
				fail("CABLE_LENGTH|%s: leafref to missing PORT %s", name, p)
			}
		}
	}
	router := map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(db["INTERFACE"])) {
		p, _, _ := strings.Cut(key, "|")
		if !port(p) {
			fail("INTERFACE|%s: leafref to missing PORT", key)
		}
		router[p] = true
	}
	for _, key := range slices.Sorted(maps.Keys(db["BUFFER_PG"])) {
		if prof := db.field("BUFFER_PG", key, "profile"); prof != "NULL" {
			if _, ok := db["BUFFER_PROFILE"][prof]; !ok {
				fail("BUFFER_PG|%s: profile %s is neither a BUFFER_PROFILE nor NULL (sonic-buffer-pg)", key, prof)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(db["QUEUE"])) {
		for f, table := range map[string]string{"scheduler": "SCHEDULER", "wred_profile": "WRED_PROFILE"} {
			if v := db.field("QUEUE", key, f); v != "" {
				if _, ok := db[table][v]; !ok {
					fail("QUEUE|%s: %s %s does not exist", key, f, v)
				}
			}
		}
	}
	untagged := map[string]int{}
	for _, key := range slices.Sorted(maps.Keys(db["VLAN_MEMBER"])) {
		vlan, member, _ := strings.Cut(key, "|")
		if _, ok := db["VLAN"][vlan]; !ok {
			fail("VLAN_MEMBER|%s: leafref to missing VLAN %s", key, vlan)
		}
		if !port(member) && !lag(member) {
			fail("VLAN_MEMBER|%s: leafref to a missing PORT or PORTCHANNEL %s", key, member)
		}
		if l, ok := lagMember[member]; ok {
			fail("VLAN_MEMBER|%s: Port is a member of a port channel (%s)", key, l)
		}
		if router[member] {
			fail("VLAN_MEMBER|%s: Port is a router interface", key)
		}
		if db.field("VLAN_MEMBER", key, "tagging_mode") == "untagged" {
			if untagged[member]++; untagged[member] > 1 {
				fail("VLAN_MEMBER|%s: Port can be untagged in at most one VLAN", key)
			}
		}
	}
	return errs
}

// bufferManager is what buffermgrd does to CONFIG_DB after a change
// (sonic-swss cfgmgr). Under buffer_model dynamic it writes nothing there
// (buffermgrdyn computes headroom into APPL_DB and STATE_DB; BUFFER_PG
// "NULL" stays as written). Otherwise, the traditional model
// (buffermgr.cpp doSpeedUpdateTask): for a port whose speed, admin
// status, cable length or pfc_enable changed (every port when all), with
// a cable length other than 0m, a pfc_enable and the ingress lossless
// pool present, it creates BUFFER_PROFILE pg_lossless_<speed>_<cable>_profile
// if absent and sets BUFFER_PG|<port>|<range> to it for each run of
// consecutive pfc_enable priorities ("3", "3-4"), overwriting any other
// profile there and leaving other keys alone. The profile's sizes are
// this simulator's placeholders (real ones come from the SKU's
// pg_profile_lookup.ini).
func bufferManager(before, db configDB, all bool) {
	if db.field("DEVICE_METADATA", "localhost", "buffer_model") == "dynamic" {
		return
	}
	if _, ok := db["BUFFER_POOL"]["ingress_lossless_pool"]; !ok {
		return
	}
	cable := func(d configDB, p string) string {
		for _, name := range slices.Sorted(maps.Keys(d["CABLE_LENGTH"])) {
			if v, ok := d["CABLE_LENGTH"][name][p]; ok {
				var s string
				_ = json.Unmarshal(v, &s)
				return s
			}
		}
		return ""
	}
	for _, p := range slices.Sorted(maps.Keys(db["PORT"])) {
		speed, pfc, length := db.field("PORT", p, "speed"), db.field("PORT_QOS_MAP", p, "pfc_enable"), cable(db, p)
		changed := all || speed != before.field("PORT", p, "speed") || pfc != before.field("PORT_QOS_MAP", p, "pfc_enable") ||
			length != cable(before, p) || db.field("PORT", p, "admin_status") != before.field("PORT", p, "admin_status")
		if !changed || pfc == "" || length == "" || length == "0m" || speed == "" {
			continue
		}
		profile := factory.LosslessProfile(speed, length)
		if _, ok := db["BUFFER_PROFILE"][profile]; !ok {
			db.setField("BUFFER_PROFILE", profile, "pool", "ingress_lossless_pool")
			db.setField("BUFFER_PROFILE", profile, "size", "19456")
			db.setField("BUFFER_PROFILE", profile, "xon", "19456")
			db.setField("BUFFER_PROFILE", profile, "xoff", factory.LosslessXoff(speed, length))
			db.setField("BUFFER_PROFILE", profile, "dynamic_th", "1")
		}
		for _, r := range pgRanges(pfc) {
			db.setField("BUFFER_PG", p+"|"+r, "profile", profile)
		}
	}
}

// pgRanges turns "3,4,6" into the runs buffermgrd keys PGs by: "3-4", "6"
// (orch.cpp generateIdListFromMap).
func pgRanges(list string) []string {
	var bits [8]bool
	for _, s := range strings.Split(list, ",") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d", &n); err == nil && n >= 0 && n < 8 {
			bits[n] = true
		}
	}
	var out []string
	for i := 0; i < 8; i++ {
		if !bits[i] {
			continue
		}
		j := i
		for j+1 < 8 && bits[j+1] {
			j++
		}
		if i == j {
			out = append(out, fmt.Sprint(i))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", i, j))
		}
		i = j
	}
	return out
}

func escapeElem(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `/`, `\/`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}
