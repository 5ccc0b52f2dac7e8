package sshsim

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// junosDevice plays Junos: operational and configuration modes, `set` and
// `delete` statements on a candidate, commit check, commit confirmed with a
// real rollback timer, rollback N, and `show configuration | display set`.
type junosDevice struct {
	sim       *Sim
	committed []string // statements without "set ", in display order
	// history[0] is the active configuration, history[i] the i-th before.
	history []commitRecord
	// confirmStop cancels the pending commit-confirmed rollback.
	confirmStop func() bool
	confirmAt   time.Time
	exclusive   *session
	shared      []string // the shared candidate of plain `configure`
}

type commitRecord struct {
	config  []string
	at      time.Time
	user    string
	note    string
	comment string
}

func newJunosDevice(s *Sim) (personality, error) {
	d := &junosDevice{sim: s}
	d.committed = junosInitial(s.opt)
	d.shared = append([]string(nil), d.committed...)
	d.history = []commitRecord{{config: d.committed, at: s.now(), user: "root"}}
	return d, nil
}

func junosInitial(o Options) []string {
	out := []string{"version 23.4R1.10", "system host-name " + o.Hostname}
	if !o.Blank {
		out = append(out,
			`system root-authentication encrypted-password "$6$Hn8pQ$1uY9oQ6mNw0"`,
			"system login user admin class super-user",
			"system services ssh",
			"system services netconf ssh",
			`interfaces et-0/0/0 description "gpu05 ens1f0np0"`,
			"interfaces em0 unit 0 family inet address 10.0.0.15/24",
			"class-of-service forwarding-classes class FOREIGN_VOICE queue-num 5",
			"vlans servers vlan-id 10",
			"protocols lldp interface all",
		)
	}
	return out
}

func (d *junosDevice) login(s *session) string {
	return "--- JUNOS 23.4R1.10 Kernel 64-bit  JNPR-12.1-20231212.9e7b4a3_buil\n"
}

func (d *junosDevice) logout(s *session) {
	if d.exclusive == s {
		d.exclusive = nil
	}
	s.junosMode = ""
}

func (d *junosDevice) prompt(s *session) string {
	host := d.hostname()
	if s.junosMode != "" {
		return "\n[edit]\n" + s.user + "@" + host + "# "
	}
	return s.user + "@" + host + "> "
}

func (d *junosDevice) hostname() string {
	for _, st := range d.committed {
		if h, ok := strings.CutPrefix(st, "system host-name "); ok {
			return h
		}
	}
	return d.sim.opt.Hostname
}

func (d *junosDevice) invalid(s *session, line string) string {
	return strings.Repeat(" ", len(s.user)+len(d.hostname())+3) + "^\nsyntax error."
}

func (d *junosDevice) pending() bool { return d.confirmStop != nil }

func (d *junosDevice) config() string { return d.display(d.committed) }

func (d *junosDevice) showRunning() string { return d.display(d.committed) }

func (d *junosDevice) display(stmts []string) string {
	var b strings.Builder
	for _, st := range stmts {
		b.WriteString("set " + st + "\n")
	}
	return b.String()
}

func (d *junosDevice) hand(lines []string) error {
	cand := append([]string(nil), d.committed...)
	for _, l := range lines {
		var err error
		if cand, err = junosEdit(cand, normaliseLine(l)); err != nil {
			return fmt.Errorf("sshsim: hand change rejected: %q: %v", l, err)
		}
	}
	d.commit(cand, "root", "")
	return nil
}

func (d *junosDevice) exec(s *session, raw string) string {
	line := normaliseLine(raw)
	if s.junosMode != "" {
		return d.execConfig(s, line)
	}
	return d.execOperational(s, line)
}

func (d *junosDevice) execOperational(s *session, line string) string {
	switch {
	case line == "":
		return ""
	case line == "exit" || line == "quit":
		s.closed = true
		return ""
	case strings.HasPrefix(line, "set cli screen-width "):
		return "Screen width set to " + strings.TrimPrefix(line, "set cli screen-width ")
	case strings.HasPrefix(line, "set cli screen-length "):
		return "Screen length set to " + strings.TrimPrefix(line, "set cli screen-length ")
	case line == "set cli complete-on-space off":
		return "Disabling complete-on-space"
	case line == "show configuration | display set" || line == "show configuration | display set | no-more":
		return d.display(d.committed)
	case strings.HasSuffix(line, " | display json"):
		if out, ok := d.showJSONJunos(line); ok {
			return out
		}
	}
	switch {
	case line == "show system commit":
		return d.showCommits()
	case line == "show lldp neighbors detail | display json" || line == "show lldp neighbors detail | display json | no-more":
		return d.sim.junosLLDP()
	case line == "show version":
		return "Hostname: " + d.hostname() + "\nModel: qfx5220-32cd\nJunos: 23.4R1.10"
	case line == "configure" || line == "configure private" || line == "configure exclusive":
		return d.enter(s, strings.TrimPrefix(strings.TrimPrefix(line, "configure"), " "))
	}
	return strings.Repeat(" ", len(s.user)+len(d.hostname())+3) + "^\nunknown command."
}

func (d *junosDevice) enter(s *session, mode string) string {
	switch mode {
	case "":
		mode = "shared"
	case "exclusive":
		if d.exclusive != nil && d.exclusive != s {
			return "error: configuration database locked by:\n  admin terminal p0 (pid 4242) on since " + d.sim.now().UTC().Format("2006-01-02 15:04:05 UTC")
		}
		d.exclusive = s
	case "private":
		if !equalStmts(d.shared, d.committed) {
			return "error: shared configuration database modified\nUsers currently editing the configuration:\n  admin terminal p0"
		}
	}
	s.junosMode = mode
	if mode == "shared" {
		s.junosCandidate = nil
	} else {
		s.junosCandidate = append([]string(nil), d.committed...)
	}
	s.junosBase = append([]string(nil), d.committed...)
	warn := ""
	if mode != "shared" {
		warn = "warning: uncommitted changes will be discarded on exit\n"
	}
	return warn + "Entering configuration mode"
}

func (d *junosDevice) candidate(s *session) []string {
	if s.junosMode == "shared" {
		return d.shared
	}
	return s.junosCandidate
}

func (d *junosDevice) setCandidate(s *session, c []string) {
	if s.junosMode == "shared" {
		d.shared = c
		return
	}
	s.junosCandidate = c
}

func (d *junosDevice) leave(s *session) {
	if d.exclusive == s {
		d.exclusive = nil
	}
	s.junosMode, s.junosCandidate, s.junosBase = "", nil, nil
}

func (d *junosDevice) execConfig(s *session, line string) string {
	switch {
	case line == "":
		return ""
	case line == "exit configuration-mode" || line == "exit" || line == "quit":
		d.leave(s)
		return "Exiting configuration mode"
	case line == "commit check":
		if msg := d.sim.faults.CommitError; msg != "" {
			return "error: " + msg + "\nerror: configuration check-out failed"
		}
		if msg := junosCommitCheck(d.candidate(s)); msg != "" {
			return "error: " + msg + "\nerror: configuration check-out failed"
		}
		return "configuration check succeeds"
	case line == "commit" || strings.HasPrefix(line, "commit "):
		mins, comment, quit, ok := parseJunosCommit(line)
		if !ok {
			return d.invalid(s, line)
		}
		if mins > 0 && s.junosMode == "private" {
			return "error: 'commit confirmed' is not supported in private mode"
		}
		out, done := d.commitFrom(s, mins, comment)
		if done && quit {
			d.leave(s)
			out += "\nExiting configuration mode"
		}
		return out
	case strings.HasPrefix(line, "rollback"):
		n := 0
		if rest := strings.TrimSpace(strings.TrimPrefix(line, "rollback")); rest != "" {
			var err error
			if n, err = strconv.Atoi(rest); err != nil || n < 0 {
				return d.invalid(s, line)
			}
		}
		if n >= len(d.history) {
			return "error: rollback " + strconv.Itoa(n) + " does not exist"
		}
		d.setCandidate(s, append([]string(nil), d.history[n].config...))
		return "load complete"
	case line == "show | display set" || line == "show | compare":
		if line == "show | compare" {
			return ""
		}
		return d.display(d.candidate(s))
	case strings.HasPrefix(line, "run "):
		return d.execOperational(s, strings.TrimPrefix(line, "run "))
	case strings.HasPrefix(line, "set ") || strings.HasPrefix(line, "delete "):
		c, err := junosEdit(append([]string(nil), d.candidate(s)...), line)
		if err != nil {
			if err == errStatementNotFound {
				return "warning: statement not found"
			}
			return d.caret(s, line, err)
		}
		d.setCandidate(s, c)
		return ""
	}
	return d.invalid(s, line)
}

func (d *junosDevice) caret(s *session, line string, err error) string {
	pos := 0
	if se, ok := err.(*junosSyntaxError); ok {
		pos = se.offset
	}
	return strings.Repeat(" ", len(s.user)+len(d.hostname())+2+pos) + "^\nsyntax error."
}

// commitFrom commits the session's candidate; minutes > 0 makes it a
// commit confirmed that rolls back unless confirmed in time. A plain
// commit while one is pending confirms it.
// parseJunosCommit reads `commit [confirmed [MINUTES]] [comment "TEXT"]
// [and-quit]` (Junos CLI User Guide, commit: confirmed defaults to 10
// minutes, 1-65535; the comment shows in `show system commit`).
func parseJunosCommit(line string) (mins int, comment string, quit, ok bool) {
	rest := strings.TrimSpace(strings.TrimPrefix(line, "commit"))
	for rest != "" {
		var word string
		word, rest, _ = strings.Cut(rest, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "confirmed":
			mins = 10
			if n, tail, _ := strings.Cut(rest, " "); n != "" {
				if v, err := strconv.Atoi(n); err == nil {
					if v < 1 || v > 65535 {
						return 0, "", false, false
					}
					mins, rest = v, strings.TrimSpace(tail)
				}
			}
		case "comment":
			if !strings.HasPrefix(rest, "\"") {
				comment, rest, _ = strings.Cut(rest, " ")
				continue
			}
			end := strings.Index(rest[1:], "\"")
			if end < 0 {
				return 0, "", false, false
			}
			comment, rest = rest[1:end+1], strings.TrimSpace(rest[end+2:])
		case "and-quit":
			quit = true
		case "check":
			return 0, "", false, false
		default:
			return 0, "", false, false
		}
	}
	return mins, comment, quit, true
}

func (d *junosDevice) commitFrom(s *session, minutes int, comment string) (string, bool) {
	if msg := d.sim.faults.CommitError; msg != "" {
		return "error: " + msg + "\nerror: configuration check-out failed", false
	}
	if d.exclusive != nil && d.exclusive != s {
		return "error: configuration database locked by another user", false
	}
	next := d.candidate(s)
	if s.junosMode == "private" {
		// Merge the private changes onto the configuration committed since.
		next = mergeStatements(d.committed, s.junosBase, s.junosCandidate)
	}
	if msg := junosCommitCheck(next); msg != "" {
		return "error: " + msg + "\nerror: configuration check-out failed", false
	}
	wasPending := d.confirmStop != nil
	if wasPending {
		d.confirmStop()
		d.confirmStop = nil
	}
	note := ""
	out := "configuration check succeeds\n"
	if minutes > 0 {
		note = fmt.Sprintf("commit confirmed, rollback in %dmins", minutes)
		out += fmt.Sprintf("commit confirmed will be automatically rolled back in %d minutes unless confirmed\n", minutes)
	}
	d.commit(next, s.user, note)
	d.history[0].comment = comment
	if s.junosMode != "shared" {
		s.junosCandidate = append([]string(nil), d.committed...)
		s.junosBase = append([]string(nil), d.committed...)
	}
	if minutes > 0 {
		d.confirmAt = d.sim.now().Add(time.Duration(minutes) * time.Minute)
		d.confirmStop = d.sim.after(float64(minutes)*60, func() {
			d.confirmStop = nil
			d.commit(append([]string(nil), d.history[1].config...), "root", "automatic rollback of unconfirmed commit")
			d.sim.log.Debug("commit confirmed expired: configuration rolled back")
		})
		out += "commit complete\n\n# commit confirmed will be rolled back in " + strconv.Itoa(minutes) + " minutes"
		return out, true
	}
	return out + "commit complete", true
}

func (d *junosDevice) commit(next []string, user, note string) {
	d.committed = append([]string(nil), next...)
	d.shared = append([]string(nil), d.committed...)
	d.history = append([]commitRecord{{config: d.committed, at: d.sim.now(), user: user, note: note}}, d.history...)
	if len(d.history) > 50 {
		d.history = d.history[:50]
	}
}

func (d *junosDevice) showCommits() string {
	var b strings.Builder
	for i, h := range d.history {
		fmt.Fprintf(&b, "%-3d %s by %s via cli", i, h.at.UTC().Format("2006-01-02 15:04:05 UTC"), h.user)
		if i == 0 && h.note != "" && d.confirmStop != nil {
			left := int(d.confirmAt.Sub(d.sim.now()).Minutes()) + 1
			fmt.Fprintf(&b, " commit confirmed, rollback in %dmins", left)
		} else if h.note != "" && !strings.HasPrefix(h.note, "commit confirmed") {
			b.WriteString(" " + h.note)
		}
		b.WriteString("\n")
		if h.comment != "" {
			b.WriteString("    " + h.comment + "\n")
		}
	}
	return b.String()
}

// mergeStatements applies the difference between base and changed onto cur.
func mergeStatements(cur, base, changed []string) []string {
	inBase := map[string]bool{}
	for _, s := range base {
		inBase[s] = true
	}
	inChanged := map[string]bool{}
	for _, s := range changed {
		inChanged[s] = true
	}
	var out []string
	present := map[string]bool{}
	for _, s := range cur {
		if inBase[s] && !inChanged[s] {
			continue // removed privately
		}
		out = append(out, s)
		present[s] = true
	}
	for _, s := range changed {
		if !inBase[s] && !present[s] {
			out = append(out, s)
			present[s] = true
		}
	}
	return out
}

func equalStmts(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type junosSyntaxError struct {
	offset int
	msg    string
}

func (e *junosSyntaxError) Error() string { return e.msg }

var errStatementNotFound = fmt.Errorf("statement not found")

// junosEdit applies one `set` or `delete` line to a statement list.
func junosEdit(stmts []string, line string) ([]string, error) {
	verb, rest, _ := strings.Cut(line, " ")
	words, err := junosWords(rest)
	if err != nil {
		return nil, &junosSyntaxError{offset: len(verb) + 1, msg: err.Error()}
	}
	if len(words) == 0 {
		return nil, &junosSyntaxError{offset: len(verb) + 1, msg: "missing statement"}
	}
	if bad := junosCheck(words); bad >= 0 {
		off := len(verb) + 1
		for _, w := range words[:bad] {
			off += len(w) + 1
		}
		return nil, &junosSyntaxError{offset: off, msg: "syntax error"}
	}
	switch verb {
	case "set":
		for _, st := range junosExpand(words) {
			stmts = junosSet(stmts, st)
		}
		return stmts, nil
	case "delete":
		prefix := strings.Join(words, " ")
		kept := stmts[:0:0]
		found := false
		for _, st := range stmts {
			if st == prefix || strings.HasPrefix(st, prefix+" ") {
				found = true
				continue
			}
			kept = append(kept, st)
		}
		if !found {
			return nil, errStatementNotFound
		}
		return kept, nil
	}
	return nil, &junosSyntaxError{msg: "unknown verb"}
}

// junosValueKeywords are single-valued leaves: setting one replaces the old
// value ("mtu 9216" replaces "mtu 1500").
var junosValueKeywords = map[string]bool{
	"mtu": true, "vlan-id": true, "queue-num": true, "pfc-priority": true, "interface-mode": true,
	"congestion-notification-profile": true, "scheduler-map": true, "scheduler": true,
	"drop-profile": true, "priority": true, "percent": true, "host-name": true, "description": true,
	"native-vlan-id": true, "speed": true, "buffer-size": true, "cable-length": true,
}

func junosSet(stmts []string, words []string) []string {
	st := strings.Join(words, " ")
	key := ""
	n := len(words)
	switch {
	case n >= 3 && words[n-1] == "no-loss" && words[n-3] == "queue-num":
		key = strings.Join(words[:n-2], " ") + " "
	case n >= 2 && junosValueKeywords[words[n-2]]:
		key = strings.Join(words[:n-1], " ") + " "
	}
	for i, cur := range stmts {
		if cur == st {
			return stmts
		}
		if key != "" && strings.HasPrefix(cur, key) && isOneValue(cur[len(key):]) {
			stmts[i] = st
			return stmts
		}
	}
	return append(stmts, st)
}

// isOneValue reports whether tail is a single value: one word, a quoted
// string, or queue-num's "N no-loss".
func isOneValue(tail string) bool {
	if strings.HasPrefix(tail, "\"") && strings.HasSuffix(tail, "\"") {
		return true
	}
	return !strings.Contains(tail, " ") || strings.HasSuffix(tail, " no-loss") && strings.Count(tail, " ") == 1
}

// junosWords splits a statement, keeping quoted strings whole and the
// brackets of lists as their own words.
func junosWords(s string) ([]string, error) {
	var words []string
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return words, nil
		}
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, fmt.Errorf("unterminated quoted string")
			}
			words = append(words, s[:end+1])
			s = s[end+1:]
		case '[', ']':
			words = append(words, s[:1])
			s = s[1:]
		default:
			end := strings.IndexAny(s, " []\"")
			if end < 0 {
				end = len(s)
			}
			words = append(words, s[:end])
			s = s[end:]
		}
	}
}

// junosExpand turns "a [ x y ] b" into "a x b" and "a y b": Junos stores
// list elements one statement each.
func junosExpand(words []string) [][]string {
	open := -1
	for i, w := range words {
		if w == "[" {
			open = i
			break
		}
	}
	if open < 0 {
		return [][]string{words}
	}
	closeAt := -1
	for i := open + 1; i < len(words); i++ {
		if words[i] == "]" {
			closeAt = i
			break
		}
	}
	if closeAt < 0 || closeAt == open+1 {
		return [][]string{words}
	}
	var out [][]string
	for _, item := range words[open+1 : closeAt] {
		st := append(append(append([]string(nil), words[:open]...), item), words[closeAt+1:]...)
		out = append(out, junosExpand(st)...)
	}
	return out
}

var (
	junosIfName  = regexp.MustCompile(`^((et|xe|ge|mge)-\d+/\d+/\d+(:\d+)?|ae\d+|em\d+|irb|lo0|vme|et-\*|interface-range)$`)
	junosRoots   = map[string]bool{"system": true, "interfaces": true, "class-of-service": true, "vlans": true, "protocols": true, "chassis": true, "routing-options": true, "policy-options": true, "firewall": true, "snmp": true, "forwarding-options": true, "routing-instances": true, "groups": true, "apply-groups": true}
	junosCoSKids = map[string]bool{"classifiers": true, "code-point-aliases": true, "congestion-notification-profile": true, "drop-profiles": true, "forwarding-classes": true, "forwarding-class-sets": true, "interfaces": true, "rewrite-rules": true, "scheduler-maps": true, "schedulers": true, "shared-buffer": true, "traffic-control-profiles": true, "host-outbound-traffic": true}
	junosIfKids  = map[string]bool{"mtu": true, "description": true, "unit": true, "ether-options": true, "gigether-options": true, "disable": true, "native-vlan-id": true, "flexible-vlan-tagging": true, "encapsulation": true, "speed": true, "aggregated-ether-options": true}
	junosVLANKid = map[string]bool{"vlan-id": true, "description": true, "l3-interface": true, "interface": true, "vlan-id-list": true}
)

// junosCheck returns the index of the first word the grammar rejects, or -1.
func junosCheck(w []string) int {
	if !junosRoots[w[0]] {
		return 0
	}
	if len(w) < 2 {
		return 1
	}
	switch w[0] {
	case "class-of-service":
		if !junosCoSKids[w[1]] {
			return 1
		}
		if w[1] == "interfaces" && len(w) > 2 && !junosIfName.MatchString(w[2]) {
			return 2
		}
	case "interfaces":
		if !junosIfName.MatchString(w[1]) {
			return 1
		}
		if len(w) > 2 && !junosIfKids[w[2]] {
			return 2
		}
	case "vlans":
		if len(w) > 2 && !junosVLANKid[w[2]] {
			return 2
		}
	}
	for i, x := range w {
		if strings.ContainsAny(x, "{};") {
			return i
		}
	}
	return -1
}

// junosDefaultClasses are the QFX forwarding classes Junos keeps unless a
// statement redefines them: queue and whether the class is lossless.
var junosDefaultClasses = map[string]struct {
	queue    string
	lossless bool
}{
	"best-effort": {"0", false}, "fcoe": {"3", true}, "no-loss": {"4", true}, "network-control": {"7", false},
}

// junosCommitCheck is what the commit's check-out refuses: forwarding
// classes that share an output queue with different packet drop
// attributes (Juniper, QFX CoS forwarding classes: the classes mapped to
// one queue are all lossless or all lossy), counting Junos's default
// lossless fcoe (queue 3) and no-loss (queue 4) classes.
func junosCommitCheck(stmts []string) string {
	type class struct {
		queue    string
		lossless bool
	}
	classes := map[string]class{}
	for name, c := range junosDefaultClasses {
		classes[name] = class{c.queue, c.lossless}
	}
	for _, st := range stmts {
		rest, ok := strings.CutPrefix(st, "class-of-service forwarding-classes class ")
		if !ok {
			continue
		}
		name, tail, _ := strings.Cut(rest, " ")
		q, ok := strings.CutPrefix(tail, "queue-num ")
		if !ok {
			continue
		}
		q, loss := strings.CutSuffix(q, " no-loss")
		classes[name] = class{q, loss}
	}
	byQueue := map[string][]string{}
	for name, c := range classes {
		byQueue[c.queue] = append(byQueue[c.queue], name)
	}
	queues := make([]string, 0, len(byQueue))
	for q := range byQueue {
		queues = append(queues, q)
	}
	sort.Strings(queues)
	for _, q := range queues {
		names := byQueue[q]
		sort.Strings(names)
		for _, n := range names[1:] {
			if classes[n].lossless != classes[names[0]].lossless {
				return fmt.Sprintf("class-of-service forwarding-classes: forwarding classes %s and %s share queue %s with different packet drop attributes", names[0], n, q)
			}
		}
	}
	return ""
}
