// Package lemmingtest runs OpenConfig's reference gNMI server,
// github.com/openconfig/lemming's gnmi package (v0.4.0), on 127.0.0.1
// behind TLS, as an oracle for tests: its Set checks every request against
// the full OpenConfig schema (types, ranges, leafrefs, RFC 7951 encoding) and
// rejects the whole SetRequest on any error. Only tests import it, so the
// rocefab binary never links lemming (go list -deps ./cmd/rocefab).
//
// lemming v0.4.0 answers Capabilities and Get with Unimplemented; this
// harness wraps them, and says so: Capabilities lists the OpenConfig
// modules lemming compiles and JSON_IETF, and Get answers from lemming's
// own datastore (the interfaces and qos trees rocefab writes), read with
// Subscribe ONCE, unmarshalled into lemming's generated OpenConfig structs
// and encoded as RFC 7951 JSON by ygot.
package lemmingtest

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	lgnmi "github.com/openconfig/lemming/gnmi"
	"github.com/openconfig/lemming/gnmi/oc"
	"github.com/openconfig/ygot/ygot"
	"github.com/openconfig/ygot/ytypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

// Models are what the Capabilities wrapper advertises: the OpenConfig
// modules of lemming's generated schema that rocefab's renders use.
var Models = []*gnmipb.ModelData{
	{Name: "openconfig-interfaces", Organization: "OpenConfig working group"},
	{Name: "openconfig-if-ethernet", Organization: "OpenConfig working group"},
	{Name: "openconfig-if-aggregate", Organization: "OpenConfig working group"},
	{Name: "openconfig-vlan", Organization: "OpenConfig working group"},
	{Name: "openconfig-qos", Organization: "OpenConfig working group"},
}

// Target is a running lemming gNMI server.
type Target struct {
	lis    net.Listener
	srv    *grpc.Server
	pki    *gnmisim.PKI
	lemm   *lgnmi.Server
	target string

	mu     sync.Mutex
	schema *ytypes.Schema // lemming's generated schema, unzipped once
	gen    int            // counts Sets; a cached tree is for one gen
	cached map[bool]cachedTree
}

type cachedTree struct {
	gen  int
	tree map[string]any
}

// server is lemming's server with the Capabilities and Get it lacks.
type server struct {
	*lgnmi.Server
	t *Target
}

// Start serves lemming on 127.0.0.1:0 with a fresh CA (see CAPEM) until the
// test ends.
func Start(t testing.TB) *Target {
	t.Helper()
	pki, err := gnmisim.NewPKI("lemming")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pki.ServerConfig(false)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MinVersion = tls.VersionTLS12
	const name = "lemming"
	// lemming registers itself on the server it is given; this one is
	// never served, the wrapper is registered on the real one below.
	lemm, err := lgnmi.New(grpc.NewServer(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg := &Target{lis: lis, pki: pki, lemm: lemm, target: name}
	tg.srv = grpc.NewServer(grpc.Creds(credentials.NewTLS(cfg)),
		grpc.StreamInterceptor(lgnmi.NewSubscribeTargetUpdateInterceptor(name)))
	gnmipb.RegisterGNMIServer(tg.srv, &server{Server: lemm, t: tg})
	go func() { _ = tg.srv.Serve(lis) }()
	t.Cleanup(tg.srv.Stop)
	return tg
}

// Addr is host:port to dial.
func (t *Target) Addr() string { return t.lis.Addr().String() }

// CAPEM is the CA that signed the server's certificate.
func (t *Target) CAPEM() []byte { return t.pki.CAPEM }

// Set is lemming's; the wrapper only notes that the datastore changed.
func (s *server) Set(ctx context.Context, req *gnmipb.SetRequest) (*gnmipb.SetResponse, error) {
	resp, err := s.Server.Set(ctx, req)
	s.t.mu.Lock()
	s.t.gen++
	s.t.mu.Unlock()
	return resp, err
}

// Capabilities (wrapper): lemming v0.4.0 answers Unimplemented.
func (s *server) Capabilities(context.Context, *gnmipb.CapabilityRequest) (*gnmipb.CapabilityResponse, error) {
	return &gnmipb.CapabilityResponse{SupportedModels: Models, SupportedEncodings: []gnmipb.Encoding{gnmipb.Encoding_JSON_IETF}, GNMIVersion: "0.10.0"}, nil
}

// Get (wrapper): lemming v0.4.0 answers Unimplemented. The answer comes
// from lemming's datastore: Subscribe ONCE of the whole OpenConfig tree,
// unmarshalled into lemming's structs (CONFIG drops state), RFC 7951 JSON
// of each requested path; a path with nothing is NotFound.
func (s *server) Get(ctx context.Context, req *gnmipb.GetRequest) (*gnmipb.GetResponse, error) {
	if req.GetEncoding() != gnmipb.Encoding_JSON_IETF {
		return nil, status.Errorf(codes.Unimplemented, "the Get wrapper serves JSON_IETF, not %s", req.GetEncoding())
	}
	if o := req.GetPrefix().GetOrigin(); o != "" && o != "openconfig" {
		return nil, status.Errorf(codes.InvalidArgument, "no match found in *oc.Root, for path origin:%s", o)
	}
	for _, p := range req.GetPath() {
		if o := p.GetOrigin(); o != "" && o != "openconfig" {
			return nil, status.Errorf(codes.InvalidArgument, "no match found in *oc.Root, for path origin:%s", o)
		}
	}
	tree, err := s.t.tree(ctx, req.GetType() == gnmipb.GetRequest_CONFIG)
	if err != nil {
		return nil, err
	}
	resp := &gnmipb.GetResponse{}
	for _, p := range req.GetPath() {
		full := append(append([]*gnmipb.PathElem(nil), req.GetPrefix().GetElem()...), p.GetElem()...)
		v, ok := subtree(tree, full)
		if !ok {
			return nil, status.Errorf(codes.NotFound, "path %v not found", full)
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

// tree is lemming's datastore as RFC 7951 JSON, cached until the next Set.
func (t *Target) tree(ctx context.Context, configOnly bool) (map[string]any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.cached[configOnly]; ok && c.gen == t.gen {
		return c.tree, nil
	}
	var notifs []*gnmipb.Notification
	for _, top := range []string{"interfaces", "qos"} {
		n, err := t.Once(ctx, &gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: top}}})
		if err != nil {
			return nil, err
		}
		notifs = append(notifs, n...)
	}
	var err error
	if t.schema == nil {
		if t.schema, err = oc.Schema(); err != nil {
			return nil, status.Errorf(codes.Internal, "lemming schema: %v", err)
		}
	}
	schema := &ytypes.Schema{Root: &oc.Root{}, SchemaTree: t.schema.SchemaTree, Unmarshal: t.schema.Unmarshal}
	// lemming's structs are path-compressed with state preferred: config
	// leaves are the shadow paths (as lemming's own Set unmarshals them).
	if err := ytypes.UnmarshalNotifications(schema, notifs, &ytypes.IgnoreExtraFields{}, &ytypes.PreferShadowPath{}); err != nil {
		return nil, status.Errorf(codes.Internal, "unmarshal lemming's datastore: %v", err)
	}
	if configOnly {
		if err := ygot.PruneConfigFalse(schema.RootSchema(), schema.Root); err != nil {
			return nil, status.Errorf(codes.Internal, "%v", err)
		}
	}
	tree, err := ygot.ConstructIETFJSON(schema.Root, &ygot.RFC7951JSONConfig{AppendModuleName: true, PreferShadowPath: true})
	if err != nil {
		return nil, status.Errorf(codes.Internal, "RFC 7951 JSON: %v", err)
	}
	if t.cached == nil {
		t.cached = map[bool]cachedTree{}
	}
	t.cached[configOnly] = cachedTree{gen: t.gen, tree: tree}
	return tree, nil
}

// Once reads everything at or below p with Subscribe ONCE.
func (t *Target) Once(ctx context.Context, p *gnmipb.Path) ([]*gnmipb.Notification, error) {
	stream, err := t.lemm.LocalClient().Subscribe(ctx)
	if err != nil {
		return nil, err
	}
	err = stream.Send(&gnmipb.SubscribeRequest{Request: &gnmipb.SubscribeRequest_Subscribe{Subscribe: &gnmipb.SubscriptionList{
		Prefix: &gnmipb.Path{Target: t.target, Origin: "openconfig"}, Mode: gnmipb.SubscriptionList_ONCE,
		Subscription: []*gnmipb.Subscription{{Path: p}}, Encoding: gnmipb.Encoding_PROTO,
	}}})
	if err != nil {
		return nil, err
	}
	var out []*gnmipb.Notification
	for {
		resp, err := stream.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if resp.GetSyncResponse() {
			return out, nil
		}
		if n := resp.GetUpdate(); n != nil {
			n.Prefix.Target = ""
			out = append(out, n)
		}
	}
}

// subtree walks RFC 7951 JSON along path elements: members by name (module
// prefixes ignored), list entries by their keys.
func subtree(v any, elems []*gnmipb.PathElem) (any, bool) {
	for _, e := range elems {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		child, ok := member(obj, e.GetName())
		if !ok {
			return nil, false
		}
		if len(e.GetKey()) == 0 {
			v = child
			continue
		}
		entries, _ := child.([]any)
		v = nil
		for _, entry := range entries {
			m, ok := entry.(map[string]any)
			if ok && keysMatch(m, e.GetKey()) {
				v = m
				break
			}
		}
		if v == nil {
			return nil, false
		}
	}
	return v, true
}

func member(obj map[string]any, name string) (any, bool) {
	for k, v := range obj {
		if k == name || strings.HasSuffix(k, ":"+name) {
			return v, true
		}
	}
	return nil, false
}

func keysMatch(entry map[string]any, keys map[string]string) bool {
	for k, want := range keys {
		got, ok := member(entry, k)
		if !ok || strings.TrimPrefix(fmt.Sprint(got), moduleOf(fmt.Sprint(got))) != strings.TrimPrefix(want, moduleOf(want)) {
			return false
		}
	}
	return true
}

// moduleOf is the "module:" prefix of an identity value, or "".
func moduleOf(s string) string {
	if i := strings.IndexByte(s, ':'); i > 0 && !strings.ContainsAny(s[:i], "/[ ") {
		return s[:i+1]
	}
	return ""
}
