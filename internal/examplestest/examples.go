package examplestest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rocefab/rocefab/intent"
)

// Dir is examples/<name> in this checkout, wherever the test runs from.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("examplestest: cannot locate the checkout")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", name)
}

// Resolved loads and resolves examples/<name>. The examples are part of
// the checkout, so a missing one fails the test rather than skipping it.
func Resolved(tb testing.TB, name string) *intent.Resolved {
	tb.Helper()
	dir := Dir(tb, name)
	if _, err := os.Stat(dir); err != nil {
		tb.Fatalf("examples/%s: %v", name, err)
	}
	fab, diags := intent.Load(dir)
	if fab == nil || diags.HasErrors() {
		tb.Fatalf("load examples/%s: %v", name, diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		tb.Fatalf("resolve examples/%s: %v", name, diags.Err())
	}
	return res
}

// Switch resolves one switch of examples/<name> and returns a copy a test
// may edit: its ports and policy lists are its own.
func Switch(tb testing.TB, name, device string) *intent.Switch {
	tb.Helper()
	orig := Resolved(tb, name).Switch(device)
	if orig == nil {
		tb.Fatalf("examples/%s has no switch %s", name, device)
	}
	sw := *orig
	sw.Ports = append([]intent.Port(nil), sw.Ports...)
	sw.Policy.RoCEDSCP = append([]int(nil), sw.Policy.RoCEDSCP...)
	sw.Policy.PFCPriorities = append([]int(nil), sw.Policy.PFCPriorities...)
	return &sw
}
