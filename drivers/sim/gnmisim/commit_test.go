package gnmisim_test

import (
	"context"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	gnmiext "github.com/openconfig/gnmi/proto/gnmi_ext"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

func withCommit(req *gnmipb.SetRequest, c *gnmiext.Commit) *gnmipb.SetRequest {
	req.Extension = []*gnmiext.Extension{{Ext: &gnmiext.Extension_Commit{Commit: c}}}
	return req
}

// TestCommitConfirmedAsSpecified: the error codes of
// openconfig/reference rpc/gnmi/gnmi-commit-confirmed.md, section 3.2.
func TestCommitConfirmedAsSpecified(t *testing.T) {
	sim, c := client(t, gnmisim.Options{CommitConfirmed: true})
	ctx := context.Background()
	mtu := func(v string) *gnmipb.SetRequest {
		return &gnmipb.SetRequest{Update: []*gnmipb.Update{update("/interfaces/interface[name=E1]/config/mtu", v)}}
	}
	commit := func(id string) *gnmiext.Commit {
		return &gnmiext.Commit{Id: id, Action: &gnmiext.Commit_Commit{Commit: &gnmiext.CommitRequest{RollbackDuration: durationpb.New(60e9)}}}
	}
	confirm := func(id string) *gnmiext.Commit {
		return &gnmiext.Commit{Id: id, Action: &gnmiext.Commit_Confirm{Confirm: &gnmiext.CommitConfirm{}}}
	}
	cases := []struct {
		name string
		req  *gnmipb.SetRequest
		want codes.Code
	}{
		{"confirm while nothing waits", withCommit(&gnmipb.SetRequest{}, confirm("a")), codes.FailedPrecondition},
		{"a commit", withCommit(mtu("9000"), commit("a")), codes.OK},
		{"a second commit while it waits", withCommit(mtu("9100"), commit("b")), codes.FailedPrecondition},
		{"a Set without the extension while it waits", mtu("9200"), codes.FailedPrecondition},
		{"confirm naming another commit", withCommit(&gnmipb.SetRequest{}, confirm("b")), codes.InvalidArgument},
		{"confirm", withCommit(&gnmipb.SetRequest{}, confirm("a")), codes.OK},
		{"a Set without the extension after it", mtu("9216"), codes.OK},
	}
	for _, tc := range cases {
		_, err := c.Set(ctx, tc.req)
		if got := status.Code(err); got != tc.want {
			t.Errorf("%s: %s (%v), want %s", tc.name, got, err, tc.want)
		}
	}
	if got := sim.Leaves()["/interfaces/interface[name=E1]/config/mtu"]; got != "9216" {
		t.Errorf("mtu %q after the sequence, want 9216", got)
	}
}
