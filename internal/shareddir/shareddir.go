// Package shareddir finds the folders beside the checkout (../shared) that
// tests use as independent oracles, wherever the calling package sits.
package shareddir

import (
	"os"
	"path/filepath"
	"runtime"
)

// Path returns the value of env when set, else ../shared/<sub> beside the
// module root. The folder may not exist; callers skip or fail on that.
func Path(env, sub string) string {
	if env != "" {
		if d := os.Getenv(env); d != "" {
			return d
		}
	}
	return filepath.Join(ModuleRoot(), "..", "shared", sub)
}

// ModuleRoot is the folder holding go.mod: this file sits two levels below it.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
