package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const hostileSwitch = `apiVersion: rocefab.io/v1alpha1
kind: Fabric
spec:
  switches:
    - name: leaf1
      platform: eos
      address: 192.0.2.11
      credentials: {username: rocefab, passwordEnv: ROCEFAB_SWITCH_PASSWORD}
      ports: [{names: Ethernet1-8}]
`

func writeIntent(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestValidateHostileInputs: `rocefab validate` on a folder holding a link
// to /dev/zero or a FIFO ends at once with exit 1 and says which file is
// refused and why.
func TestValidateHostileInputs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"link to /dev/zero", func(t *testing.T, dir string) {
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "RF014 error (document): " + "DIR/zero.yaml links to /dev/zero, outside the intent folder DIR"},
		{"FIFO", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "RF014 error (document): DIR/pipe.yaml is a named pipe (FIFO), not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeIntent(t, dir, "fabric.yaml", hostileSwitch)
			tc.setup(t, dir)
			code, out, errOut := runCLI(t, "", "validate", dir)
			want := strings.ReplaceAll(tc.want, "DIR", dir)
			if code != ExitFailure || !strings.Contains(out, want) || !strings.HasSuffix(out, "1 error(s), 0 warning(s)\n") {
				t.Fatalf("exit %d, want 1 and %q:\n%s%s", code, want, out, errOut)
			}
		})
	}
}

// TestIntentLimitFlags: the --intent-max-* flags, variables and config
// keys set the loader's limits; a bad value is a usage error.
func TestIntentLimitFlags(t *testing.T) {
	basic := filepath.Join(examplesDir, "basic")
	code, out, _ := runCLI(t, "", "validate", basic, "--intent-max-devices", "2")
	if code != ExitFailure || !strings.Contains(out, "RF017 error") || !strings.Contains(out, "more than the limit of 2 (--intent-max-devices)") {
		t.Fatalf("--intent-max-devices 2: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "", "validate", basic, "--intent-max-size", "1KiB")
	if code != ExitFailure || !strings.Contains(out, "RF017 error") || !strings.Contains(out, "the intent is more than 1KiB") {
		t.Fatalf("--intent-max-size 1KiB: exit %d\n%s", code, out)
	}
	t.Setenv("ROCEFAB_INTENT_MAX_PORTS", "4")
	code, out, _ = runCLI(t, "", "validate", basic)
	if code != ExitFailure || !strings.Contains(out, "more than 4 switch ports") {
		t.Fatalf("ROCEFAB_INTENT_MAX_PORTS=4: exit %d\n%s", code, out)
	}
	t.Setenv("ROCEFAB_INTENT_MAX_PORTS", "")
	cfg := writeIntent(t, t.TempDir(), "rocefab.yaml", "intent-max-file-size: 100B\n")
	code, out, _ = runCLI(t, "", "validate", "--config", cfg, basic)
	if code != ExitFailure || !strings.Contains(out, "more than the 100B an intent file may hold") {
		t.Fatalf("intent-max-file-size in the config file: exit %d\n%s", code, out)
	}
	// Standard input is bounded the same way.
	big := hostileSwitch + strings.Repeat("# padding\n", 50)
	code, out, errOut := runCLI(t, big, "host", "plan", "--intent", "-", "--intent-max-file-size", "200B", "--host", "h1")
	if code == ExitOK || !strings.Contains(out+errOut, "more than the 200B an intent file may hold") {
		t.Fatalf("an intent on stdin over the limit: exit %d\n%s%s", code, out, errOut)
	}
	for _, bad := range [][]string{{"--intent-max-size", "16"}, {"--intent-max-file-size", "lots"}, {"--intent-max-devices", "0"}} {
		if code, _, errOut := runCLI(t, "", append([]string{"validate", basic}, bad...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", bad, code, ExitUsage, errOut)
		}
	}
}

// TestRenderStaysInOutDir: a switch named ../../../ESCAPED-render is
// refused before anything is written (RF016), and nothing appears outside
// --out-dir.
func TestRenderStaysInOutDir(t *testing.T) {
	base := t.TempDir()
	outDir := filepath.Join(base, "a", "b", "c", "out")
	code, out, errOut := runCLI(t, "", "render", filepath.Join(examplesDir, "broken", "RF016.yaml"), "--out-dir", outDir)
	if code != ExitFailure || !strings.Contains(errOut, `RF016 error spec.switches[0].name: switch name "../../../ESCAPED-render" contains the path separator '/'`) {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var found []string
	_ = filepath.Walk(base, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			found = append(found, path)
		}
		return nil
	})
	if len(found) > 0 {
		t.Fatalf("render wrote %v", found)
	}
}
