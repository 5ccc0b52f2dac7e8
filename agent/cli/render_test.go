package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestRenderWritesEveryDeviceDeterministically(t *testing.T) {
	basic := filepath.Join(examplesDir, "basic")
	requireRegistered(t, false, basic)
	render := func(extra ...string) string {
		t.Helper()
		dir := t.TempDir()
		code, out, errOut := runCLI(t, "", append([]string{"render", basic, "--out-dir", dir}, extra...)...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		return dir
	}
	first, second := render(), render()
	var idx renderIndex
	data, err := os.ReadFile(filepath.Join(first, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Devices) < 6 {
		t.Fatalf("index lists %d devices, want every switch of examples/basic", len(idx.Devices))
	}
	for _, d := range append(idx.Devices, renderIndexEntry{File: "index.json"}) {
		a, errA := os.ReadFile(filepath.Join(first, d.File))
		b, errB := os.ReadFile(filepath.Join(second, d.File))
		if errA != nil || errB != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s is not byte-identical across runs (or empty)", d.File)
		}
	}
	one := render("--device", "leaf-eos")
	entries, _ := os.ReadDir(one)
	if len(entries) != 2 { // leaf-eos.cfg and index.json
		t.Fatalf("--device wrote %d files", len(entries))
	}
	for _, args := range [][]string{{"render", basic}, {"render", basic, "--out-dir", t.TempDir(), "--device", "nope"}} {
		if code, _, _ := runCLI(t, "", args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}
