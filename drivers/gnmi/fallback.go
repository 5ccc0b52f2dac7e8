package gnmi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// pushWithFallback is commit-confirmed done by rocefab: read the region
// the patch touches, Set, and restore the region when the window passes
// without Confirm.
func (d *Driver) pushWithFallback(ctx context.Context, req *gnmipb.SetRequest, patch devcfg.Patch, window time.Duration) (drivers.Pending, error) {
	region, err := d.region(patch)
	if err != nil {
		return nil, err
	}
	snapshot, err := d.read(ctx, "push", region)
	if err != nil {
		return nil, err
	}
	setErr := d.set(ctx, req, patch)
	if setErr != nil && !unanswered(setErr) {
		return nil, setErr
	}
	p := &fallbackPending{d: d, id: newCommitID(), region: region, snapshot: snapshot}
	if setErr != nil {
		// Maybe applied: the pending change can still restore the snapshot.
		setErr = commitUnknown(setErr)
	}
	d.mu.Lock()
	d.pending[p] = struct{}{}
	d.mu.Unlock()
	p.timer = time.AfterFunc(window, p.expire)
	d.log.Info("pushed, pending confirmation from rocefab", zap.String("set", patchSummary(patch)), zap.String("commit", p.id), zap.Duration("window", window))
	return p, setErr
}

// region is every path the rollback must restore: the owned scope plus
// whatever the patch touches outside it.
// With an empty patch it is what Fetch reads. Prefixes such as
// "/WRED_PROFILE/ROCEFAB_" are read from their last whole element.
func (d *Driver) region(patch devcfg.Patch) (map[string][]string, error) {
	keys := append([]string(nil), d.opt.Scope.Paths...)
	for _, p := range d.opt.Scope.PathPrefixes {
		keys = append(keys, d.m.wholeElems(p))
	}
	for _, u := range patch.Updates {
		keys = append(keys, u.Path)
	}
	keys = append(keys, patch.Deletes...)
	var all []string
	for _, k := range keys {
		c, err := d.m.canon(k)
		if err != nil {
			return nil, d.deviceErr("fetch", k, "", err)
		}
		all = append(all, c)
	}
	return groupPaths(all), nil
}

// fallbackPending is a change rocefab itself rolls back.
type fallbackPending struct {
	d        *Driver
	id       string
	region   map[string][]string
	snapshot devcfg.Paths
	timer    *time.Timer

	mu   sync.Mutex
	done bool
	err  error // outcome of an automatic rollback
}

func (p *fallbackPending) ID() string { return p.id }

// Confirm keeps the change; it fails when the window already passed.
func (p *fallbackPending) Confirm(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return p.d.deviceErr("confirm", "commit "+p.id, "", fmt.Errorf("%w: the confirm window passed and the change was rolled back", drivers.ErrRejected))
	}
	p.timer.Stop()
	p.finish()
	p.d.log.Info("change confirmed", zap.String("commit", p.id))
	return nil
}

// Rollback restores the snapshot now.
func (p *fallbackPending) Rollback(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return p.err
	}
	p.timer.Stop()
	p.finish()
	p.err = p.d.restore(ctx, p.region, p.snapshot)
	return p.err
}

func (p *fallbackPending) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.finish()
	ctx, cancel := context.WithTimeout(context.Background(), p.d.opt.Timeout*time.Duration(p.d.opt.Retries+1))
	defer cancel()
	p.err = p.d.restore(ctx, p.region, p.snapshot)
	if p.err != nil {
		p.d.log.Error("confirm window passed; rollback FAILED", zap.String("commit", p.id), zap.Error(p.err))
		return
	}
	p.d.log.Warn("confirm window passed without confirmation; rolled back", zap.String("commit", p.id))
}

func (p *fallbackPending) finish() {
	p.done = true
	p.d.mu.Lock()
	delete(p.d.pending, p)
	p.d.mu.Unlock()
}

// restore makes the region equal to the snapshot with one SetRequest:
// changed or missing leaves are written back, and what appeared is
// deleted at the highest element that held nothing before.
func (d *Driver) restore(ctx context.Context, region map[string][]string, snapshot devcfg.Paths) error {
	current, err := d.read(ctx, "rollback", region)
	if err != nil {
		return err
	}
	var patch devcfg.Patch
	for _, k := range snapshot.Keys() {
		if current[k] != snapshot[k] {
			patch.Updates = append(patch.Updates, devcfg.PathUpdate{Path: k, Value: snapshot[k]})
		}
	}
	deletes := map[string]bool{}
	for _, k := range current.Keys() {
		if _, ok := snapshot[k]; ok {
			continue
		}
		deletes[deleteTarget(k, region, snapshot)] = true
	}
	for k := range deletes {
		covered := false
		for other := range deletes {
			if other != k && gnmipath.Under(k, other) {
				covered = true
			}
		}
		if !covered {
			patch.Deletes = append(patch.Deletes, k)
		}
	}
	sort.Strings(patch.Deletes)
	if patch.Empty() {
		return nil
	}
	req, err := d.setRequest(ctx, patch)
	if err != nil {
		return err
	}
	if err := d.set(ctx, req, patch); err != nil {
		var de *drivers.DeviceError
		if errors.As(err, &de) {
			de.Step = "rollback"
		}
		return err
	}
	d.log.Info("rolled back", zap.Int("restored", len(patch.Updates)), zap.Int("deleted", len(patch.Deletes)))
	return nil
}

// deleteTarget is the highest ancestor of leaf, at or below the region
// path it was read from, under which the snapshot held nothing.
func deleteTarget(leaf string, region map[string][]string, snapshot devcfg.Paths) string {
	lp, err := gnmipath.Parse(leaf)
	if err != nil {
		return leaf
	}
	baseLen := len(lp.GetElem())
	for _, paths := range region {
		for _, r := range paths {
			if gnmipath.Under(leaf, r) {
				rp, err := gnmipath.Parse(r)
				if err == nil && len(rp.GetElem()) < baseLen {
					baseLen = len(rp.GetElem())
				}
			}
		}
	}
	if baseLen == 0 {
		baseLen = 1 // never delete an origin's root
	}
	for i := baseLen; i < len(lp.GetElem()); i++ {
		cand := gnmipath.Format(&gnmipb.Path{Origin: lp.GetOrigin(), Elem: lp.GetElem()[:i]})
		empty := true
		for k := range snapshot {
			if gnmipath.Under(k, cand) {
				empty = false
				break
			}
		}
		if empty {
			return cand
		}
	}
	return leaf
}

func newCommitID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "rocefab-" + hex.EncodeToString(b)
}

func durationpbOf(d time.Duration) *durationpb.Duration { return durationpb.New(d) }

// heldRegion is a change committed at once whose region snapshot the
// driver keeps until the caller read the target back: Rollback restores
// the region exactly (including what the target generated beside
// rocefab's leaves), Confirm forgets it.
type heldRegion struct {
	d        *Driver
	region   map[string][]string
	snapshot devcfg.Paths

	mu   sync.Mutex
	done bool
}

// holdRegion reads the region a patch touches.
func (d *Driver) holdRegion(ctx context.Context, patch devcfg.Patch) (*heldRegion, error) {
	region, err := d.region(patch)
	if err != nil {
		return nil, err
	}
	snapshot, err := d.read(ctx, "push", region)
	if err != nil {
		return nil, err
	}
	return &heldRegion{d: d, region: region, snapshot: snapshot}, nil
}

func (p *heldRegion) ID() string { return "" }

func (p *heldRegion) Confirm(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	return nil
}

func (p *heldRegion) Rollback(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return fmt.Errorf("%w: the change was kept", drivers.ErrUnsupported)
	}
	if err := p.d.restore(ctx, p.region, p.snapshot); err != nil {
		return err
	}
	p.done = true
	return nil
}
