package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/engine/enginetest"
)

// untrustedIntent is a one-switch gNMI fabric whose intent names a CA
// bundle that does not verify the target (or none at all).
func untrustedIntent(t *testing.T, caLine string) (path string, fleet *enginetest.Fleet) {
	t.Helper()
	f := enginetest.Start(t, []enginetest.Spec{{Name: "leaf-sonic", Kind: enginetest.SONiC}})
	intent := regexp.MustCompile(`(?m)^    caBundle: .*\n`).ReplaceAll(f.Intent(enginetest.Params{}), []byte(caLine))
	path = filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(path, intent, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, f
}

// TestInsecureOnlyByFlag: verification is turned off only by the explicit
// --insecure flag, never by ROCEFAB_INSECURE or the config file.
func TestInsecureOnlyByFlag(t *testing.T) {
	path, _ := untrustedIntent(t, "")
	state := filepath.Join(t.TempDir(), "state")
	plan := func(extra ...string) (int, string) {
		code, out, errOut := runCLI(t, "", append([]string{"plan", path, "--state-dir", state, "--timeout", "5s"}, extra...)...)
		return code, out + errOut
	}
	if code, out := plan(); code != ExitFailure {
		t.Fatalf("untrusted target without --insecure: exit %d\n%s", code, out)
	}
	t.Setenv("ROCEFAB_INSECURE", "true")
	if code, out := plan(); code != ExitFailure || !strings.Contains(out, "WARNING: ROCEFAB_INSECURE is ignored: verification is turned off only by the --insecure flag") {
		t.Errorf("ROCEFAB_INSECURE=true turned TLS verification off without the flag, or went unsaid: exit %d\n%s", code, out)
	}
	os.Unsetenv("ROCEFAB_INSECURE")
	cfg := filepath.Join(t.TempDir(), "rocefab.yaml")
	if err := os.WriteFile(cfg, []byte("insecure: true\nssh-accept-new: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "--config", cfg, "plan", path, "--state-dir", state, "--timeout", "5s")
	if code != ExitUsage || !strings.Contains(errOut, "turns verification off, which only the --") {
		t.Errorf("insecure: true in the config file is not refused: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", "plan", path, "--state-dir", state, "--timeout", "5s", "--insecure")
	if code != ExitOK || !strings.Contains(errOut, "WARNING: --insecure") {
		t.Errorf("--insecure should connect and warn: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCABundleFlagOverridesTheIntent: a pipeline pins its own trust anchor;
// a CA bundle named by the intent under review does not replace it.
func TestCABundleFlagOverridesTheIntent(t *testing.T) {
	bogus := filepath.Join(t.TempDir(), "pr-supplied-ca.pem")
	if err := os.WriteFile(bogus, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path, f := untrustedIntent(t, "    caBundle: "+bogus+"\n")
	state := filepath.Join(t.TempDir(), "state")
	if code, out, errOut := runCLI(t, "", "plan", path, "--state-dir", state, "--timeout", "5s"); code != ExitFailure {
		t.Fatalf("the intent's unusable CA bundle should fail: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "", "plan", path, "--state-dir", state, "--timeout", "5s", "--ca-bundle", f.CABundle); code != ExitOK {
		t.Fatalf("--ca-bundle should verify the target: exit %d\n%s%s", code, out, errOut)
	}
	t.Setenv("ROCEFAB_CA_BUNDLE", f.CABundle)
	if code, out, errOut := runCLI(t, "", "plan", path, "--state-dir", state, "--timeout", "5s"); code != ExitOK {
		t.Fatalf("ROCEFAB_CA_BUNDLE should verify the target: exit %d\n%s%s", code, out, errOut)
	}
}

// TestUsageErrorsExit64: usage errors (bad flags or arguments) exit 64 on
// every command.
func TestUsageErrorsExit64(t *testing.T) {
	basic := "../../examples/basic"
	for _, args := range [][]string{
		{"bogus"},
		{"version", "extra"},
		{"probe", "serve", "extra"},
		{"rollback", "run-a", "run-b", "--state-dir", t.TempDir()},
		{"plan", basic, "--parallelism", "0", "--state-dir", t.TempDir()},
		{"apply", basic, "--canary", "-1", "--auto-approve", "--state-dir", t.TempDir()},
		{"drift", basic, "--timeout", "-1s", "--state-dir", t.TempDir()},
		{"probe", "run", "--to", "192.0.2.1", "--port", "0"},
		{"validate"},
		{"plan", basic, "--bogus-flag"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, "", args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d (usage error): %s", code, ExitUsage, errOut)
			}
		})
	}
}

// TestApplyRefusesBeforeAsking: when every change is traffic-affecting and
// --allow-disruptive is missing, apply says so and does not ask.
func TestApplyRefusesBeforeAsking(t *testing.T) {
	f := enginetest.Start(t, []enginetest.Spec{{Name: "leaf-sonic", Kind: enginetest.SONiC}})
	path := f.WriteIntent(t, "fabric.yaml", enginetest.Params{})
	before := f.Configs()
	code, _, errOut := runCLI(t, "", "apply", path, "--state-dir", t.TempDir())
	if code != ExitFailure || strings.Contains(errOut, "Only 'yes' will be accepted") ||
		!strings.Contains(errOut, "1 device(s) with traffic-affecting changes will be refused without --allow-disruptive") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for name, cfg := range f.Configs() {
		if cfg != before[name] {
			t.Fatalf("%s changed", name)
		}
	}
}

// TestConfigFileRejectsUnknownSettings: a typo in the config file is a usage
// error naming the key, never silently ignored.
func TestConfigFileRejectsUnknownSettings(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("logLevel: debug\nagent:\n  drift:\n    interval: 5m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "", "--config", bad, "validate", "../../examples/basic")
	if code != ExitUsage || !strings.Contains(errOut, `unknown setting "loglevel" (did you mean "log-level"?)`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("log-level: info\nagent:\n  drift:\n    interval: 5m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "", "--config", good, "validate", "../../examples/basic"); code != ExitOK {
		t.Fatalf("a valid config file: exit %d: %s", code, errOut)
	}
}
