package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// commandExamples are the Examples: of every command's help, by command
// path. A command may set its own Example instead; TestEveryCommandHasExamples
// walks the tree and fails on a command with neither.
var commandExamples = map[string]string{
	"rocefab": `  rocefab validate fabric/
  rocefab plan fabric/ --output markdown --out plan.json
  rocefab apply plan.json
  rocefab drift fabric/ --detailed-exitcode`,
	"rocefab validate": `  rocefab validate fabric/
  rocefab validate --strict examples/basic examples/ai-cluster
  rocefab validate fabric/ --output junit > validate.xml`,
	"rocefab render": `  rocefab render fabric/ --out-dir rendered/
  rocefab render fabric/ --out-dir rendered/ --device leaf1`,
	"rocefab plan": `  rocefab plan fabric/
  rocefab plan fabric/ --device leaf1,leaf2 --detailed-exitcode
  rocefab plan fabric/ --out plan.json --output markdown --full-plan-url "$RUN_URL" > comment.md
  rocefab plan plan.json --output text   # show a saved plan again, without contacting devices
  rocefab plan fabric/ --output junit > plan.xml`,
	"rocefab drift": `  rocefab drift fabric/
  rocefab drift fabric/ --detailed-exitcode --output json
  rocefab drift fabric/ --output junit > drift.xml`,
	"rocefab apply": `  rocefab apply fabric/
  rocefab apply plan.json --auto-approve --allow-disruptive
  rocefab apply fabric/ --canary 2 --verify --confirm-timeout 5m`,
	"rocefab rollback": `  rocefab rollback 20261130T004658.123456Z-f62c0a
  rocefab rollback 20261130T004658.123456Z-f62c0a --allow-disruptive --auto-approve`,
	"rocefab runs": `  rocefab runs
  rocefab runs --kind apply,rollback --output json
  rocefab runs 20261130T004658.123456Z-f62c0a`,
	"rocefab probe": `  rocefab probe fabric/
  rocefab probe fabric/ --output markdown
  rocefab probe --mesh fabric/ --flows-per-link 3
  sudo rocefab probe examples/lab --cabling --lldp-socket /run/rflab-lldpd/{name}.sock
  rocefab probe fabric/ --output junit > probe.xml`,
	"rocefab probe serve": `  rocefab probe serve --intent fabric/
  ip netns exec rflab-h1 rocefab probe serve`,
	"rocefab probe run": `  rocefab probe run --to 198.51.100.2
  rocefab probe run --intent fabric/ --to gpu02 --pcap probe.pcap`,
	"rocefab host": `  rocefab host plan --intent fabric/
  rocefab host apply --intent fabric/ --watch 1m`,
	"rocefab host plan": `  rocefab host plan --intent fabric/
  rocefab host plan --intent fabric/ --host gpu07 --output json`,
	"rocefab host apply": `  rocefab host apply --intent fabric/
  rocefab host apply --intent fabric/ --watch 1m`,
	"rocefab doctor": `  rocefab doctor
  rocefab doctor --intent fabric/ --host gpu07
  rocefab doctor --intent fabric/ --all
  rocefab doctor --intent fabric/ --host gpu07 --cabling`,
	"rocefab agent": `  rocefab agent fabric/
  rocefab agent --git-url https://git.example.com/net/fabric.git --intent fabric --listen 0.0.0.0:9490 --token-file /run/secrets/agent-token
  rocefab agent --print-settings --config /etc/rocefab/rocefab.yaml`,
	"rocefab demo": `  rocefab demo
  sudo rocefab demo   # with a real Linux router and hosts in network namespaces`,
	"rocefab version": `  rocefab version`,
	"rocefab show":    "",
	"rocefab completion": `  source <(rocefab completion bash)
  rocefab completion zsh > "${fpath[1]}/_rocefab"
  rocefab completion fish > ~/.config/fish/completions/rocefab.fish`,
	"rocefab completion bash": `  source <(rocefab completion bash)
  rocefab completion bash > /etc/bash_completion.d/rocefab`,
	"rocefab completion zsh":        `  rocefab completion zsh > "${fpath[1]}/_rocefab"`,
	"rocefab completion fish":       `  rocefab completion fish > ~/.config/fish/completions/rocefab.fish`,
	"rocefab completion powershell": `  rocefab completion powershell | Out-String | Invoke-Expression`,
	"rocefab help": `  rocefab help plan
  rocefab plan --help`,
}

// finishTree gives every command its examples and rocefab's completions,
// once all commands are added. Cobra's completion and help commands are
// made here, so they carry examples like the rest.
func (a *app) finishTree(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Example == "" {
			c.Example = strings.TrimRight(commandExamples[c.CommandPath()], "\n")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	a.registerCompletions(root)
}

// registerCompletions wires device, host and run ID completion into the
// commands that take them.
func (a *app) registerCompletions(root *cobra.Command) {
	find := func(path ...string) *cobra.Command {
		c, _, err := root.Find(path)
		if err != nil || c == root {
			return nil
		}
		return c
	}
	for _, name := range []string{"plan", "drift", "apply"} {
		if c := find(name); c != nil {
			_ = c.RegisterFlagCompletionFunc("device", a.completeDeviceFlag(nil, kindDevice))
			c.ValidArgsFunction = completeIntentPaths
		}
	}
	if c := find("render"); c != nil {
		_ = c.RegisterFlagCompletionFunc("device", a.completeDeviceFlag(nil, kindSwitch))
		c.ValidArgsFunction = completeIntentPaths
	}
	for _, name := range []string{"validate", "probe", "agent"} {
		if c := find(name); c != nil {
			c.ValidArgsFunction = completeIntentPaths
		}
	}
	for _, name := range []string{"rollback", "runs"} {
		if c := find(name); c != nil {
			c.ValidArgsFunction = a.completeRunIDs()
		}
	}
	// --host and --to take the hosts of the command's --intent.
	for _, path := range [][]string{{"host", "plan"}, {"host", "apply"}, {"doctor"}, {"probe", "serve"}, {"probe", "run"}} {
		c := find(path...)
		if c == nil || c.Flags().Lookup("intent") == nil {
			continue
		}
		paths := func() *[]string {
			v, _ := c.Flags().GetStringSlice("intent")
			return &v
		}
		hostFn := func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			return a.completeDeviceFlag(paths(), kindHost)(cmd, nil, toComplete)
		}
		if c.Flags().Lookup("host") != nil {
			_ = c.RegisterFlagCompletionFunc("host", hostFn)
		}
		for _, flag := range []string{"to", "from"} {
			if c.Flags().Lookup(flag) != nil {
				_ = c.RegisterFlagCompletionFunc(flag, hostFn)
			}
		}
	}
}
