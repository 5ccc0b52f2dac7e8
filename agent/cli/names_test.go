package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownNamesAreUsageErrors: a name the intent does not have is never
// "nothing to do": every command that takes device or host names refuses
// it with exit 64, names the flag and suggests the nearest name, before
// contacting anything.
func TestUnknownNamesAreUsageErrors(t *testing.T) {
	basic := filepath.Join(examplesDir, "basic")
	state := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"plan", basic, "--device", "leaf-eso"}, `--device "leaf-eso" (did you mean "leaf-eos"?): no such device in the intent`},
		{[]string{"drift", basic, "--device", "leaf-eos,gpu09"}, `--device "gpu09" (did you mean "gpu01"?): no such device in the intent`},
		{[]string{"apply", basic, "--device", "leaf9", "--auto-approve"}, `--device "leaf9": no such device in the intent`},
		{[]string{"render", basic, "--out-dir", t.TempDir(), "--device", "spine-co"}, `--device "spine-co" (did you mean "spine-oc"?): no such switch in the intent`},
		{[]string{"host", "plan", "--intent", basic, "--host", "gpu1"}, `--host "gpu1" (did you mean "gpu01"?): no such host in the intent`},
		{[]string{"doctor", "--intent", basic, "--host", "gpu001"}, `--host "gpu001" (did you mean "gpu01"?): no such host in the intent`},
		{[]string{"probe", "run", "--intent", basic, "--from", "gpu01", "--to", "gpu5"}, `--to "gpu5" (did you mean "gpu01"?): no such host in the intent`},
		{[]string{"show", "leaf-nxso", "--intent", basic}, `"leaf-nxso" (did you mean "leaf-nxos"?): no such device in the intent`},
		{[]string{"show", "--link", "leaf-eos:Ethernet99", "--intent", basic}, `no link at leaf-eos:Ethernet99`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			args := append(tc.args, "--state-dir", state)
			if tc.args[0] == "render" || tc.args[0] == "host" || tc.args[0] == "doctor" || tc.args[0] == "probe" {
				args = tc.args
			}
			code, out, errOut := runCLI(t, "", args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitUsage, out, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Fatalf("stderr lacks %q:\n%s", tc.want, errOut)
			}
			if strings.Contains(out+errOut, "No changes") || strings.Contains(out, "matches the intent") {
				t.Fatalf("an unknown name reads as no changes:\n%s%s", out, errOut)
			}
		})
	}
}
