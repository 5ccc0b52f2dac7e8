package ssh

import (
	"fmt"

	"github.com/scrapli/scrapligo/assets"

	"github.com/rocefab/rocefab/devcfg"
)

// platformDefinition returns what scrapligo's platform loader takes: the
// dialect's own YAML definition, or the name of one of scrapligo's
// embedded definitions.
func platformDefinition(p devcfg.Platform) (any, error) {
	if p.Dialect != nil && len(p.Dialect.Definition) > 0 {
		return p.Dialect.Definition, nil
	}
	if _, err := assets.Assets.ReadFile("platforms/" + p.Scrapli + ".yaml"); err == nil && p.Scrapli != "" {
		return p.Scrapli, nil
	}
	return nil, fmt.Errorf("%w: no scrapligo platform definition %q for platform %q", errUnsupportedPlatform, p.Scrapli, p.Name)
}

// showRunningCommand is the platform's running-config command.
func showRunningCommand(p devcfg.Platform) string {
	if p.ShowRunning != "" {
		return p.ShowRunning
	}
	return "show running-config"
}
