package doctor

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/drivers/hostcontract"
)

// Remote runs `rocefab doctor` on hosts through the host contract: the
// command goes over the Runner (SSH in production) with the intent on
// standard input, and the answer is a doctor Report.
type Remote struct {
	Runner hostcontract.Runner
	// Binary is the rocefab command on the hosts; default "rocefab".
	Binary string
	// Intent is sent on standard input ("--intent -").
	Intent []byte
	// Parallel bounds concurrent hosts; default 16.
	Parallel int
}

// Command is the command line sent to a host.
func (r *Remote) Command(host string) string {
	bin := r.Binary
	if bin == "" {
		bin = "rocefab"
	}
	return strings.Join([]string{hostcontract.ShellQuote(bin), "doctor", "--host", hostcontract.ShellQuote(host), "--intent", "-", "--output", "json"}, " ")
}

// Check runs the doctor on one host. A host that cannot be reached or
// answers garbage yields a failed report carrying the error, so a fleet
// run always has one report per host.
func (r *Remote) Check(ctx context.Context, host string) *Report {
	fail := func(err error) *Report {
		rep := NewReport(host)
		rep.Error = err.Error()
		rep.Verdict = Fail
		return rep
	}
	if r.Runner == nil {
		return fail(fmt.Errorf("%s: doctor: no command runner configured", host))
	}
	res, err := r.Runner.Run(ctx, host, r.Command(host), r.Intent)
	if err != nil {
		return fail(fmt.Errorf("%s: doctor: %w", host, err))
	}
	if res.ExitCode == 127 && len(strings.TrimSpace(string(res.Stdout))) == 0 {
		return fail(fmt.Errorf("%w: %s: rocefab not found; install the same release on the host", hostcontract.ErrNotInstalled, host))
	}
	var rep Report
	if err := hostcontract.Decode(res.Stdout, hostcontract.KindDoctor, &rep); err != nil {
		msg := strings.TrimSpace(string(res.Stderr))
		if msg != "" {
			return fail(fmt.Errorf("%s: doctor exited %d: %s (%w)", host, res.ExitCode, msg, err))
		}
		return fail(fmt.Errorf("%s: doctor: %w", host, err))
	}
	if rep.Host != host {
		return fail(fmt.Errorf("%s: doctor: answer is for host %q", host, rep.Host))
	}
	if rep.Error != "" {
		rep.Verdict = Fail
	}
	return &rep
}

// CheckAll runs the doctor on every host, in the order given.
func (r *Remote) CheckAll(ctx context.Context, hosts []string) []*Report {
	out := make([]*Report, len(hosts))
	par := r.Parallel
	if par <= 0 {
		par = 16
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = r.Check(ctx, h)
		}()
	}
	wg.Wait()
	return out
}
