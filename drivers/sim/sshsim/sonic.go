package sshsim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/drivers/sim/factory"
)

// sonicDevice plays SONiC over SSH: a bash prompt, config_db as JSON,
// `sudo config checkpoint/rollback/apply-patch` (RFC 6902 patches, applied
// atomically after a schema check) and the shell commands the driver uses
// to write a patch file (echo, base64 -d, rm, cat).
type sonicDevice struct {
	sim         *Sim
	db          map[string]any
	checkpoints map[string]map[string]any
	files       map[string][]byte
}

func newSONiCDevice(s *Sim) (personality, error) {
	d := &sonicDevice{sim: s, checkpoints: map[string]map[string]any{}, files: map[string][]byte{}}
	d.db = sonicInitial(s.opt)
	return d, nil
}

// sonicInitial is the platform's factory CONFIG_DB, with the foreign
// configuration of a production switch unless the device starts blank.
func sonicInitial(o Options) map[string]any {
	db := map[string]any{}
	for table, entries := range factory.SONiC(factory.SONiCOptions{Hostname: o.Hostname, Ports: o.Ports, BufferModel: o.BufferModel, Foreign: !o.Blank}) {
		t := map[string]any{}
		for key, fields := range entries {
			e := map[string]any{}
			for f, v := range fields {
				e[f] = v
			}
			t[key] = e
		}
		db[table] = t
	}
	return db
}

// bufferModel is DEVICE_METADATA|localhost buffer_model.
func bufferModel(db map[string]any) string {
	if md, ok := db["DEVICE_METADATA"].(map[string]any); ok {
		if lh, ok := md["localhost"].(map[string]any); ok {
			m, _ := lh["buffer_model"].(string)
			return m
		}
	}
	return ""
}

func (d *sonicDevice) login(*session) string {
	return "Linux " + d.sim.hostname() + " 5.10.0-23-2-amd64 #1 SMP Debian 5.10.179-3 x86_64\nYou are on\n  ____   ___  _   _ _  ____\n / ___| / _ \\| \\ | (_)/ ___|\n \\___ \\| | | |  \\| | | |\n  ___) | |_| | |\\  | | |___\n |____/ \\___/|_| \\_|_|\\____|\n\n-- Software for Open Networking in the Cloud --\n\n"
}

func (d *sonicDevice) logout(*session) {}

func (d *sonicDevice) prompt(s *session) string {
	return s.user + "@" + d.hostname() + ":~$ "
}

func (d *sonicDevice) hostname() string {
	if md, ok := d.db["DEVICE_METADATA"].(map[string]any); ok {
		if lh, ok := md["localhost"].(map[string]any); ok {
			if h, ok := lh["hostname"].(string); ok {
				return h
			}
		}
	}
	return d.sim.hostname()
}

func (d *sonicDevice) invalid(_ *session, line string) string {
	return "-bash: " + firstWord(line) + ": command not found"
}

func (d *sonicDevice) pending() bool { return false }

func (d *sonicDevice) config() string { return d.showRunning() }

// showRunning prints config_db the way `show runningconfiguration all`
// does: sorted keys, four-space indent.
func (d *sonicDevice) showRunning() string { return marshalConfigDB(d.db) }

// materialize does what SONiC's daemons write into config_db by themselves
// after a change: under the traditional buffer model buffermgrd replaces a
// lossless priority group's "NULL" profile with a generated
// pg_lossless_<speed>_<cable>_profile (and creates it); under the dynamic
// model config_db keeps "NULL" (the generated profile lives in APPL_DB, as
// sonic-config-engine's dynamic-model sample output shows). WRED profiles
// get their default fields.
func (d *sonicDevice) materialize(db map[string]any) {
	if pgs, ok := db["BUFFER_PG"].(map[string]any); ok && bufferModel(db) == "traditional" {
		for key, v := range pgs {
			pg, ok := v.(map[string]any)
			if !ok || pg["profile"] != "NULL" {
				continue
			}
			port, _, _ := strings.Cut(key, "|")
			name, speed, cable := d.generatedProfile(db, port)
			pg["profile"] = name
			profiles, ok := db["BUFFER_PROFILE"].(map[string]any)
			if !ok {
				profiles = map[string]any{}
				db["BUFFER_PROFILE"] = profiles
			}
			profiles[name] = map[string]any{"dynamic_th": "0", "pool": "ingress_lossless_pool", "size": "19456", "xoff": factory.LosslessXoff(speed, cable), "xon": "19456"}
		}
	}
	if wred, ok := db["WRED_PROFILE"].(map[string]any); ok {
		for _, v := range wred {
			if p, ok := v.(map[string]any); ok {
				for _, f := range []string{"wred_yellow_enable", "wred_red_enable"} {
					if _, set := p[f]; !set {
						p[f] = "false"
					}
				}
			}
		}
	}
}

func (d *sonicDevice) generatedProfile(db map[string]any, port string) (name, speed, cable string) {
	speed, cable = "100000", "5m"
	if ports, ok := db["PORT"].(map[string]any); ok {
		if p, ok := ports[port].(map[string]any); ok {
			if s, ok := p["speed"].(string); ok {
				speed = s
			}
		}
	}
	if cl, ok := db["CABLE_LENGTH"].(map[string]any); ok {
		for _, v := range cl {
			if m, ok := v.(map[string]any); ok {
				if c, ok := m[port].(string); ok {
					cable = c
				}
			}
		}
	}
	return factory.LosslessProfile(speed, cable), speed, cable
}

func marshalConfigDB(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	_ = enc.Encode(v)
	return strings.TrimRight(b.String(), "\n")
}

// hand: "SET /TABLE/key/field value" and "DEL /TABLE[/key[/field]]" lines.
func (d *sonicDevice) hand(lines []string) error {
	next := deepCopyJSON(d.db).(map[string]any)
	for _, l := range lines {
		verb, rest, _ := strings.Cut(strings.TrimSpace(l), " ")
		path, value, _ := strings.Cut(rest, " ")
		segs, err := parsePointer(path)
		if err != nil || len(segs) == 0 || len(segs) > 3 {
			return fmt.Errorf("sshsim: hand change %q: bad path", l)
		}
		switch verb {
		case "SET":
			cur := next
			for _, s := range segs[:len(segs)-1] {
				m, ok := cur[s].(map[string]any)
				if !ok {
					m = map[string]any{}
					cur[s] = m
				}
				cur = m
			}
			cur[segs[len(segs)-1]] = value
		case "DEL":
			if err := jsonRemove(next, segs); err != nil {
				return fmt.Errorf("sshsim: hand change %q: %v", l, err)
			}
		default:
			return fmt.Errorf("sshsim: hand change %q: want SET or DEL", l)
		}
	}
	d.materialize(next)
	d.db = next
	return nil
}

func (d *sonicDevice) exec(s *session, raw string) string {
	line := strings.TrimSpace(raw)
	if line == "" {
		return ""
	}
	if out, ok := d.sim.lockShell(s, line); ok {
		return out
	}
	if file, log, ok := nohupApplyPatch(line); ok {
		// nohup(1) runs the command immune to hangups with its output in
		// the log, so it completes even when the session ends meanwhile.
		out := d.config2([]string{"apply-patch", file})
		rc := 0
		if strings.Contains(out, "Error:") {
			rc = 1
		}
		d.files[log] = []byte(out + "\nrc=" + strconv.Itoa(rc) + "\n")
		return ""
	}
	sudo := false
	if rest, ok := strings.CutPrefix(line, "sudo "); ok {
		sudo, line = true, strings.TrimSpace(rest)
	}
	f := strings.Fields(line)
	switch {
	case line == "exit" || line == "logout":
		s.closed = true
		return "logout"
	case line == "show runningconfiguration all":
		return d.showRunning()
	case line == "show pfc counters":
		return d.showPFC()
	case f[0] == "config":
		if !sudo {
			return "Root privileges are required for this operation"
		}
		return d.config2(f[1:])
	case f[0] == "echo":
		return d.echo(line)
	case f[0] == "base64" && len(f) == 5 && f[1] == "-d" && f[3] == ">":
		in, ok := d.files[f[2]]
		if !ok {
			return "base64: " + f[2] + ": No such file or directory"
		}
		out, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(in), "\n", ""))
		if err != nil {
			return "base64: invalid input"
		}
		d.files[f[4]] = out
		return ""
	case f[0] == "rm":
		for _, name := range f[1:] {
			if strings.HasPrefix(name, "-") {
				continue
			}
			if prefix, glob := strings.CutSuffix(name, "*"); glob {
				// bash expands the pattern to the files it matches.
				for file := range d.files {
					if strings.HasPrefix(file, prefix) {
						delete(d.files, file)
					}
				}
				continue
			}
			delete(d.files, name)
		}
		return ""
	case f[0] == "cat" && len(f) == 2:
		b, ok := d.files[f[1]]
		if !ok {
			return "cat: " + f[1] + ": No such file or directory"
		}
		return string(b)
	case f[0] == "hostname":
		return d.hostname()
	}
	return d.invalid(s, line)
}

// nohupApplyPatch matches the form a client uses to run apply-patch so
// that a dropped session cannot interrupt it:
//
//	sudo nohup sh -c 'config apply-patch FILE; echo "rc=$?"' > LOG 2>&1
func nohupApplyPatch(line string) (file, log string, ok bool) {
	rest, ok := strings.CutPrefix(line, "sudo nohup sh -c 'config apply-patch ")
	if !ok {
		return "", "", false
	}
	file, rest, ok = strings.Cut(rest, `; echo "rc=$?"' > `)
	if !ok {
		return "", "", false
	}
	log, ok = strings.CutSuffix(rest, " 2>&1")
	return file, log, ok && file != "" && log != ""
}

// execCut runs a line whose session ends while it runs. bash(1): "The
// shell exits by default upon receipt of a SIGHUP. Before exiting, an
// interactive shell resends the SIGHUP to all jobs", so a foreground
// `config apply-patch` dies part-way: the Generic Config Updater applies a
// patch as a sequence of changes ("applying N changes in order"), and the
// ones before the signal stay in config_db. Under nohup it completes.
func (d *sonicDevice) execCut(s *session, raw string) string {
	line := strings.TrimSpace(raw)
	file, plain := strings.CutPrefix(line, "sudo config apply-patch ")
	if !plain {
		return d.exec(s, raw)
	}
	body, ok := d.files[file]
	var ops []patchOp
	if !ok || json.Unmarshal(body, &ops) != nil || len(ops) < 2 {
		return d.exec(s, raw)
	}
	next := deepCopyJSON(d.db).(map[string]any)
	for _, op := range ops[:len(ops)/2] {
		if applyOp(next, op) != nil {
			return ""
		}
	}
	d.materialize(next)
	d.db = next
	return ""
}

// echo supports `echo WORDS > FILE` and `echo WORDS >> FILE`.
func (d *sonicDevice) echo(line string) string {
	body := strings.TrimPrefix(line, "echo")
	appendTo := strings.Contains(body, ">>")
	text, file, redirected := strings.Cut(body, ">")
	if !redirected {
		return strings.TrimSpace(body)
	}
	file = strings.TrimSpace(strings.TrimPrefix(file, ">"))
	text = strings.Trim(strings.TrimSpace(text), "'\"") + "\n"
	if file == "" {
		return "-bash: syntax error near unexpected token `newline'"
	}
	if appendTo {
		d.files[file] = append(d.files[file], text...)
	} else {
		d.files[file] = []byte(text)
	}
	return ""
}

var sonicCheckpointName = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,128}$`)

func (d *sonicDevice) config2(args []string) string {
	if len(args) == 0 {
		return "Usage: config [OPTIONS] COMMAND [ARGS]..."
	}
	switch args[0] {
	case "checkpoint":
		if len(args) != 2 || !sonicCheckpointName.MatchString(args[1]) {
			return "Usage: config checkpoint [OPTIONS] CHECKPOINT_NAME\nError: Missing argument 'CHECKPOINT_NAME'."
		}
		d.checkpoints[args[1]] = deepCopyJSON(d.db).(map[string]any)
		return "Config Rollbacker: Config checkpoint starting.\nConfig Rollbacker: Checkpoint name: " + args[1] + ".\nConfig Rollbacker: Getting current config db.\nConfig Rollbacker: Saving config db content to /etc/sonic/checkpoints/" + args[1] + ".cp.json.\nConfig Rollbacker: Config checkpoint completed.\nCheckpoint created successfully."
	case "rollback":
		if len(args) != 2 {
			return "Usage: config rollback [OPTIONS] CHECKPOINT_NAME\nError: Missing argument 'CHECKPOINT_NAME'."
		}
		cp, ok := d.checkpoints[args[1]]
		if !ok {
			return "Config Rollbacker: Config rollbacking starting.\nFailed to config rollback due to: Checkpoint '" + args[1] + "' does not exist\nError: Checkpoint '" + args[1] + "' does not exist"
		}
		d.db = deepCopyJSON(cp).(map[string]any)
		return "Config Rollbacker: Config rollbacking starting.\nConfig Rollbacker: Checkpoint name: " + args[1] + ".\nConfig Rollbacker: Verifying '" + args[1] + "' exists.\nConfig Rollbacker: Loading checkpoint into memory.\nConfig Rollbacker: Replacing config using 'Config Replacer'.\nConfig Rollbacker: Config rollbacking completed.\nConfig rolled back successfully."
	case "delete-checkpoint":
		if len(args) != 2 {
			return "Error: Missing argument 'CHECKPOINT_NAME'."
		}
		if _, ok := d.checkpoints[args[1]]; !ok {
			return "Failed to delete checkpoint due to: Checkpoint '" + args[1] + "' does not exist\nError: Checkpoint '" + args[1] + "' does not exist"
		}
		delete(d.checkpoints, args[1])
		return "Checkpoint deleted successfully."
	case "list-checkpoints":
		names := make([]string, 0, len(d.checkpoints))
		for n := range d.checkpoints {
			names = append(names, n)
		}
		sort.Strings(names)
		b, _ := json.MarshalIndent(names, "", "    ")
		return string(b)
	case "apply-patch":
		if len(args) != 2 {
			return "Usage: config apply-patch [OPTIONS] PATCH_FILE_PATH\nError: Missing argument 'PATCH_FILE_PATH'."
		}
		return d.applyPatch(args[1])
	}
	return "Usage: config [OPTIONS] COMMAND [ARGS]...\nTry \"config -h\" for help.\n\nError: No such command \"" + args[0] + "\"."
}

type patchOp struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value"`
}

func (d *sonicDevice) applyPatch(file string) string {
	body, ok := d.files[file]
	if !ok {
		return "Error: Invalid value for 'PATCH_FILE_PATH': Path '" + file + "' does not exist."
	}
	fail := func(msg string) string {
		return "Patch Applier: localhost: Patch application starting.\nFailed to apply patch due to: " + msg + "\nUsage: config apply-patch [OPTIONS] PATCH_FILE_PATH\nTry \"config apply-patch -h\" for help.\n\nError: " + msg
	}
	var ops []patchOp
	if err := json.Unmarshal(body, &ops); err != nil {
		return fail("Patch is not valid JSON: " + err.Error())
	}
	faults := d.sim.faults
	next := deepCopyJSON(d.db).(map[string]any)
	for _, op := range ops {
		if faults.RejectLine != "" && strings.Contains(op.Path, faults.RejectLine) {
			msg := faults.RejectMessage
			if msg == "" {
				msg = "Given patch will produce invalid config. Error: Data Loading Failed: path " + op.Path + " is rejected"
			}
			return fail(msg)
		}
		if err := applyOp(next, op); err != nil {
			return fail(err.Error())
		}
	}
	if msg := faults.CommitError; msg != "" {
		return fail(msg)
	}
	if err := validateConfigDB(next); err != nil {
		return fail("Given patch will produce invalid config. Error: " + err.Error())
	}
	d.materialize(next)
	d.db = next
	var shown bytes.Buffer
	_ = json.Compact(&shown, body)
	return "Patch Applier: localhost: Patch application starting.\nPatch Applier: localhost: Patch: " + shown.String() + "\nPatch Applier: localhost getting current config db.\nPatch Applier: localhost: simulating the target full config after applying the patch.\nPatch Applier: localhost: validating all JsonPatch operations are permitted on the specified fields\nPatch Applier: localhost: validating target config does not have empty tables,\n                            since they do not show up in ConfigDb.\nPatch Applier: localhost: sorting patch updates.\nPatch Applier: localhost: applying " + strconv.Itoa(len(ops)) + " changes in order:\nPatch Applier: localhost: verifying patch updates are reflected on ConfigDB.\nPatch Applier: localhost patch application completed.\nPatch applied successfully."
}

func applyOp(doc map[string]any, op patchOp) error {
	segs, err := parsePointer(op.Path)
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		return fmt.Errorf("cannot %s the whole config", op.Op)
	}
	var value any
	if op.Op == "add" || op.Op == "replace" || op.Op == "test" {
		if len(op.Value) == 0 {
			return fmt.Errorf("%s %s has no value", op.Op, op.Path)
		}
		if err := json.Unmarshal(op.Value, &value); err != nil {
			return err
		}
	}
	parent, err := jsonParent(doc, segs)
	if err != nil {
		return fmt.Errorf("%s %s: %v", op.Op, op.Path, err)
	}
	last := segs[len(segs)-1]
	_, exists := parent[last]
	switch op.Op {
	case "add":
		parent[last] = value
	case "replace":
		if !exists {
			return fmt.Errorf("replace %s: path does not exist", op.Path)
		}
		parent[last] = value
	case "remove":
		if !exists {
			return fmt.Errorf("remove %s: path does not exist", op.Path)
		}
		delete(parent, last)
	case "test":
		a, _ := json.Marshal(parent[last])
		b, _ := json.Marshal(value)
		if !exists || !bytes.Equal(a, b) {
			return fmt.Errorf("test %s failed", op.Path)
		}
	default:
		return fmt.Errorf("unsupported op %q", op.Op)
	}
	return nil
}

func jsonParent(doc map[string]any, segs []string) (map[string]any, error) {
	cur := doc
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("parent %q does not exist", s)
		}
		cur = next
	}
	return cur, nil
}

func jsonRemove(doc map[string]any, segs []string) error {
	parent, err := jsonParent(doc, segs)
	if err != nil {
		return err
	}
	if _, ok := parent[segs[len(segs)-1]]; !ok {
		return fmt.Errorf("path does not exist")
	}
	delete(parent, segs[len(segs)-1])
	return nil
}

// parsePointer reads an RFC 6901 JSON pointer ("/a/b~1c" is a, b/c).
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", p)
	}
	segs := strings.Split(p[1:], "/")
	for i, s := range segs {
		for j := 0; j < len(s); j++ {
			if s[j] == '~' && (j+1 >= len(s) || (s[j+1] != '0' && s[j+1] != '1')) {
				return nil, fmt.Errorf("JSON pointer %q has a bad escape", p)
			}
		}
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, nil
}

// sonicTables are the tables with YANG models the simulator knows; a patch
// touching any other table is refused, as the generic config updater does.
var sonicTables = map[string]bool{
	"PORT": true, "VLAN": true, "VLAN_MEMBER": true, "DSCP_TO_TC_MAP": true, "DOT1P_TO_TC_MAP": true,
	"TC_TO_QUEUE_MAP": true, "TC_TO_PRIORITY_GROUP_MAP": true, "MAP_PFC_PRIORITY_TO_QUEUE": true,
	"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": true, "PORT_QOS_MAP": true, "WRED_PROFILE": true, "SCHEDULER": true,
	"QUEUE": true, "BUFFER_PG": true, "BUFFER_QUEUE": true, "BUFFER_PROFILE": true, "BUFFER_POOL": true,
	"CABLE_LENGTH": true, "PFC_WD": true, "DEVICE_METADATA": true, "PORTCHANNEL": true, "PORTCHANNEL_MEMBER": true,
	"LOOPBACK_INTERFACE": true, "INTERFACE": true, "VLAN_INTERFACE": true, "MGMT_INTERFACE": true, "MGMT_PORT": true,
	"DEFAULT_LOSSLESS_BUFFER_PARAMETER": true, "FLEX_COUNTER_TABLE": true, "LLDP": true, "FEATURE": true,
}

// validateConfigDB is a small stand-in for SONiC's YANG validation.
func validateConfigDB(db map[string]any) error {
	var unknown []string
	for table, v := range db {
		if !sonicTables[table] {
			unknown = append(unknown, table)
			continue
		}
		keys, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("table %s is not an object", table)
		}
		if len(keys) == 0 {
			return fmt.Errorf("table %s is empty", table)
		}
		for key, kv := range keys {
			fields, ok := kv.(map[string]any)
			if !ok {
				return fmt.Errorf("%s|%s is not an object", table, key)
			}
			for field, fv := range fields {
				switch x := fv.(type) {
				case string:
				case []any:
					for _, e := range x {
						if _, ok := e.(string); !ok {
							return fmt.Errorf("%s|%s|%s: list elements must be strings", table, key, field)
						}
					}
				default:
					return fmt.Errorf("%s|%s|%s: value must be a string", table, key, field)
				}
			}
			if table == "PORT" {
				if m, ok := fields["mtu"].(string); ok {
					if n, err := strconv.Atoi(m); err != nil || n < 68 || n > 9216 {
						return fmt.Errorf("PORT|%s|mtu %q is outside 68..9216", key, m)
					}
				}
			}
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		//lint:ignore ST1005 the generic config updater's own wording
		return fmt.Errorf("Given patch is not valid because it has changes to tables without YANG models: %q", unknown)
	}
	return nil
}

func (d *sonicDevice) showPFC() string {
	var b strings.Builder
	ports, _ := d.db["PORT"].(map[string]any)
	names := make([]string, 0, len(ports))
	for n := range ports {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	qos, _ := d.db["PORT_QOS_MAP"].(map[string]any)
	counters := map[string]Counters{}
	enabled := map[string]map[string]bool{}
	for _, n := range names {
		on := map[string]bool{}
		if m, ok := qos[n].(map[string]any); ok {
			if list, ok := m["pfc_enable"].(string); ok {
				for _, p := range strings.Split(list, ",") {
					on[strings.TrimSpace(p)] = true
				}
			}
		}
		enabled[n] = on
		counters[n] = d.sim.tick(n, len(on) > 0)
	}
	for _, dir := range []string{"Rx", "Tx"} {
		fmt.Fprintf(&b, "  Port %s    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n", dir)
		b.WriteString("-----------  ------  ------  ------  ------  ------  ------  ------  ------\n")
		for _, n := range names {
			fmt.Fprintf(&b, "%11s", n)
			for prio := 0; prio < 8; prio++ {
				v := uint64(0)
				if enabled[n][strconv.Itoa(prio)] {
					v = counters[n].PFCRx
					if dir == "Tx" {
						v = counters[n].PFCTx
					}
				}
				fmt.Fprintf(&b, "  %6d", v)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func deepCopyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopyJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopyJSON(x)
		}
		return out
	}
	return v
}
