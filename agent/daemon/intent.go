package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/safefile"
	"github.com/rocefab/rocefab/validators/lint"
)

// Meta keys in the history database.
const (
	metaLoaded  = "loaded-revision"  // the last valid revision recorded and planned
	metaRefused = "refused-revision" // the last invalid revision recorded
)

// lastValidDir keeps a copy of the last valid intent, so a restarted
// agent whose source now holds an invalid commit keeps working.
const lastValidDir = "last-valid-intent"

// loaded is an intent the agent works from.
type loaded struct {
	res      *intent.Resolved
	snap     intentsrc.Snapshot
	ref      compliance.IntentRef
	loadedAt time.Time
	// fromCopy: loaded from the last valid copy, the source being invalid.
	fromCopy bool
}

func (l *loaded) describe() string {
	if l.snap.Commit != "" {
		return "commit " + l.snap.Commit
	}
	return "revision " + l.snap.Revision
}

type reloadStatus struct {
	OK       bool              `json:"ok"`
	At       time.Time         `json:"at"`
	Commit   string            `json:"commit,omitempty"`
	Revision string            `json:"revision,omitempty"`
	RunID    string            `json:"runId,omitempty"`
	Error    string            `json:"error,omitempty"`
	Findings []history.Finding `json:"findings,omitempty"`
}

type fetchStatus struct {
	At    time.Time `json:"at"`
	Error string    `json:"error,omitempty"`
	// FailingSince is when fetches started failing, zero while they work.
	FailingSince time.Time `json:"failingSince,omitzero"`
	// Refused: the source was read, and an intent file in it is refused
	// (not a regular file, a link out of its folder, over a limit); this
	// lasts until someone fixes the source, so the agent is not ready.
	Refused bool `json:"refused,omitempty"`
}

// intent is the intent in use, nil until one was valid.
func (a *Agent) intent() *loaded {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.current
}

// refresh fetches the source and loads a new revision.
func (a *Agent) refresh(ctx context.Context) {
	snap, err := a.cfg.Source.Update(ctx)
	a.mu.Lock()
	prev := a.fetch
	a.fetch = fetchStatus{At: a.now().UTC()}
	if err != nil {
		a.fetch.Error = err.Error()
		a.fetch.Refused = errors.Is(err, intent.ErrInput)
		a.fetch.FailingSince = prev.FailingSince
		if prev.Error == "" || prev.FailingSince.IsZero() {
			a.fetch.FailingSince = a.fetch.At
		}
	}
	a.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		a.metrics.fetchErrors.Inc()
		a.log.Warn("intent source", zap.Error(err))
		if a.intent() == nil {
			a.loadLastValid(ctx)
		}
		return
	}
	if cur := a.intent(); cur != nil && !cur.fromCopy && cur.snap.Revision == snap.Revision {
		a.recovered(cur, snap)
		return
	}
	refused, _ := a.db.Meta(metaRefused)
	if refused == snap.Revision {
		// Already recorded as invalid; keep (or find) the last valid one.
		if a.intent() == nil {
			a.loadLastValid(ctx)
		}
		return
	}
	a.load(ctx, snap)
}

// findings turns intent diagnostics into run findings, naming files
// relative to the repository root when there is one.
func findings(diags intent.Diagnostics, root string) []history.Finding {
	out := make([]history.Finding, 0, len(diags))
	for _, d := range diags {
		loc := d.Loc
		if root != "" {
			if rel, err := filepath.Rel(root, loc.File); err == nil && !strings.HasPrefix(rel, "..") {
				loc.File = rel
			}
		}
		d.Loc = loc
		out = append(out, d.AsFinding())
	}
	return out
}

// load validates a new revision and swaps it in only if it is valid. An
// invalid one is recorded as a failed reload with its findings.
func (a *Agent) load(ctx context.Context, snap intentsrc.Snapshot) {
	started := a.now().UTC()
	res, diags := lint.ValidateWith(a.deps.Renderers, a.cfg.IntentLimits, snap.Paths...)
	run := &history.Run{ID: engine.NewRunID(started), Kind: history.KindReload, Trigger: history.TriggerCommit,
		Commit: snap.Commit, Revision: snap.Revision, Shard: a.cfg.Shard.String(), Started: started, Findings: findings(diags, snap.Root)}
	run.Summary.Findings = len(run.Findings)
	if res != nil {
		run.Fabric = res.Name
	}
	what := "revision " + snap.Short()
	if snap.Commit != "" {
		what = "commit " + snap.Commit
	}
	if res == nil || diags.HasErrors() {
		errs, warns := diags.Count()
		keep := "no valid intent yet: the agent waits for a valid one"
		if cur := a.intent(); cur != nil {
			keep = "keeping the last valid intent (" + cur.describe() + ")"
		} else if cur := a.loadLastValid(ctx); cur != nil {
			keep = "keeping the last valid intent from before the restart (" + cur.describe() + ")"
		}
		run.Result = history.ResultFailure
		run.Error = fmt.Sprintf("intent at %s is invalid: %d error(s), %d warning(s); %s", what, errs, warns, keep)
		a.log.Warn("intent refused", zap.String("revision", snap.Revision), zap.Int("errors", errs), zap.String("keeping", keep))
		a.setReload(false, snap, run)
		a.record(run)
		if err := a.db.SetMeta(metaRefused, snap.Revision); err != nil {
			a.log.Error("history", zap.Error(err))
		}
		return
	}
	cur := &loaded{res: res, snap: snap, loadedAt: started,
		ref: compliance.IntentRef{Fabric: res.Name, Paths: snap.Paths, Commit: snap.Commit}}
	a.mu.Lock()
	a.current = cur
	a.mu.Unlock()
	a.setReload(true, snap, run)
	a.log.Info("intent loaded", zap.String("fabric", res.Name), zap.String("revision", snap.Revision))
	if err := a.saveLastValid(snap); err != nil {
		a.log.Warn("could not keep a copy of the valid intent", zap.Error(err))
	}
	a.followCounters(ctx, cur)
	if done, _ := a.db.Meta(metaLoaded); done == snap.Revision {
		return // a restart on a revision already planned
	}
	run.Result = history.ResultSuccess
	a.record(run)
	if err := a.db.SetMeta(metaLoaded, snap.Revision); err != nil {
		a.log.Error("history", zap.Error(err))
	}
	kind := history.KindPlan
	if a.cfg.Apply.Auto {
		kind = history.KindApply
	}
	if _, err := a.execute(ctx, kind, history.TriggerCommit, ""); err != nil {
		a.log.Error("run for the new commit", zap.Error(err))
	}
}

// recovered notes a source that is back at the intent in use after a
// refused revision (a revert to the last good content): the reload state
// is good again, under the commit that brought it back. The content was
// planned already, so nothing is planned again.
func (a *Agent) recovered(cur *loaded, snap intentsrc.Snapshot) {
	a.mu.RLock()
	ok := a.reload.OK
	a.mu.RUnlock()
	if ok {
		return
	}
	started := a.now().UTC()
	run := &history.Run{ID: engine.NewRunID(started), Kind: history.KindReload, Trigger: history.TriggerCommit,
		Commit: snap.Commit, Revision: snap.Revision, Shard: a.cfg.Shard.String(), Started: started, Fabric: cur.res.Name,
		Result: history.ResultSuccess}
	a.mu.Lock()
	cur.snap.Commit = snap.Commit
	cur.ref.Commit = snap.Commit
	a.mu.Unlock()
	a.setReload(true, snap, run)
	a.record(run)
	// The refused revision may come back: it is refused (and recorded)
	// again then.
	if err := a.db.SetMeta(metaRefused, ""); err != nil {
		a.log.Error("history", zap.Error(err))
	}
	a.log.Info("intent source back at the intent in use", zap.String("revision", snap.Revision), zap.String("commit", snap.Commit))
}

func (a *Agent) setReload(ok bool, snap intentsrc.Snapshot, run *history.Run) {
	at := a.now().UTC()
	a.mu.Lock()
	a.reload = reloadStatus{OK: ok, At: at, Commit: snap.Commit, Revision: snap.Revision, RunID: run.ID, Error: run.Error, Findings: run.Findings}
	cur := a.current
	a.mu.Unlock()
	a.metrics.reloaded(ok, at)
	if ok && cur != nil {
		a.metrics.intentInfo.Reset()
		a.metrics.intentInfo.WithLabelValues(cur.res.Name, snap.Commit, snap.Revision).Set(1)
	}
}

func (a *Agent) followCounters(ctx context.Context, cur *loaded) {
	if a.cfg.CountersInterval <= 0 {
		return
	}
	a.mu.RLock()
	runCtx := a.runCtx
	a.mu.RUnlock()
	if runCtx == nil {
		runCtx = ctx
	}
	a.streams.sync(runCtx, cur.res, a.cfg.Shard.OwnsFunc())
}

// lastValidMeta describes the copy of the last valid intent.
type lastValidMeta struct {
	Commit   string   `json:"commit,omitempty"`
	Revision string   `json:"revision"`
	Paths    []string `json:"paths"` // relative to the copy
}

// saveLastValid copies the intent files (YAML only) of a valid revision,
// read the way the loader reads them and written inside the state
// directory only.
func (a *Agent) saveLastValid(snap intentsrc.Snapshot) error {
	final := filepath.Join(a.cfg.StateDir, lastValidDir)
	tmp := final + ".tmp"
	_ = os.RemoveAll(tmp)
	dst, err := safefile.Open(tmp, 0o700)
	if err != nil {
		return err
	}
	defer dst.Close()
	meta := lastValidMeta{Commit: snap.Commit, Revision: snap.Revision}
	for i, p := range snap.Paths {
		rel := filepath.Join(fmt.Sprint(i), filepath.Base(filepath.Clean(p)))
		if err := a.copyIntent(p, dst, rel); err != nil {
			return err
		}
		meta.Paths = append(meta.Paths, rel)
	}
	data, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	if err := dst.WriteFile("meta.json", data, 0o600); err != nil {
		return err
	}
	if err := os.RemoveAll(final); err != nil {
		return err
	}
	return os.Rename(tmp, final)
}

// copyIntent copies the intent files of src (a file or a folder) to rel
// in dst.
func (a *Agent) copyIntent(src string, dst *safefile.Dir, rel string) error {
	files, err := intent.InputFiles(src)
	if err != nil {
		return err
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	lim := a.cfg.IntentLimits
	if lim.FileBytes <= 0 {
		lim.FileBytes = intent.DefaultFileBytes
	}
	for _, f := range files {
		target := rel
		if info.IsDir() {
			inner, err := filepath.Rel(src, f)
			if err != nil {
				return err
			}
			target = filepath.Join(rel, inner)
		}
		data, err := intent.ReadInput(f, lim.FileBytes)
		if err != nil {
			return err
		}
		if err := dst.WriteFile(target, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// loadLastValid loads the copy of the last valid intent when the agent
// has none (a restart while the source is invalid or unreachable).
func (a *Agent) loadLastValid(ctx context.Context) *loaded {
	if cur := a.intent(); cur != nil {
		return cur
	}
	dir := filepath.Join(a.cfg.StateDir, lastValidDir)
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil
	}
	var meta lastValidMeta
	if err := json.Unmarshal(data, &meta); err != nil || len(meta.Paths) == 0 {
		return nil
	}
	paths := make([]string, len(meta.Paths))
	for i, p := range meta.Paths {
		paths[i] = filepath.Join(dir, p)
	}
	res, diags := lint.ValidateWith(a.deps.Renderers, a.cfg.IntentLimits, paths...)
	if res == nil || diags.HasErrors() {
		a.log.Warn("the copy of the last valid intent no longer validates", zap.String("dir", dir))
		return nil
	}
	snap := intentsrc.Snapshot{Paths: paths, Commit: meta.Commit, Revision: meta.Revision}
	cur := &loaded{res: res, snap: snap, loadedAt: a.now().UTC(), fromCopy: true,
		ref: compliance.IntentRef{Fabric: res.Name, Paths: paths, Commit: meta.Commit}}
	a.mu.Lock()
	a.current = cur
	a.mu.Unlock()
	a.metrics.intentInfo.Reset()
	a.metrics.intentInfo.WithLabelValues(res.Name, meta.Commit, meta.Revision).Set(1)
	a.log.Info("working from the copy of the last valid intent", zap.String("revision", meta.Revision))
	a.followCounters(ctx, cur)
	return cur
}
