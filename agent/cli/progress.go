package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/rocefab/rocefab/agent/engine"
)

// newProgress shows a bar with done/total and failures on a terminal, and
// plain lines elsewhere (CI logs). Both go to stderr, beside the logs.
func newProgress(w io.Writer) engine.Progress {
	term := w
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		term = u.Unwrap() // stderr behind the secret filter
	}
	if f, ok := term.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		return &barProgress{w: w}
	}
	return &lineProgress{w: w}
}

type barProgress struct {
	w      io.Writer
	bar    *progressbar.ProgressBar
	op     string
	failed int
}

func (p *barProgress) Start(op string, total int) {
	p.op, p.failed = op, 0
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(op),
		progressbar.OptionShowCount(),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *barProgress) Done(_ string, failed bool) {
	if failed {
		p.failed++
		p.bar.Describe(fmt.Sprintf("%s (%d failed)", p.op, p.failed))
	}
	_ = p.bar.Add(1)
}

func (p *barProgress) Finish() { _ = p.bar.Finish() }

type lineProgress struct {
	w           io.Writer
	op          string
	done, total int
	failed      int
}

func (p *lineProgress) Start(op string, total int) {
	p.op, p.total, p.done, p.failed = op, total, 0, 0
}

func (p *lineProgress) Done(device string, failed bool) {
	p.done++
	state := "ok"
	if failed {
		p.failed++
		state = "FAILED"
	}
	fmt.Fprintf(p.w, "%s: %d/%d %s %s (%d failed)\n", p.op, p.done, p.total, device, state, p.failed)
}

func (p *lineProgress) Finish() {}
