package gnmisim_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/internal/netnstest"
)

// gnmiCLI is a client rocefab did not write.
const gnmiCLI = "github.com/openconfig/gnmi/cmd/gnmi_cli@v0.14.1"

// TestThirdPartyClient drives the no-auth simulator with the reference
// gnmi_cli over TLS: Capabilities, Set (a leaf and a JSON_IETF subtree
// with a list) and Get.
func TestThirdPartyClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gnmi_cli")
	}
	netnstest.RequireTool(t, "go") // runs gnmi_cli
	sim, err := gnmisim.Start(gnmisim.Options{NoAuth: true, Name: "cli-target"})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Stop()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, sim.CAPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		full := append([]string{"run", gnmiCLI, "-address", sim.Addr(), "-ca_crt", ca, "-timeout", "20s"}, args...)
		cmd := exec.CommandContext(ctx, "go", full...)
		cmd.Dir = t.TempDir() // outside the module: go run resolves the version itself
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			s := string(out)
			if strings.Contains(s, "dial tcp") || strings.Contains(s, "proxy") && strings.Contains(s, "go: ") || strings.Contains(s, "GOPROXY=off") {
				// CI reaches the module proxy: there this is a failure.
				if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
					t.Fatalf("the go command cannot fetch %s: %s", gnmiCLI, firstLine(s))
				}
				t.Skipf("the go command cannot fetch %s: %s", gnmiCLI, firstLine(s))
			}
			t.Fatalf("gnmi_cli %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// protobuf-go's text output adds a space at random (per binary) so
	// nobody compares it byte for byte: compare with spaces collapsed.
	caps := strings.Join(strings.Fields(run("-capabilities")), " ")
	for _, want := range []string{`gNMI_version: "` + gnmisim.GNMIVersion + `"`, "openconfig-qos", "JSON_IETF"} {
		if !strings.Contains(caps, want) {
			t.Errorf("Capabilities output lacks %q:\n%s", want, caps)
		}
	}

	run("-set", "-proto", `update: <
	  path: <elem: <name: "interfaces"> elem: <name: "interface" key: <key: "name" value: "Ethernet9">> elem: <name: "config"> elem: <name: "mtu">>
	  val: <json_ietf_val: "9216">>
	update: <
	  path: <elem: <name: "openconfig-qos:qos">>
	  val: <json_ietf_val: '{"queues":{"queue":[{"name":"Q3","config":{"name":"Q3","queue-id":3}}]}}'>>`)
	leaves := sim.Leaves()
	if leaves["/interfaces/interface[name=Ethernet9]/config/mtu"] != "9216" ||
		leaves["/qos/queues/queue[name=Q3]/config/queue-id"] != "3" {
		t.Fatalf("Set from gnmi_cli not applied:\n%s", sim.Tree())
	}

	got := run("-get", "-proto", `path: <elem: <name: "qos"> elem: <name: "queues">> encoding: JSON_IETF type: CONFIG`)
	for _, want := range []string{`queue-id`, `Q3`, `json_ietf_val`} {
		if !strings.Contains(got, want) {
			t.Errorf("Get output lacks %q:\n%s", want, got)
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
