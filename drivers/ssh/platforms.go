package ssh

import (
	"embed"
	"fmt"
	"strings"

	"github.com/scrapli/scrapligo/assets"

	"github.com/rocefab/rocefab/devcfg"
)

//go:embed platforms/*.yaml
var customPlatforms embed.FS

// platformDefinition returns what scrapligo's platform loader takes: the
// name of one of its embedded definitions, or the YAML of one of ours.
func platformDefinition(p devcfg.Platform, style devcfg.CommitStyle) (any, error) {
	name := p.Scrapli
	if name == "" {
		switch style {
		case devcfg.CommitNXOSCheckpoint:
			name = "cisco_nxos"
		case devcfg.CommitEOSSession:
			name = "arista_eos"
		case devcfg.CommitJunos:
			name = "juniper_junos"
		case devcfg.CommitNVUE:
			name = "cumulus_linux"
		case devcfg.CommitSONiCPatch:
			name = "sonic"
		}
	}
	if b, err := customPlatforms.ReadFile("platforms/" + name + ".yaml"); err == nil {
		return b, nil
	}
	if _, err := assets.Assets.ReadFile("platforms/" + name + ".yaml"); err == nil {
		return name, nil
	}
	return nil, fmt.Errorf("%w: no scrapligo platform definition %q for platform %q", errUnsupportedPlatform, name, p.Name)
}

// commitStyle is the safe-push mechanism for a platform over SSH. A SONiC
// platform whose default transport is gNMI still pushes config_db patches.
func commitStyle(p devcfg.Platform) devcfg.CommitStyle {
	switch p.Commit {
	case devcfg.CommitNXOSCheckpoint, devcfg.CommitEOSSession, devcfg.CommitJunos, devcfg.CommitNVUE, devcfg.CommitSONiCPatch:
		return p.Commit
	}
	if strings.Contains(strings.ToLower(p.Name+" "+p.Scrapli), "sonic") {
		return devcfg.CommitSONiCPatch
	}
	return p.Commit
}

// showRunningCommand is the platform's running-config command, or the
// native default for its commit style.
func showRunningCommand(p devcfg.Platform, style devcfg.CommitStyle) string {
	if p.ShowRunning != "" {
		return p.ShowRunning
	}
	switch style {
	case devcfg.CommitJunos:
		return "show configuration | display set"
	case devcfg.CommitNVUE:
		return "nv config show -o json"
	case devcfg.CommitSONiCPatch:
		return "show runningconfiguration all"
	}
	return "show running-config"
}

// builtinErrors are error strings each commit style's device prints besides
// the platform's own list, so a rejected command is never taken for success.
func builtinErrors(style devcfg.CommitStyle) []string {
	switch style {
	case devcfg.CommitNXOSCheckpoint:
		return []string{"% Invalid", "ERROR:", "% Incomplete", "% Ambiguous"}
	case devcfg.CommitEOSSession:
		return []string{"% Invalid", "% Error", "% Incomplete", "% Ambiguous", "% Cannot commit"}
	case devcfg.CommitJunos:
		return []string{"syntax error", "error:", "unknown command", "is ambiguous", "missing argument"}
	case devcfg.CommitNVUE:
		return []string{"Error:", "ERROR:", "command not found", "Invalid config"}
	case devcfg.CommitSONiCPatch:
		return []string{"Error:", "command not found", "Failed to apply patch", "No such file or directory"}
	}
	return nil
}
