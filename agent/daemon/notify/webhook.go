package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/finding"
)

// Schema versions the generic JSON body.
const Schema = "rocefab.io/notification/v1"

// Format is the body's shape.
type Format string

// Formats.
const (
	// Generic is rocefab's own JSON (Event, plus a text line).
	Generic Format = "generic"
	// Slack is {"text": "..."}, which Slack, Mattermost and Teams incoming
	// webhooks accept.
	Slack Format = "slack"
)

// ErrConfig is wrapped by errors in the webhook settings.
var ErrConfig = errors.New("webhook")

// Severities of an event or a device change, by what the drift does to
// the lossless class: critical when it breaks it (the RoCE DSCP on a lossy
// queue, PFC off, a lower MTU), warning when it degrades it or a device
// cannot be checked, info otherwise (back to compliant, say).
const (
	SeverityCritical = "critical"
	SeverityWarning  = "warning"
	SeverityInfo     = "info"
)

// severityRank orders the words on the shared finding scale.
func severityRank(s string) int {
	v, _ := finding.ParseSeverity(s)
	return int(v)
}

// Event is one run's compliance changes.
type Event struct {
	// Severity is the worst of the changes': receivers page on critical.
	Severity string         `json:"severity"`
	Fabric   string         `json:"fabric"`
	Shard    string         `json:"shard,omitempty"`
	RunID    string         `json:"runId"`
	RunKind  string         `json:"runKind"`
	Commit   string         `json:"commit,omitempty"`
	Time     time.Time      `json:"time"`
	Changes  []DeviceChange `json:"changes"`
	// Links are the fabric links a mesh run found turned bad or recovered
	// (RunKind mesh; Changes is then empty).
	Links []LinkChange `json:"links,omitempty"`
	// Findings are the lossless counter findings a detector round raised
	// or cleared (RunKind lossless; Changes is then empty).
	Findings []FindingChange `json:"findings,omitempty"`
}

// Finding events.
const (
	FindingRaised  = "finding_raised"
	FindingCleared = "finding_cleared"
)

// FindingChange is one lossless finding of the counters that was raised
// or cleared.
type FindingChange struct {
	Event    string `json:"event"` // finding_raised or finding_cleared
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Device   string `json:"device"`
	Port     string `json:"port,omitempty"`
	// Priority is nil for a finding about a whole port or device.
	Priority *int   `json:"priority,omitempty"`
	Message  string `json:"message"`
	// Where is the intent line that declares the subject.
	Where     string    `json:"where,omitempty"`
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
	// ProbeRuns are the probe runs that ran while the finding was seen.
	ProbeRuns []string `json:"probeRuns,omitempty"`
}

// Severity is the webhook's word for a finding's severity: an error
// breaks the lossless class, so it pages as critical.
func Severity(s finding.Severity) string {
	switch {
	case s >= finding.Error:
		return SeverityCritical
	case s == finding.Warning:
		return SeverityWarning
	}
	return SeverityInfo
}

// NewFindingChange is the change for f, of any source, raised or cleared;
// a cleared finding is info.
func NewFindingChange(event string, f finding.Finding) FindingChange {
	fc := FindingChange{Event: event, Code: string(f.Code), Severity: Severity(f.Severity), Device: f.Subject.Device,
		Port: f.Subject.Port, Priority: f.Subject.Priority, Message: f.Message, Where: f.Where,
		FirstSeen: f.FirstSeen, LastSeen: f.LastSeen}
	if event == FindingCleared {
		fc.Severity = SeverityInfo
	}
	return fc
}

func (f FindingChange) subject() string {
	s := f.Device
	if f.Port != "" {
		s += " " + f.Port
	}
	if f.Priority != nil {
		s += " priority " + strconv.Itoa(*f.Priority)
	}
	return s
}

// Link events.
const (
	LinkBad       = "link_bad"
	LinkRecovered = "link_recovered"
)

// LinkChange is one fabric link direction that turned bad or recovered.
type LinkChange struct {
	Event     string `json:"event"` // link_bad or link_recovered
	Link      string `json:"link"`
	Direction string `json:"direction"`
	From      string `json:"from"` // the last known state, "" when first seen
	To        string `json:"to"`
	// Classes are the symptoms localized on the link; Evidence says what
	// the flows saw, as the mesh report does.
	Classes  []string `json:"classes,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
	Severity string   `json:"severity"`
}

// DeviceChange is one device whose compliance state changed.
type DeviceChange struct {
	Device   string `json:"device"`
	Platform string `json:"platform,omitempty"`
	From     string `json:"from"` // "" when first seen
	To       string `json:"to"`
	// Changes is how many differences the device shows; Breaking how many
	// of them break the lossless class.
	Changes  int    `json:"changes,omitempty"`
	Breaking int    `json:"breaking,omitempty"`
	Severity string `json:"severity,omitempty"`
	// Worst is the difference that matters most, as the drift report
	// shows it ("interface Ethernet1/7 > mtu 1500 -> mtu 9216").
	Worst string `json:"worst,omitempty"`
	Error string `json:"error,omitempty"`
}

// Finish orders the changes, critical ones first, and sets the event's
// severity to the worst of theirs (devices' and links').
func (e *Event) Finish() {
	sort.SliceStable(e.Links, func(i, j int) bool {
		ri, rj := severityRank(e.Links[i].Severity), severityRank(e.Links[j].Severity)
		if ri != rj {
			return ri > rj
		}
		if e.Links[i].Link != e.Links[j].Link {
			return e.Links[i].Link < e.Links[j].Link
		}
		return e.Links[i].Direction < e.Links[j].Direction
	})
	sort.SliceStable(e.Changes, func(i, j int) bool {
		ri, rj := severityRank(e.Changes[i].Severity), severityRank(e.Changes[j].Severity)
		if ri != rj {
			return ri > rj
		}
		return e.Changes[i].Device < e.Changes[j].Device
	})
	sort.SliceStable(e.Findings, func(i, j int) bool {
		ri, rj := severityRank(e.Findings[i].Severity), severityRank(e.Findings[j].Severity)
		if ri != rj {
			return ri > rj
		}
		return e.Findings[i].subject() < e.Findings[j].subject()
	})
	e.Severity = SeverityInfo
	for _, c := range e.Changes {
		if severityRank(c.Severity) > severityRank(e.Severity) {
			e.Severity = c.Severity
		}
	}
	for _, l := range e.Links {
		if severityRank(l.Severity) > severityRank(e.Severity) {
			e.Severity = l.Severity
		}
	}
	for _, f := range e.Findings {
		if severityRank(f.Severity) > severityRank(e.Severity) {
			e.Severity = f.Severity
		}
	}
}

// Text is the one-message summary used by the Slack form.
func (e Event) Text() string {
	var b strings.Builder
	if e.Severity == SeverityCritical {
		b.WriteString("CRITICAL: lossless class broken: ")
	}
	fmt.Fprintf(&b, "rocefab %s", e.Fabric)
	if e.Shard != "" {
		fmt.Fprintf(&b, " (shard %s)", e.Shard)
	}
	if len(e.Links) > 0 && len(e.Changes) == 0 {
		e.linkText(&b)
		return b.String()
	}
	if len(e.Findings) > 0 && len(e.Changes) == 0 {
		e.findingText(&b)
		return b.String()
	}
	fmt.Fprintf(&b, ": %d device(s) changed compliance state", len(e.Changes))
	for i, c := range e.Changes {
		if i == maxTextDevices {
			fmt.Fprintf(&b, "\n• and %d more (see the run)", len(e.Changes)-i)
			break
		}
		from := c.From
		if from == "" {
			from = "unknown"
		}
		fmt.Fprintf(&b, "\n• %s: %s → %s", c.Device, from, c.To)
		if c.Changes > 0 {
			fmt.Fprintf(&b, " (%d difference(s)", c.Changes)
			if c.Breaking > 0 {
				fmt.Fprintf(&b, ", %d breaking the lossless class", c.Breaking)
			}
			b.WriteString(")")
		}
		if c.Worst != "" {
			fmt.Fprintf(&b, ": %s", c.Worst)
		}
		if c.Error != "" {
			fmt.Fprintf(&b, ": %s", c.Error)
		}
	}
	fmt.Fprintf(&b, "\n%s run %s", e.RunKind, e.RunID)
	if e.Commit != "" {
		fmt.Fprintf(&b, " at commit %s", shortSHA(e.Commit))
	}
	return b.String()
}

// linkText is the message of a mesh run's link changes.
func (e Event) linkText(b *strings.Builder) {
	bad := 0
	for _, l := range e.Links {
		if l.Event == LinkBad {
			bad++
		}
	}
	fmt.Fprintf(b, ": %d fabric link(s) turned bad, %d recovered", bad, len(e.Links)-bad)
	for i, l := range e.Links {
		if i == maxTextDevices {
			fmt.Fprintf(b, "\n• and %d more (see the run)", len(e.Links)-i)
			break
		}
		what := "bad"
		if l.Event == LinkRecovered {
			what = "recovered"
		}
		fmt.Fprintf(b, "\n• %s (%s): %s", l.Link, l.Direction, what)
		if len(l.Classes) > 0 {
			fmt.Fprintf(b, " (%s)", strings.Join(l.Classes, ", "))
		}
		if len(l.Evidence) > 0 {
			fmt.Fprintf(b, ": %s", strings.Join(l.Evidence, "; "))
		}
	}
	fmt.Fprintf(b, "\n%s run %s", e.RunKind, e.RunID)
	if e.Commit != "" {
		fmt.Fprintf(b, " at commit %s", shortSHA(e.Commit))
	}
}

// findingText is the message of a detector round's findings.
func (e Event) findingText(b *strings.Builder) {
	raised := 0
	for _, f := range e.Findings {
		if f.Event == FindingRaised {
			raised++
		}
	}
	fmt.Fprintf(b, ": %d lossless finding(s) raised, %d cleared", raised, len(e.Findings)-raised)
	for i, f := range e.Findings {
		if i == maxTextDevices {
			fmt.Fprintf(b, "\n• and %d more (see the run)", len(e.Findings)-i)
			break
		}
		what := "raised"
		if f.Event == FindingCleared {
			what = "cleared"
		}
		fmt.Fprintf(b, "\n• %s %s on %s: %s", f.Code, what, f.subject(), f.Message)
		if len(f.ProbeRuns) > 0 {
			fmt.Fprintf(b, " (during probe run(s) %s)", strings.Join(f.ProbeRuns, ", "))
		}
	}
	fmt.Fprintf(b, "\n%s run %s", e.RunKind, e.RunID)
	if e.Commit != "" {
		fmt.Fprintf(b, " at commit %s", shortSHA(e.Commit))
	}
}

// maxTextDevices keeps a chat message readable (and under chat size
// limits) when a whole fabric changes state at once.
const maxTextDevices = 25

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// Options configure a webhook.
type Options struct {
	// URL receives the POSTs. It is a secret (Slack URLs carry a token):
	// it is never logged.
	URL    string
	Format Format
	// Attempts is how many times a notification is tried (default 5);
	// Backoff is the first wait between attempts, doubling up to
	// MaxBackoff (default 1s and 1m).
	Attempts   int
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Timeout bounds one attempt (default 10s).
	Timeout time.Duration
	// Queue is how many notifications wait while one is being delivered
	// (default 256); beyond it the oldest waiting one is dropped.
	Queue  int
	Client *http.Client
	Logger *zap.Logger
	// Delivered, if set, is called after each notification with whether it
	// was delivered and how many attempts it took (for metrics).
	Delivered func(ok bool, attempts int)
}

// Webhook delivers events in order from one goroutine.
type Webhook struct {
	opt   Options
	log   *zap.Logger
	mu    sync.Mutex
	queue []Event
	wake  chan struct{}
	stop  context.CancelFunc
	ctx   context.Context
	done  chan struct{}
	// closed stops new events.
	closed bool
}

// New checks the options and starts delivering.
func New(opt Options) (*Webhook, error) {
	u, err := url.Parse(opt.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		// The URL is a secret: do not echo it.
		return nil, fmt.Errorf("%w: the URL is not an http(s) URL", ErrConfig)
	}
	switch opt.Format {
	case "":
		opt.Format = Generic
	case Generic, Slack:
	default:
		return nil, fmt.Errorf("%w: format %q: use generic or slack", ErrConfig, opt.Format)
	}
	if opt.Attempts <= 0 {
		opt.Attempts = 5
	}
	if opt.Backoff <= 0 {
		opt.Backoff = time.Second
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = time.Minute
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	if opt.Queue <= 0 {
		opt.Queue = 256
	}
	if opt.Client == nil {
		opt.Client = &http.Client{}
	}
	if opt.Logger == nil {
		opt.Logger = zap.NewNop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &Webhook{opt: opt, log: opt.Logger, wake: make(chan struct{}, 1), ctx: ctx, stop: cancel, done: make(chan struct{})}
	go w.loop()
	return w, nil
}

// Notify queues an event; it never blocks the caller.
func (w *Webhook) Notify(ev Event) {
	if len(ev.Changes) == 0 && len(ev.Links) == 0 && len(ev.Findings) == 0 {
		return
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	if len(w.queue) >= w.opt.Queue {
		w.log.Warn("webhook queue full: dropping the oldest notification", zap.String("run", w.queue[0].RunID))
		w.queue = w.queue[1:]
	}
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Close stops taking events and waits for the queue to drain until ctx
// ends; what is left then is dropped.
func (w *Webhook) Close(ctx context.Context) {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		w.stop()
		<-w.done
	}
	w.stop()
}

func (w *Webhook) next() (Event, bool, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return Event{}, false, w.closed
	}
	ev := w.queue[0]
	w.queue = w.queue[1:]
	return ev, true, false
}

func (w *Webhook) loop() {
	defer close(w.done)
	for {
		ev, ok, closed := w.next()
		if closed {
			return
		}
		if !ok {
			select {
			case <-w.wake:
				continue
			case <-w.ctx.Done():
				return
			}
		}
		delivered, attempts := w.deliver(ev)
		if w.opt.Delivered != nil {
			w.opt.Delivered(delivered, attempts)
		}
		if w.ctx.Err() != nil {
			return
		}
	}
}

// body is the POSTed JSON.
func (w *Webhook) body(ev Event) ([]byte, error) {
	if w.opt.Format == Slack {
		return json.Marshal(map[string]string{"text": ev.Text()})
	}
	return json.Marshal(struct {
		SchemaVersion string `json:"schemaVersion"`
		Event
		Text string `json:"text"`
	}{Schema, ev, ev.Text()})
}

// deliver tries an event until it is accepted, refused for good, or the
// attempts run out.
func (w *Webhook) deliver(ev Event) (bool, int) {
	body, err := w.body(ev)
	if err != nil {
		w.log.Error("webhook body", zap.Error(err))
		return false, 0
	}
	wait := w.opt.Backoff
	for attempt := 1; ; attempt++ {
		retry, after, err := w.post(body)
		if err == nil {
			w.log.Info("webhook delivered", zap.String("run", ev.RunID), zap.Int("devices", len(ev.Changes)), zap.Int("links", len(ev.Links)),
				zap.Int("findings", len(ev.Findings)), zap.Int("attempt", attempt))
			return true, attempt
		}
		if !retry || attempt >= w.opt.Attempts {
			w.log.Warn("webhook not delivered", zap.String("run", ev.RunID), zap.Int("attempts", attempt), zap.Error(err))
			return false, attempt
		}
		if after > 0 {
			wait = min(after, w.opt.MaxBackoff)
		}
		w.log.Info("webhook failed, retrying", zap.Duration("in", wait), zap.Error(err))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-w.ctx.Done():
			t.Stop()
			return false, attempt
		}
		wait = min(wait*2, w.opt.MaxBackoff)
	}
}

// post sends once. It reports whether a failure is worth retrying and how
// long the server asked to wait. Errors never contain the URL.
func (w *Webhook) post(body []byte) (retry bool, after time.Duration, err error) {
	ctx, cancel := context.WithTimeout(w.ctx, w.opt.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.opt.URL, bytes.NewReader(body))
	if err != nil {
		return false, 0, errors.New("building the request failed")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "rocefab-agent")
	resp, err := w.opt.Client.Do(req)
	if err != nil {
		// url.Error prints the URL: keep only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return true, 0, fmt.Errorf("POST failed: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return false, 0, nil
	}
	err = fmt.Errorf("POST answered %s", resp.Status)
	if resp.StatusCode == http.StatusTooManyRequests {
		if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
			after = time.Duration(s) * time.Second
		}
		return true, after, err
	}
	return resp.StatusCode >= 500, 0, err
}
