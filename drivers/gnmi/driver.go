package gnmi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	gnmiext "github.com/openconfig/gnmi/proto/gnmi_ext"
	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// Transport is the name the driver registers under.
const Transport = "gnmi"

// Register adds the gNMI transport.
func Register(r *drivers.Registry) error {
	return r.Register(Transport, func(ctx context.Context, opt drivers.Options) (drivers.Driver, error) {
		return Dial(ctx, opt)
	})
}

// Driver talks gNMI to one target.
type Driver struct {
	opt    drivers.Options
	log    *zap.Logger
	conn   *grpc.ClientConn
	client gnmipb.GNMIClient
	hs     *handshakeRecorder

	m         mapping
	caps      *gnmipb.CapabilityResponse
	encoding  gnmipb.Encoding
	commitExt bool

	mu      sync.Mutex
	pending map[*fallbackPending]struct{}
	held    *extPending // a change under the commit timer until read back
}

var _ drivers.Driver = (*Driver)(nil)

// Dial connects, reads the target's capabilities and picks the encoding:
// JSON_IETF, or JSON when the target does not offer it.
func Dial(ctx context.Context, opt drivers.Options) (*Driver, error) {
	opt = opt.WithDefaults()
	d := &Driver{
		opt:     opt,
		log:     opt.Logger.Named("gnmi").With(zap.String("address", opt.Address)),
		hs:      &handshakeRecorder{},
		pending: map[*fallbackPending]struct{}{},
		m:       mapping{opt.Platform.GNMI},
	}
	dial, err := dialOptions(opt, d.hs)
	if err != nil {
		return nil, d.deviceErr("connect", "", "", err)
	}
	d.conn, err = grpc.NewClient(opt.Address, dial...)
	if err != nil {
		return nil, d.deviceErr("connect", "", "", fmt.Errorf("%w: %v", drivers.ErrUnreachable, err))
	}
	d.client = gnmipb.NewGNMIClient(d.conn)
	if opt.TLS.Insecure && !opt.TLS.Plaintext {
		d.log.Warn("TLS certificate verification is off (--insecure)")
	}
	err = d.retry(ctx, func(ctx context.Context) error {
		caps, err := d.client.Capabilities(ctx, &gnmipb.CapabilityRequest{})
		if err != nil {
			return d.classify("connect", "Capabilities", err)
		}
		d.caps = caps
		return nil
	})
	if err != nil {
		_ = d.conn.Close()
		return nil, err
	}
	switch {
	case hasEncoding(d.caps, gnmipb.Encoding_JSON_IETF):
		d.encoding = gnmipb.Encoding_JSON_IETF
	case hasEncoding(d.caps, gnmipb.Encoding_JSON):
		d.encoding = gnmipb.Encoding_JSON
	default:
		_ = d.conn.Close()
		return nil, d.deviceErr("connect", "Capabilities", "", fmt.Errorf("%w: target offers neither JSON_IETF nor JSON encoding (offers %v)", drivers.ErrUnsupported, d.caps.GetSupportedEncodings()))
	}
	if d.m.JSONPatch && d.encoding != gnmipb.Encoding_JSON_IETF {
		// sonic-gnmi's sonic-db client answers and takes JSON_IETF only
		// (mixed_db_client.go: "Value encoding is not IETF JSON").
		_ = d.conn.Close()
		return nil, d.deviceErr("connect", "Capabilities", "", fmt.Errorf("%w: the %s origin needs JSON_IETF, which the target does not offer (offers %v)", drivers.ErrUnsupported, d.m.origin(), d.caps.GetSupportedEncodings()))
	}
	for _, e := range d.caps.GetExtension() {
		if e.GetCommit() != nil {
			d.commitExt = true
		}
	}
	d.log.Debug("connected", zap.String("gnmi_version", d.caps.GetGNMIVersion()),
		zap.Stringer("encoding", d.encoding), zap.Bool("commit_confirmed", d.commitExt))
	return d, nil
}

func hasEncoding(c *gnmipb.CapabilityResponse, e gnmipb.Encoding) bool {
	for _, x := range c.GetSupportedEncodings() {
		if x == e {
			return true
		}
	}
	return false
}

// Capabilities returns what the target reported when the driver connected.
func (d *Driver) Capabilities() *gnmipb.CapabilityResponse { return d.caps }

// Encoding is the encoding Get and Set use.
func (d *Driver) Encoding() gnmipb.Encoding { return d.encoding }

// CommitConfirmed reports whether the target advertised the Commit extension.
func (d *Driver) CommitConfirmed() bool { return d.commitExt }

// Close rolls back any change still waiting for a rocefab-side confirm
// (it could not be rolled back later) and closes the connection.
func (d *Driver) Close() error {
	kctx, kcancel := context.WithTimeout(context.Background(), d.opt.Timeout)
	keepErr := d.keepHeld(kctx)
	kcancel()
	d.mu.Lock()
	var open []*fallbackPending
	for p := range d.pending {
		open = append(open, p)
	}
	d.mu.Unlock()
	var errs []error
	for _, p := range open {
		ctx, cancel := context.WithTimeout(context.Background(), d.opt.Timeout)
		errs = append(errs, p.Rollback(ctx))
		cancel()
	}
	errs = append(errs, keepErr, d.conn.Close())
	return errors.Join(errs...)
}

// retry runs fn with drivers.Retry and a per-attempt timeout.
func (d *Driver) retry(ctx context.Context, fn func(context.Context) error) error {
	return drivers.Retry(ctx, d.opt.Retries, d.opt.Backoff, func(ctx context.Context) error {
		cctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
		defer cancel()
		return fn(cctx)
	})
}

// --- Fetch ---

// Fetch reads the owned paths (and the scope's Reads) per origin with one
// Get each, flattens the answer to the flat JSON Platform.Parse takes, and
// returns the running config. Its Facts name the models the target
// advertised and any origin besides the platform's own that it would not
// answer (a strict OpenConfig target refuses origin cli): that origin
// reads as empty, and the platform's Fit decides what it means.
func (d *Driver) Fetch(ctx context.Context) (*drivers.Running, error) {
	raw, facts, err := d.fetchRaw(ctx)
	if err != nil {
		return nil, err
	}
	var cfg *devcfg.Config
	if d.opt.Platform.Parse != nil {
		cfg, err = d.opt.Platform.Parse(raw)
		if err != nil {
			return nil, d.deviceErr("fetch", "", "", fmt.Errorf("parse running config: %w", err))
		}
	} else {
		flat, err := gnmipath.Decode(raw)
		if err != nil {
			return nil, d.deviceErr("fetch", "", "", err)
		}
		cfg = &devcfg.Config{Shape: devcfg.ShapePaths, Paths: flat}
	}
	if cfg.Device == "" {
		cfg.Device = d.opt.Device
	}
	if cfg.Platform == "" {
		cfg.Platform = d.opt.Platform.Name
	}
	if cfg.Facts == nil {
		cfg.Facts = map[string]string{}
	}
	for k, v := range facts {
		cfg.Facts[k] = v
	}
	return drivers.NewRunning(cfg, d.opt.Platform, d.opt.Scope), nil
}

// RawFetch returns the bytes a Fetch hands to Platform.Parse.
func (d *Driver) RawFetch(ctx context.Context) ([]byte, error) {
	raw, _, err := d.fetchRaw(ctx)
	return raw, err
}

func (d *Driver) fetchRaw(ctx context.Context) ([]byte, map[string]string, error) {
	region, err := d.region(devcfg.Patch{})
	if err != nil {
		return nil, nil, err
	}
	for _, k := range d.opt.Scope.Reads {
		c, err := d.m.canon(k)
		if err != nil {
			return nil, nil, d.deviceErr("fetch", k, "", err)
		}
		o, _ := gnmipath.SplitOrigin(c)
		o = gnmipath.Origin(o)
		region[o] = append(region[o], c)
	}
	region = regroup(region)
	facts := map[string]string{devcfg.FactGNMIModels: strings.Join(d.modelNames(), ",")}
	leaves := devcfg.Paths{}
	for _, origin := range slices.Sorted(maps.Keys(region)) {
		got, err := d.read(ctx, "fetch", map[string][]string{origin: region[origin]})
		if err != nil && origin != d.m.origin() && refusedOrigin(err) {
			// Another origin (a PFC fallback) the target does not serve:
			// empty, with the target's word for it.
			facts[devcfg.FactGNMIOriginPrefix+origin] = err.Error()
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		for k, v := range got {
			leaves[k] = v
		}
	}
	raw, err := d.m.parseInput(leaves)
	if err != nil {
		return nil, nil, d.deviceErr("fetch", "", "", err)
	}
	return raw, facts, nil
}

// regroup drops paths covered by others within each origin.
func regroup(byOrigin map[string][]string) map[string][]string {
	var all []string
	for _, ps := range byOrigin {
		all = append(all, ps...)
	}
	return groupPaths(all)
}

// refusedOrigin: the target answered, but would not serve the request
// (InvalidArgument, Unimplemented or an unknown-path error), as a strict
// OpenConfig target does for origin cli. Authentication, trust and
// reachability errors are not refusals.
func refusedOrigin(err error) bool {
	var de *drivers.DeviceError
	if !errors.As(err, &de) {
		return false
	}
	return errors.Is(de.Err, drivers.ErrUnsupported) || errors.Is(de.Err, drivers.ErrRejected)
}

// modelNames are the models the target advertised, sorted.
func (d *Driver) modelNames() []string {
	var out []string
	for _, m := range d.caps.GetSupportedModels() {
		out = append(out, m.GetName())
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// groupPaths groups canonical gNMI path strings by origin, dropping
// paths covered by others.
func groupPaths(all []string) map[string][]string {
	canon := map[string]bool{}
	for _, p := range all {
		canon[p] = true
	}
	keys := slices.Sorted(maps.Keys(canon))
	out := map[string][]string{}
	for _, p := range keys {
		covered := false
		for _, q := range keys {
			if q != p && gnmipath.Under(p, q) {
				covered = true
				break
			}
		}
		if !covered {
			o, _ := gnmipath.SplitOrigin(p)
			o = gnmipath.Origin(o)
			out[o] = append(out[o], p)
		}
	}
	return out
}

// wholeElems cuts a string prefix back to its last complete element.
func wholeElems(prefix string) string {
	origin, rest := gnmipath.SplitOrigin(prefix)
	depth := 0
	cut := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
		case '/':
			if depth == 0 {
				cut = i
			}
		}
	}
	rest = rest[:cut]
	if rest == "" {
		rest = "/"
	}
	if origin != "" {
		return origin + ":" + rest
	}
	return rest
}

// read Gets the paths (one request per origin) and flattens the answer. A
// path the target does not have is empty, not an error.
func (d *Driver) read(ctx context.Context, step string, byOrigin map[string][]string) (devcfg.Paths, error) {
	leaves := devcfg.Paths{}
	origins := make([]string, 0, len(byOrigin))
	for o := range byOrigin {
		origins = append(origins, o)
	}
	sort.Strings(origins)
	for _, origin := range origins {
		paths := byOrigin[origin]
		err := d.get(ctx, step, origin, paths, leaves)
		if isNotFound(err) && len(paths) > 1 {
			// One missing path fails the whole Get: ask path by path, a few
			// at a time on the one connection, so a fresh device (nothing
			// of rocefab's there yet) costs a few round trips, not one per
			// owned path.
			err = d.getEach(ctx, step, origin, paths, leaves)
		} else if isNotFound(err) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
	}
	return leaves, nil
}

// getEachParallel bounds the Gets one device answers at once.
const getEachParallel = 8

// getEach Gets each path on its own, concurrently; a missing path is empty.
func (d *Driver) getEach(ctx context.Context, step, origin string, paths []string, into devcfg.Paths) error {
	got := make([]devcfg.Paths, len(paths))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(getEachParallel)
	for i, p := range paths {
		g.Go(func() error {
			got[i] = devcfg.Paths{}
			if err := d.get(gctx, step, origin, []string{p}, got[i]); err != nil && !isNotFound(err) {
				return err
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, part := range got {
		for k, v := range part {
			into[k] = v
		}
	}
	return nil
}

func isNotFound(err error) bool {
	var de *drivers.DeviceError
	return errors.As(err, &de) && errors.Is(de.Err, errNotFound)
}

var errNotFound = errors.New("path not found")

func (d *Driver) get(ctx context.Context, step, origin string, paths []string, into devcfg.Paths) error {
	req := &gnmipb.GetRequest{Type: gnmipb.GetRequest_CONFIG, Encoding: d.encoding}
	if d.m.GetAll {
		req.Type = gnmipb.GetRequest_ALL
	}
	if origin != gnmipath.OpenConfig {
		req.Prefix = &gnmipb.Path{Origin: origin}
	}
	if d.m.Target != "" && origin == d.m.origin() {
		req.Prefix = &gnmipb.Path{Origin: req.GetPrefix().GetOrigin(), Target: d.m.Target}
	}
	for _, p := range paths {
		pp, err := gnmipath.Parse(p)
		if err != nil {
			return d.deviceErr(step, p, "", err)
		}
		pp.Origin = ""
		req.Path = append(req.Path, pp)
	}
	var resp *gnmipb.GetResponse
	err := d.retry(ctx, func(ctx context.Context) error {
		var err error
		resp, err = d.client.Get(ctx, req)
		if status.Code(err) == codes.NotFound {
			return d.deviceErr(step, strings.Join(paths, ", "), status.Convert(err).Message(), errNotFound)
		}
		return d.classify(step, "Get "+strings.Join(paths, ", "), err)
	})
	if err != nil {
		return err
	}
	for _, n := range resp.GetNotification() {
		prefix := n.GetPrefix()
		for _, u := range n.GetUpdate() {
			full := gnmipath.Join(prefix, u.GetPath())
			full.Target = ""
			if full.GetOrigin() == "" && origin != gnmipath.OpenConfig {
				full.Origin = origin // targets do not always echo the origin
			}
			if err := flattenTyped(full, u.GetVal(), into); err != nil {
				return d.deviceErr(step, gnmipath.Format(full), "", fmt.Errorf("%w: %v", drivers.ErrUnsupported, err))
			}
		}
	}
	return nil
}

// --- Push ---

// Push sends the patch as ONE SetRequest (gNMI applies it all or
// nothing). With a confirm window it uses the target's Commit extension
// when advertised, else snapshots the touched region and starts a timer
// that restores it unless confirmed.
func (d *Driver) Push(ctx context.Context, patch devcfg.Patch, opt drivers.PushOptions) (drivers.Pending, error) {
	if patch.Empty() {
		return committed{}, nil
	}
	if err := d.checkModels(); err != nil {
		return nil, err
	}
	if err := d.checkOrigins(patch); err != nil {
		return nil, err
	}
	req, err := d.setRequest(ctx, patch)
	if err != nil {
		return nil, err
	}
	summary := patchSummary(patch)
	if err := d.keepHeld(ctx); err != nil {
		d.log.Warn("confirming the previous change before the next push failed; reading the target back tells what it runs", zap.Error(err))
	}
	if opt.ConfirmWindow <= 0 && d.commitExt {
		p, err := d.pushHeld(ctx, req, patch, opt)
		if !errors.Is(err, drivers.ErrUnsupported) {
			return p, err
		}
		d.log.Info("target refused the Commit extension; pushing without a device lock", zap.Error(err))
	}
	if opt.ConfirmWindow <= 0 {
		// The region is read first so the change can be undone exactly if
		// the caller's read-back finds it wrong. A retried Set that the
		// target already applied sets the same values again; without any
		// answer the outcome is unknown.
		held, err := d.holdRegion(ctx, patch)
		if err != nil {
			return nil, err
		}
		if err := d.set(ctx, req, patch); err != nil {
			if unanswered(err) {
				return held, commitUnknown(err)
			}
			return nil, err
		}
		d.log.Info("pushed", zap.String("set", summary))
		return held, nil
	}
	if d.commitExt {
		id := commitID(opt.RunID)
		withExt := cloneSet(req)
		withExt.Extension = []*gnmiext.Extension{commitExt(id, &gnmiext.Commit_Commit{Commit: &gnmiext.CommitRequest{RollbackDuration: durationpbOf(opt.ConfirmWindow)}})}
		// Sent once: a second commit with the same ID would be refused
		// as already pending when the first took effect unseen.
		err := d.setOnce(ctx, withExt, patch)
		if err == nil {
			d.log.Info("pushed, pending confirmation on the device", zap.String("set", summary), zap.String("commit", id), zap.Duration("window", opt.ConfirmWindow))
			return &extPending{d: d, id: id}, nil
		}
		if unanswered(err) {
			return &extPending{d: d, id: id}, commitUnknown(err)
		}
		if !errors.Is(err, drivers.ErrUnsupported) {
			return nil, err
		}
		d.log.Info("target refused the Commit extension; confirming from rocefab", zap.Error(err))
	}
	return d.pushWithFallback(ctx, req, patch, opt.ConfirmWindow)
}

// unanswered: the SetRequest may have reached the target, but no answer
// came back (a dropped connection, a timeout, a cancellation).
func unanswered(err error) bool {
	return err != nil && !errors.Is(err, drivers.ErrRejected) && !errors.Is(err, drivers.ErrUnsupported) &&
		!errors.Is(err, drivers.ErrAuth) && !errors.Is(err, drivers.ErrTrust)
}

// commitUnknown marks an unanswered Set as ErrCommitUnknown.
func commitUnknown(err error) error {
	var de *drivers.DeviceError
	if errors.As(err, &de) {
		cp := *de
		cp.Err = fmt.Errorf("%w: %w", drivers.ErrCommitUnknown, de.Err)
		return &cp
	}
	return fmt.Errorf("%w: %w", drivers.ErrCommitUnknown, err)
}

// setOnce sends one SetRequest without retrying.
func (d *Driver) setOnce(ctx context.Context, req *gnmipb.SetRequest, patch devcfg.Patch) error {
	cctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
	defer cancel()
	_, err := d.client.Set(cctx, req)
	if err == nil {
		return nil
	}
	if st := status.Convert(err); st.Code() == codes.FailedPrecondition {
		// Only one commit waits at a time: whoever holds it holds the
		// device (gnmi-commit-confirmed.md, 3.2.1).
		return d.deviceErr("lock", "commit", st.Message(), fmt.Errorf("%w: another commit waits for confirmation on the device", drivers.ErrLocked))
	}
	return d.classify("push", d.rejectedLine(status.Convert(err).Message(), patch), err)
}

// checkModels refuses a target that lacks a model the platform needs.
func (d *Driver) checkModels() error {
	have := map[string]bool{}
	for _, m := range d.caps.GetSupportedModels() {
		have[m.GetName()] = true
	}
	var missing []string
	for _, m := range d.opt.Platform.Models {
		if !have[m] {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return d.deviceErr("push", "Capabilities", "", fmt.Errorf("%w: target does not advertise model(s) %s", drivers.ErrUnsupported, strings.Join(missing, ", ")))
	}
	return nil
}

// checkOrigins refuses a SetRequest the target is known to reject whole: a
// target advertising a single-origin model (Options.SingleOriginModels)
// takes one origin per SetRequest.
func (d *Driver) checkOrigins(patch devcfg.Patch) error {
	origins := map[string]bool{}
	add := func(p string) {
		if c, err := d.m.canon(p); err == nil {
			o, _ := gnmipath.SplitOrigin(c)
			origins[gnmipath.Origin(o)] = true
		}
	}
	for _, u := range patch.Updates {
		add(u.Path)
	}
	for _, p := range patch.Deletes {
		add(p)
	}
	if len(origins) < 2 {
		return nil
	}
	for _, m := range d.modelNames() {
		if slices.Contains(d.opt.SingleOriginModels, m) {
			return d.deviceErr("push", patchSummary(patch), "", fmt.Errorf("%w: the target serves %s, whose server refuses a SetRequest mixing origins (%s)",
				drivers.ErrUnsupported, m, strings.Join(slices.Sorted(maps.Keys(origins)), ", ")))
		}
	}
	return nil
}

// setRequest turns the patch into deletes, replaces (leaf-lists and
// presence containers, whose whole value is meant) and updates, origin
// cli as one update of CLI text (cli.go); for a JSONPatch target, into the
// patch operations it can apply.
func (d *Driver) setRequest(ctx context.Context, patch devcfg.Patch) (*gnmipb.SetRequest, error) {
	if d.m.JSONPatch {
		return d.jsonPatchRequest(ctx, patch)
	}
	req := &gnmipb.SetRequest{}
	if d.m.Target != "" {
		req.Prefix = &gnmipb.Path{Target: d.m.Target}
	}
	var deletes []*gnmipb.Path
	var cli cliText
	for _, p := range patch.Deletes {
		pp, err := d.m.toGNMI(p)
		if err != nil {
			return nil, d.deviceErr("push", p, "", err)
		}
		if pp.GetOrigin() == originCLI {
			if err := cli.del(pp); err != nil {
				return nil, d.deviceErr("push", p, "", err)
			}
			continue
		}
		deletes = append(deletes, entryDelete(pp))
	}
	req.Delete = uncovered(deletes)
	for _, u := range patch.Updates {
		pp, err := d.m.toGNMI(u.Path)
		if err != nil {
			return nil, d.deviceErr("push", u.Path, "", err)
		}
		if pp.GetOrigin() == originCLI {
			if err := cli.add(u.Value); err != nil {
				return nil, d.deviceErr("push", u.Path, "", err)
			}
			continue
		}
		val, err := d.typed(u.Value)
		if err != nil {
			return nil, d.deviceErr("push", u.Path, "", err)
		}
		up := &gnmipb.Update{Path: pp, Val: val}
		v := strings.TrimSpace(string(u.Value))
		if strings.HasPrefix(v, "[") || strings.HasPrefix(v, "{") {
			req.Replace = append(req.Replace, up)
		} else {
			req.Update = append(req.Update, up)
		}
	}
	if up := cli.update(); up != nil {
		req.Update = append(req.Update, up)
	}
	return req, nil
}

// entryDelete turns the delete of a list entry's own key leaf
// (.../list[name=X]/config/name) into the delete of the entry: in
// OpenConfig the key is a leafref to that leaf, so an entry without it is
// invalid, and a target that reports defaults (lemming does) would keep the
// entry with its default leaves ("key field Name: element key <nil> != map
// key X"). rocefab removes a key leaf only when the whole object leaves
// the intent.
func entryDelete(p *gnmipb.Path) *gnmipb.Path {
	e := p.GetElem()
	if n := len(e); n >= 3 && e[n-2].GetName() == "config" && len(e[n-2].GetKey()) == 0 {
		if _, isKey := e[n-3].GetKey()[e[n-1].GetName()]; isKey {
			return &gnmipb.Path{Origin: p.GetOrigin(), Target: p.GetTarget(), Elem: e[:n-2]}
		}
	}
	return p
}

// uncovered drops paths at or below another path of the list.
func uncovered(paths []*gnmipb.Path) []*gnmipb.Path {
	formatted := make([]string, len(paths))
	for i, p := range paths {
		formatted[i] = gnmipath.Format(p)
	}
	var out []*gnmipb.Path
	seen := map[string]bool{}
	for i, p := range paths {
		covered := seen[formatted[i]]
		for j := range paths {
			if j != i && formatted[j] != formatted[i] && gnmipath.Under(formatted[i], formatted[j]) {
				covered = true
				break
			}
		}
		seen[formatted[i]] = true
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

func (d *Driver) typed(v devcfg.Value) (*gnmipb.TypedValue, error) {
	canon, err := gnmipath.CanonicalValue([]byte(v))
	if err != nil {
		return nil, fmt.Errorf("value %s is not JSON: %w", v, err)
	}
	if d.encoding == gnmipb.Encoding_JSON {
		return &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonVal{JsonVal: []byte(canon)}}, nil
	}
	return &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(canon)}}, nil
}

// set sends one SetRequest, retrying transient failures; the error names
// the path the device complained about.
func (d *Driver) set(ctx context.Context, req *gnmipb.SetRequest, patch devcfg.Patch) error {
	return d.retry(ctx, func(ctx context.Context) error {
		_, err := d.client.Set(ctx, req)
		if err == nil {
			return nil
		}
		return d.classify("push", d.rejectedLine(status.Convert(err).Message(), patch), err)
	})
}

// rejectedLine is the patch path the device's message names, or a summary
// of the whole SetRequest.
func (d *Driver) rejectedLine(msg string, patch devcfg.Patch) string {
	best := ""
	bestLen := 0
	consider := func(p string) {
		c, err := d.m.canon(p)
		if err != nil {
			c = p
		}
		for _, form := range []string{p, c} {
			if strings.Contains(msg, form) && len(form) > bestLen {
				best, bestLen = p, len(form)
			}
		}
		// A CLI error names the command and its modes, not the path.
		if n := cliMatch(msg, c); n > bestLen {
			best, bestLen = p, n
		}
	}
	for _, u := range patch.Updates {
		consider(u.Path)
	}
	for _, p := range patch.Deletes {
		consider(p)
	}
	if best != "" {
		return best
	}
	// A target that writes whole entries or tables (JSONPatch) names the
	// entry or table: the first patch path under it.
	for _, p := range append(patchPaths(patch), patch.Deletes...) {
		for a := parentKey(p); a != ""; a = parentKey(a) {
			if i := strings.Index(msg, a); i >= 0 && !isNameChar(msg, i+len(a)) {
				return p
			}
		}
	}
	return patchSummary(patch)
}

func patchPaths(p devcfg.Patch) []string {
	out := make([]string, len(p.Updates))
	for i, u := range p.Updates {
		out[i] = u.Path
	}
	return out
}

// parentKey cuts a path key back by one element; "" at the origin's root.
func parentKey(p string) string {
	cut := wholeElems(p)
	if _, r := gnmipath.SplitOrigin(cut); r == "/" || cut == p {
		return ""
	}
	return cut
}

func isNameChar(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c == '-' || c == '|' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func patchSummary(p devcfg.Patch) string {
	first := ""
	switch {
	case len(p.Updates) > 0:
		first = p.Updates[0].Path
	case len(p.Deletes) > 0:
		first = p.Deletes[0]
	}
	return fmt.Sprintf("SetRequest of %d update(s) and %d delete(s), first %s", len(p.Updates), len(p.Deletes), first)
}

func cloneSet(r *gnmipb.SetRequest) *gnmipb.SetRequest {
	return &gnmipb.SetRequest{Prefix: r.GetPrefix(), Delete: r.GetDelete(), Replace: r.GetReplace(), Update: r.GetUpdate()}
}

func commitExt(id string, action any) *gnmiext.Extension {
	c := &gnmiext.Commit{Id: id}
	switch a := action.(type) {
	case *gnmiext.Commit_Commit:
		c.Action = a
	case *gnmiext.Commit_Confirm:
		c.Action = a
	case *gnmiext.Commit_Cancel:
		c.Action = a
	}
	return &gnmiext.Extension{Ext: &gnmiext.Extension_Commit{Commit: c}}
}

// committed is a change already in effect.
type committed struct{}

func (committed) ID() string                    { return "" }
func (committed) Confirm(context.Context) error { return nil }
func (committed) Rollback(context.Context) error {
	return fmt.Errorf("%w: the change was committed without a confirm window", drivers.ErrUnsupported)
}

// extPending is a commit the target rolls back by itself unless confirmed.
// A held one is a change without a confirm window, under the timer only
// until the caller read it back.
type extPending struct {
	d    *Driver
	id   string
	held bool
}

func (p *extPending) ID() string { return p.id }

// Reverts: the target rolls the change back unless confirmed in time.
func (p *extPending) Reverts() bool { return true }

// settled forgets a held change once confirmed or cancelled.
func (p *extPending) settled() {
	if !p.held {
		return
	}
	p.d.mu.Lock()
	if p.d.held == p {
		p.d.held = nil
	}
	p.d.mu.Unlock()
}

// Confirm confirms the commit. A confirmation whose answer was lost is
// ErrCommitUnknown; one the target refuses because no such commit waits
// (a retried confirmation that already took effect, or a window that
// ended) is a rejection: reading the target back tells which.
func (p *extPending) Confirm(ctx context.Context) error {
	err := p.action(ctx, "confirm", &gnmiext.Commit_Confirm{Confirm: &gnmiext.CommitConfirm{}})
	if unanswered(err) {
		return commitUnknown(err)
	}
	p.settled() // confirmed, or nothing of it waits any more
	return err
}

func (p *extPending) Rollback(ctx context.Context) error {
	err := p.action(ctx, "rollback", &gnmiext.Commit_Cancel{Cancel: &gnmiext.CommitCancel{}})
	if !unanswered(err) {
		p.settled()
	}
	return err
}

func (p *extPending) action(ctx context.Context, step string, a any) error {
	req := &gnmipb.SetRequest{Extension: []*gnmiext.Extension{commitExt(p.id, a)}}
	err := p.d.retry(ctx, func(ctx context.Context) error {
		_, err := p.d.client.Set(ctx, req)
		return p.d.classify(step, "commit "+p.id, err)
	})
	if err == nil {
		p.d.log.Info("commit "+step+" done", zap.String("commit", p.id))
	}
	return err
}

// Client is the raw gNMI client on the driver's connection (credentials
// and TLS applied), for callers with their own requests.
func (d *Driver) Client() gnmipb.GNMIClient { return d.client }
