package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/safefile"
)

// renderIndex is index.json: what was rendered, for tooling and reviews.
type renderIndex struct {
	SchemaVersion string             `json:"schemaVersion"`
	Fabric        string             `json:"fabric"`
	Devices       []renderIndexEntry `json:"devices"`
}

type renderIndexEntry struct {
	Device    string   `json:"device"`
	Platform  string   `json:"platform"`
	Transport string   `json:"transport"`
	File      string   `json:"file"`
	SHA256    string   `json:"sha256"`
	Notes     []string `json:"notes,omitempty"`
}

func newRenderCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "render PATH...",
		Short: "Render every switch's configuration to files",
		Long: `render validates the intent, then writes one file per switch in its
platform's native form (CLI, set statements, nv set commands, config_db JSON or
gNMI JSON) plus index.json. Output is byte-identical across runs.`,
		Args: requireArgs(1, "intent PATH"),
	}
	outDir := cmd.Flags().String("out-dir", "", "directory to write into (required)")
	device := cmd.Flags().String("device", "", "render only this device")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *outDir == "" {
			return usageErr("render needs --out-dir DIR")
		}
		res, diags := a.validate(args...)
		if diags.HasErrors() {
			printDiagnostics(a, diags)
			return exitWith(ExitFailure)
		}
		var switches []*intent.Switch
		for _, sw := range res.Switches {
			if *device == "" || sw.Name == *device {
				switches = append(switches, sw)
			}
		}
		if *device != "" && len(switches) == 0 {
			return checkNames("--device", kindSwitch, []string{*device}, intentNames(res, kindSwitch))
		}
		// Files are named after devices: safefile keeps every write inside
		// --out-dir, whatever the name or a link in the directory.
		out, err := safefile.Open(*outDir, 0o755)
		if err != nil {
			return err
		}
		defer out.Close()
		idx := renderIndex{SchemaVersion: "rocefab.io/render/v1", Fabric: res.Name}
		for _, sw := range switches {
			entry, err := a.renderers.Lookup(sw.Platform)
			if err != nil {
				return err
			}
			cfg, err := a.renderers.Render(sw)
			if err != nil {
				return err
			}
			data, err := entry.Attrs.Encode(cfg)
			if err != nil {
				return fmt.Errorf("%s: encode: %w", sw.Name, err)
			}
			name := sw.Name + entry.Attrs.FileExt
			if err := out.WriteFile(name, data, 0o644); err != nil {
				return fmt.Errorf("%s: %w", sw.Name, err)
			}
			sum := sha256.Sum256(data)
			idx.Devices = append(idx.Devices, renderIndexEntry{
				Device: sw.Name, Platform: entry.Name, Transport: entry.Transport(sw),
				File: name, SHA256: hex.EncodeToString(sum[:]), Notes: cfg.Notes,
			})
		}
		sort.Slice(idx.Devices, func(i, j int) bool { return idx.Devices[i].Device < idx.Devices[j].Device })
		data, err := json.MarshalIndent(idx, "", "  ")
		if err != nil {
			return err
		}
		if err := out.WriteFile("index.json", append(data, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "rendered %d device(s) into %s\n", len(idx.Devices), *outDir)
		return nil
	}
	return cmd
}

// printDiagnostics prints intent problems in the one diagnostic format.
func printDiagnostics(a *app, diags intent.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(a.stderr, d.String())
	}
	errs, warns := diags.Count()
	fmt.Fprintf(a.stderr, "%d error(s), %d warning(s)\n", errs, warns)
}
