package gnmisim

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"sync"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	gnmiext "github.com/openconfig/gnmi/proto/gnmi_ext"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// GNMIVersion is what Capabilities reports.
const GNMIVersion = "0.10.0"

// defaultRollback applies when a commit names no rollback duration.
const defaultRollback = 10 * time.Minute

// Capabilities lists models, encodings, the gNMI version and, when
// enabled, the Commit extension.
func (t *Target) Capabilities(context.Context, *gnmipb.CapabilityRequest) (*gnmipb.CapabilityResponse, error) {
	resp := &gnmipb.CapabilityResponse{
		SupportedModels:    t.opt.Models,
		SupportedEncodings: t.opt.Encodings,
		GNMIVersion:        GNMIVersion,
	}
	if t.opt.CommitConfirmed {
		resp.Extension = []*gnmiext.Extension{{Ext: &gnmiext.Extension_Commit{Commit: &gnmiext.Commit{}}}}
	}
	return resp, nil
}

// Get serves configuration and, unless the type is CONFIG, counters.
func (t *Target) Get(ctx context.Context, req *gnmipb.GetRequest) (*gnmipb.GetResponse, error) {
	if t.opt.Personality == SONiC {
		if resp, handled, err := t.sonicGet(req); handled || err != nil {
			return resp, err
		}
	}
	enc := req.GetEncoding()
	if enc != gnmipb.Encoding_JSON && enc != gnmipb.Encoding_JSON_IETF || !supported(t.opt.Encodings, enc) {
		return nil, status.Errorf(codes.Unimplemented, "encoding %s not supported", enc)
	}
	t.mu.Lock()
	counters := func() tree {
		return counterTree(t.counters.leaves(t.opt.Ports, time.Now()))
	}
	var src tree
	switch req.GetType() {
	case gnmipb.GetRequest_CONFIG:
		// Configuration only: counters are not even computed.
		src = t.tree.clone()
	case gnmipb.GetRequest_STATE, gnmipb.GetRequest_OPERATIONAL:
		src = counters()
	default:
		src = t.tree.clone()
		for k, v := range counters() {
			src[k] = v
		}
	}
	t.mu.Unlock()

	now := time.Now().UnixNano()
	resp := &gnmipb.GetResponse{}
	for _, p := range req.GetPath() {
		full := gnmipath.Join(req.GetPrefix(), p)
		raw, err := render(src, full, enc == gnmipb.Encoding_JSON_IETF)
		if err != nil {
			return nil, err
		}
		val := &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}
		if enc == gnmipb.Encoding_JSON {
			val = &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonVal{JsonVal: raw}}
		}
		resp.Notification = append(resp.Notification, &gnmipb.Notification{
			Timestamp: now,
			Prefix:    req.GetPrefix(),
			Update:    []*gnmipb.Update{{Path: p, Val: val}},
		})
	}
	return resp, nil
}

// render nests the leaves at or below full into one JSON value.
func render(src tree, full *gnmipb.Path, ietf bool) ([]byte, error) {
	base := gnmipath.Elems(full)
	listGet := len(base) > 0 && len(base[len(base)-1].GetKey()) == 0
	var leaves []gnmipath.Leaf
	isList := false
	for _, k := range sortedStrings(src.under(full)) {
		lp, err := gnmipath.Parse(k)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "stored path %q: %v", k, err)
		}
		rel, ok := gnmipath.Rel(full, lp)
		if !ok {
			continue
		}
		elems := gnmipath.Elems(lp)
		if listGet && len(elems[len(base)-1].GetKey()) > 0 {
			isList = true
			rel = elems[len(base)-1:]
		}
		leaves = append(leaves, gnmipath.Leaf{Elems: rel, Value: src[k]})
	}
	if len(leaves) == 0 {
		return nil, status.Errorf(codes.NotFound, "path %s not found", gnmipath.Format(full))
	}
	var qualify func(string) string
	if ietf {
		top := ""
		if len(base) > 0 {
			top = base[0].GetName()
		}
		qualify = qualifier(full.GetOrigin(), top)
	}
	if isList {
		raw, err := gnmipath.Build(leaves, nil)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "%v", err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, status.Errorf(codes.Internal, "%v", err)
		}
		return m[base[len(base)-1].GetName()], nil
	}
	raw, err := gnmipath.Build(leaves, qualify)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "%v", err)
	}
	return raw, nil
}

// Set applies deletes, replaces and updates to a copy of the tree and
// swaps it in only when every operation succeeded.
func (t *Target) Set(ctx context.Context, req *gnmipb.SetRequest) (*gnmipb.SetResponse, error) {
	var commit *gnmiext.Commit
	for _, e := range req.GetExtension() {
		if c := e.GetCommit(); c != nil {
			commit = c
		}
	}
	if commit != nil && !t.opt.CommitConfirmed {
		return nil, status.Error(codes.Unimplemented, "commit confirmed extension not supported")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastSet = proto.Clone(req).(*gnmipb.SetRequest)

	if commit != nil {
		switch commit.GetAction().(type) {
		case *gnmiext.Commit_Confirm, *gnmiext.Commit_Cancel, *gnmiext.Commit_SetRollbackDuration:
			return t.commitAction(req, commit)
		}
		if commit.GetId() == "" {
			return nil, status.Error(codes.InvalidArgument, "commit extension without id")
		}
		if t.pending != nil {
			return nil, status.Errorf(codes.FailedPrecondition, "commit %q is already pending confirmation", t.pending.id)
		}
	} else if t.pending != nil {
		// "If a SetRequest call is made without extension whilst an existing
		// rollback counter is running then a FAILED PRECONDITION error is
		// returned" (gnmi-commit-confirmed.md, 3.2.1).
		return nil, status.Errorf(codes.FailedPrecondition, "commit %q is pending confirmation: no other change until it is confirmed or cancelled", t.pending.id)
	}

	next := t.tree.clone()
	var results []*gnmipb.UpdateResult
	var written []string
	prefix := req.GetPrefix()
	sonicDB := false
	if t.opt.Personality == SONiC {
		origin := prefix.GetOrigin()
		if origin == "" {
			paths := append([]*gnmipb.Path(nil), req.GetDelete()...)
			for _, u := range append(append([]*gnmipb.Update(nil), req.GetReplace()...), req.GetUpdate()...) {
				paths = append(paths, u.GetPath())
			}
			var err error
			if origin, err = parseOrigin(paths); err != nil {
				return nil, err
			}
		}
		if origin == OriginSONiC {
			sonicDB = true
			r, err := t.sonicSet(req, next)
			if err != nil {
				return nil, err
			}
			results = r
		}
	}
	if !sonicDB {
		if err := cliCheck(req); err != nil {
			return nil, err
		}
	}
	for _, d := range req.GetDelete() {
		if sonicDB {
			break
		}
		full := gnmipath.Join(prefix, d)
		if err := t.checkWritable(full); err != nil {
			return nil, err
		}
		next.remove(full)
		results = append(results, &gnmipb.UpdateResult{Path: d, Op: gnmipb.UpdateResult_DELETE})
	}
	apply := func(u *gnmipb.Update, replace bool) error {
		full := gnmipath.Join(prefix, u.GetPath())
		if err := t.checkWritable(full); err != nil {
			return err
		}
		if full.GetOrigin() == OriginCLI {
			w := next.applyCLI(u.GetVal().GetAsciiVal())
			if err := t.checkCLI(w); err != nil {
				return err
			}
			written = append(written, w...)
			return nil
		}
		raw, err := typedToJSON(u.GetVal())
		if err != nil {
			return status.Errorf(codes.InvalidArgument, "%s: %v", gnmipath.Format(full), err)
		}
		if replace {
			next.remove(full)
		}
		w, err := next.merge(full, raw)
		if err != nil {
			return status.Errorf(codes.InvalidArgument, "%s: %v", gnmipath.Format(full), err)
		}
		written = append(written, w...)
		return nil
	}
	for _, u := range req.GetReplace() {
		if sonicDB {
			break
		}
		if err := apply(u, true); err != nil {
			return nil, err
		}
		results = append(results, &gnmipb.UpdateResult{Path: u.GetPath(), Op: gnmipb.UpdateResult_REPLACE})
	}
	for _, u := range req.GetUpdate() {
		if sonicDB {
			break
		}
		if err := apply(u, false); err != nil {
			return nil, err
		}
		results = append(results, &gnmipb.UpdateResult{Path: u.GetPath(), Op: gnmipb.UpdateResult_UPDATE})
	}
	if t.schema != nil {
		for _, w := range written {
			if err := t.schema.validate(w, next[w]); err != nil {
				return nil, status.Errorf(codes.InvalidArgument, "%s: %v", w, err)
			}
		}
	}
	if t.faults.DropSets > 0 {
		t.faults.DropSets--
		if p, ok := peer.FromContext(ctx); ok {
			t.lis.drop(p.Addr.String())
		}
		t.log.Info("fault: connection dropped mid-Set")
		return nil, status.Error(codes.Unavailable, "connection dropped")
	}

	if commit != nil {
		d := commit.GetCommit().GetRollbackDuration().AsDuration()
		if d <= 0 {
			d = defaultRollback
		}
		id := commit.GetId()
		t.pending = &pendingCommit{id: id, snapshot: t.tree}
		t.pending.timer = time.AfterFunc(d, func() { t.expire(id) })
		t.log.Info("commit pending confirmation", zap.String("id", id), zap.Duration("rollback", d))
	}
	t.tree = next
	t.sets++
	return &gnmipb.SetResponse{Prefix: prefix, Response: results, Timestamp: time.Now().UnixNano()}, nil
}

// checkWritable refuses read-only places and injected rejections (for
// origin cli, per command: checkCLI).
func (t *Target) checkWritable(full *gnmipb.Path) error {
	s := gnmipath.Format(full)
	if full.GetOrigin() == OriginCLI && len(full.GetElem()) == 0 {
		return nil
	}
	if full.GetTarget() == countersDBTarget {
		return status.Errorf(codes.InvalidArgument, "%s: counters are read-only", s)
	}
	if gnmipath.IsOpenConfig(full.GetOrigin()) {
		for _, e := range gnmipath.Elems(full) {
			if e.GetName() == "state" {
				return status.Errorf(codes.InvalidArgument, "%s: state is read-only", s)
			}
		}
	}
	if rp := t.faults.RejectPath; rp != "" {
		canon, err := gnmipath.Canonical(rp)
		if err == nil && (gnmipath.Under(s, canon) || gnmipath.Under(canon, s)) {
			msg := t.faults.RejectMessage
			if msg == "" {
				msg = "rejected by target"
			}
			return status.Errorf(codes.InvalidArgument, "%s: %s", s, msg)
		}
	}
	return nil
}

func (t *Target) commitAction(req *gnmipb.SetRequest, c *gnmiext.Commit) (*gnmipb.SetResponse, error) {
	if len(req.GetDelete())+len(req.GetReplace())+len(req.GetUpdate()) > 0 {
		return nil, status.Error(codes.InvalidArgument, "confirm, cancel and set-rollback-duration carry no changes")
	}
	// Not waiting is FAILED_PRECONDITION, another commit's ID
	// INVALID_ARGUMENT (gnmi-commit-confirmed.md, 3.2.2 to 3.2.4).
	if t.pending == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "no commit is pending confirmation (asked for %q)", c.GetId())
	}
	if t.pending.id != c.GetId() {
		return nil, status.Errorf(codes.InvalidArgument, "commit %q is not the pending one", c.GetId())
	}
	switch a := c.GetAction().(type) {
	case *gnmiext.Commit_Confirm:
		t.pending.timer.Stop()
		t.pending = nil
		t.log.Info("commit confirmed", zap.String("id", c.GetId()))
	case *gnmiext.Commit_Cancel:
		t.pending.timer.Stop()
		t.tree = t.pending.snapshot
		t.pending = nil
		t.log.Info("commit cancelled, rolled back", zap.String("id", c.GetId()))
	case *gnmiext.Commit_SetRollbackDuration:
		d := a.SetRollbackDuration.GetRollbackDuration().AsDuration()
		if d <= 0 {
			return nil, status.Error(codes.InvalidArgument, "rollback duration must be positive")
		}
		t.pending.timer.Reset(d)
	}
	t.sets++
	return &gnmipb.SetResponse{Timestamp: time.Now().UnixNano()}, nil
}

// expire rolls a still-pending commit back when its window passes.
func (t *Target) expire(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == nil || t.pending.id != id {
		return
	}
	t.tree = t.pending.snapshot
	t.pending = nil
	t.log.Info("commit not confirmed in time, rolled back", zap.String("id", id))
}

// Subscribe serves ONCE, POLL and STREAM (SAMPLE; ON_CHANGE and
// TARGET_DEFINED are sampled too) over configuration and counters.
func (t *Target) Subscribe(stream gnmipb.GNMI_SubscribeServer) error {
	req, err := stream.Recv()
	if err != nil {
		return err
	}
	list := req.GetSubscribe()
	if list == nil {
		return status.Error(codes.InvalidArgument, "first SubscribeRequest must carry a subscription list")
	}
	var sendMu sync.Mutex
	send := func(r *gnmipb.SubscribeResponse) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(r)
	}
	sample := func(subs []*gnmipb.Subscription) error {
		for _, s := range subs {
			n, err := t.sampleNotification(gnmipath.Join(list.GetPrefix(), s.GetPath()))
			if err != nil {
				return err
			}
			if len(n.GetUpdate()) == 0 {
				continue
			}
			if err := send(&gnmipb.SubscribeResponse{Response: &gnmipb.SubscribeResponse_Update{Update: n}}); err != nil {
				return err
			}
		}
		return nil
	}
	syncDone := func() error {
		return send(&gnmipb.SubscribeResponse{Response: &gnmipb.SubscribeResponse_SyncResponse{SyncResponse: true}})
	}
	if err := sample(list.GetSubscription()); err != nil {
		return err
	}
	if err := syncDone(); err != nil {
		return err
	}
	switch list.GetMode() {
	case gnmipb.SubscriptionList_ONCE:
		return nil
	case gnmipb.SubscriptionList_POLL:
		for {
			r, err := stream.Recv()
			if err != nil {
				return nil
			}
			if r.GetPoll() == nil {
				return status.Error(codes.InvalidArgument, "expected a Poll request")
			}
			if err := sample(list.GetSubscription()); err != nil {
				return err
			}
			if err := syncDone(); err != nil {
				return err
			}
		}
	}
	ctx := stream.Context()
	subs := list.GetSubscription()
	errc := make(chan error, len(subs))
	for i, s := range subs {
		interval := time.Duration(s.GetSampleInterval())
		if interval <= 0 {
			interval = time.Second
		}
		phase := t.opt.SampleSpread * time.Duration(i) / time.Duration(len(subs))
		go func(s *gnmipb.Subscription) {
			// sleep waits d, or reports false when the stream ended.
			sleep := func(d time.Duration) bool {
				if d <= 0 {
					return true
				}
				select {
				case <-ctx.Done():
					return false
				case <-time.After(d):
					return true
				}
			}
			if !sleep(phase) {
				errc <- nil
				return
			}
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for cycle := uint64(0); ; cycle++ {
				select {
				case <-ctx.Done():
					errc <- nil
					return
				case <-tick.C:
				}
				if !sleep(t.cycleJitter(cycle)) {
					errc <- nil
					return
				}
				if err := sample([]*gnmipb.Subscription{s}); err != nil {
					errc <- err
					return
				}
			}
		}(s)
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		return err
	}
}

// cycleJitter is how late sample cycle n of a stream is taken: the same
// for every subscription of the cycle.
func (t *Target) cycleJitter(n uint64) time.Duration {
	if t.opt.SampleJitter <= 0 {
		return 0
	}
	r := rand.New(rand.NewPCG(t.opt.SampleSeed, n))
	return time.Duration(r.Int64N(int64(t.opt.SampleJitter)))
}

// sampleNotification is every leaf at or below p, counters as uint_val and
// configuration as JSON_IETF scalars.
func (t *Target) sampleNotification(p *gnmipb.Path) (*gnmipb.Notification, error) {
	if (t.opt.Personality == SONiC || t.opt.CountersDB) && p.GetTarget() == countersDBTarget {
		now := time.Now()
		t.mu.Lock()
		val, err := t.counters.countersDBValue(t.opt.Ports, p, now)
		t.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return &gnmipb.Notification{Timestamp: now.UnixNano(), Prefix: &gnmipb.Path{Target: countersDBTarget},
			Update: []*gnmipb.Update{{Path: &gnmipb.Path{Elem: gnmipath.Elems(p)}, Val: val}}}, nil
	}
	t.mu.Lock()
	now := time.Now()
	cfg := t.tree.under(p)
	ctr := t.counters.leaves(t.opt.Ports, now)
	t.mu.Unlock()
	base := gnmipath.Format(p)
	n := &gnmipb.Notification{Timestamp: now.UnixNano()}
	add := func(path string, v *gnmipb.TypedValue) error {
		pp, err := gnmipath.Parse(path)
		if err != nil {
			return status.Errorf(codes.Internal, "stored path %q: %v", path, err)
		}
		n.Update = append(n.Update, &gnmipb.Update{Path: pp, Val: v})
		return nil
	}
	for _, k := range sortedStrings(cfg) {
		if err := add(k, &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(cfg[k])}}); err != nil {
			return nil, err
		}
	}
	keys := make(map[string]devcfg.Value, len(ctr))
	for k := range ctr {
		if gnmipath.Under(k, base) {
			keys[k] = ""
		}
	}
	for _, k := range sortedStrings(keys) {
		if err := add(k, &gnmipb.TypedValue{Value: &gnmipb.TypedValue_UintVal{UintVal: ctr[k]}}); err != nil {
			return nil, err
		}
	}
	return n, nil
}
