package cli

import (
	"os"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/effect"
	"github.com/rocefab/rocefab/intent"
)

// viewFlags are how plan and drift show their report.
type viewFlags struct {
	markdownLimit int
	fullPlanURL   string
}

func addViewFlags(cmd *cobra.Command) *viewFlags {
	f := &viewFlags{}
	cmd.Flags().IntVar(&f.markdownLimit, "markdown-limit", compliance.DefaultMarkdownLimit, "most characters of --output markdown (a pull-request comment); 0 means no limit")
	cmd.Flags().StringVar(&f.fullPlanURL, "full-plan-url", "", "where the full plan is kept (e.g. the workflow artifact), linked when the Markdown leaves devices out")
	return f
}

// planView shows changes in each platform's own form (its syntax and port
// names from the renderer registry), in colour on a terminal unless
// NO_COLOR is set.
func (a *app) planView(f *viewFlags) compliance.View {
	v := compliance.View{
		Platform: func(name string) (compliance.PlatformView, bool) {
			e, err := a.renderers.Lookup(name)
			if err != nil {
				return compliance.PlatformView{}, false
			}
			return compliance.PlatformView{Syntax: e.Attrs.Platform.Syntax, Port: e.Attrs.PortPattern}, true
		},
		Color: a.colorOut(),
	}
	if f != nil {
		v.MarkdownLimit, v.FullPlan = f.markdownLimit, f.fullPlanURL
		if f.markdownLimit == 0 {
			v.MarkdownLimit = -1
		}
	}
	return v
}

// colorOut: colour only on a terminal, and never with NO_COLOR set
// (https://no-color.org) or TERM=dumb.
func (a *app) colorOut() bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := a.stdout.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// classify sets each change's lossless effect from the intent.
func (a *app) classify(p *compliance.Plan, res *intent.Resolved) {
	effect.Annotate(p, res, a.renderers)
}
