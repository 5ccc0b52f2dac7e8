package daemon

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// statusFabric starts an agent on two switches, leaf2 drifted on its ECN
// minimum, with one drift and one (failing) probe run done.
func statusFabric(t *testing.T, token string) (*running, *history.Run, *history.Run) {
	t.Helper()
	f := newFixture(t, 2)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg, err := simRenderer{}.Render(resolve(t, f.intent("100KB", "9216")).Switches[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := f.sims["leaf2"].Load(cfg.Paths); err != nil {
		t.Fatal(err)
	}
	c := f.config()
	c.HTTP.Token = token
	deps := f.deps()
	deps.Probe = fakeProbe
	a := f.start(c, deps)
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	drift, err := a.RunNow(context.Background(), history.KindDrift)
	if err != nil {
		t.Fatal(err)
	}
	probe, err := a.RunNow(context.Background(), history.KindProbe)
	if err != nil {
		t.Fatal(err)
	}
	return a, drift, probe
}

// TestStatusPage: /status needs the token, escapes what the intent and
// the devices put on it, and shows devices with their state and drift
// diff, the probe matrix, the findings and the recent runs, with nothing
// loaded from elsewhere.
func TestStatusPage(t *testing.T) {
	const token = "s3cr3t-agent-token"
	a, drift, probe := statusFabric(t, token)
	// A device name with markup, as a hostile or broken history could
	// hold: it must come out as text.
	const evil = `<script>alert("x")</script>`
	a.mu.Lock()
	a.states[evil] = history.DeviceState{Device: evil, Platform: "simoc", State: "error", Error: `<img src=x onerror=alert(1)>`}
	a.mu.Unlock()

	for _, tok := range []string{"", "wrong"} {
		if code, body := a.get("/status", tok); code != http.StatusUnauthorized || strings.Contains(body, "leaf1") {
			t.Fatalf("/status with token %q: %d %s", tok, code, body)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, a.base+"/status", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	body := buf.String()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/status: %s %s", resp.Status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}

	if strings.Contains(body, evil) || strings.Contains(body, "<img") {
		t.Error("markup from a device name or error reached the page unescaped")
	}
	if !strings.Contains(body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("the device with markup in its name is not shown as text")
	}
	// Nothing from elsewhere: no scripts, stylesheets, images or fonts.
	for _, re := range []string{`<script`, `<link`, `<img`, `<[a-z]+[^>]*\s(src|href)=`, `@import`, `url\(`} {
		if regexp.MustCompile(re).MatchString(body) {
			t.Errorf("the page has %s", re)
		}
	}

	row := func(device string) string {
		i := strings.Index(body, `data-device="`+device+`"`)
		if i < 0 {
			t.Fatalf("no row for %s", device)
		}
		end := strings.Index(body[i:], "</tr>\n<tr") // the row's own diff table has inner </tr>s
		if end < 0 {
			end = strings.Index(body[i:], "</tbody>")
		}
		return body[i : i+end]
	}
	for _, tc := range []struct {
		name string
		in   string
		has  []string
		not  []string
	}{
		{"header", body, []string{`<h1 id="fabric">Fabric lab</h1>`, "2 switches"}, nil},
		{"leaf1 compliant", row("leaf1"), []string{`class="ok">compliant`}, []string{ecnPath}},
		// leaf2's diff: the ECN minimum leaf, running 100 KB against 150 KB.
		{"leaf2 drift diff", row("leaf2"), []string{`class="warn">drifted (degrades)`, ecnPath,
			`<td class="mono">&#34;100000&#34; → &#34;150000&#34;</td><td>degrades</td>`}, nil},
		{"evil error escaped", row("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"), []string{`class="bad">error`, "&lt;img src=x onerror=alert(1)&gt;"}, nil},
		{"probe matrix", body, []string{"run <code>" + probe.ID + "</code>", `<th class="to mono">gpu03</th>`,
			`<td class="ok" title="gpu01 → gpu02: pass, loss 0 %, RTT mean 11.0 µs, p99 25.0 µs">25µs</td>`,
			`<td class="bad" title="gpu01 → gpu03: fail, loss 2.5 %, RTT mean 40.0 µs, p99 90.0 µs">2.5% loss</td>`,
			`<td class="none" title="gpu02 → gpu01: not probed">`}, nil},
		{"findings", body, []string{`<td class="bad">error</td><td class="mono">loss</td>`, "2.5 % loss on a lossless class", "gpu01 -&gt; gpu03"}, nil},
		{"runs", body, []string{`<td class="mono">` + drift.ID + `</td><td>drift</td><td>manual</td><td class="warn">changes</td>`,
			`<td class="mono">` + probe.ID + `</td><td>probe</td><td>manual</td><td class="bad">failure</td>`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range tc.has {
				if !strings.Contains(tc.in, s) {
					t.Errorf("missing %q in\n%s", s, tc.in)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(tc.in, s) {
					t.Errorf("has %q in\n%s", s, tc.in)
				}
			}
		})
	}
}

// TestStatusPageEmpty: before any run the page renders and says so.
func TestStatusPageEmpty(t *testing.T) {
	f := newFixture(t, 1)
	cfg := f.config() // the repository has no commit: no intent
	a := f.start(cfg, f.deps())
	code, body := a.get("/status", "")
	if code != http.StatusOK {
		t.Fatalf("/status: %d %s", code, body)
	}
	for _, s := range []string{"No valid intent loaded", "No drift check has run yet.", "No probe run yet.", "<p>None.</p>"} {
		if !strings.Contains(body, s) {
			t.Errorf("missing %q", s)
		}
	}
}

// TestProbeMatrix: each pair lands in its cell with the colour of its
// outcome.
func TestProbeMatrix(t *testing.T) {
	run := &history.Run{ID: "r1", Pairs: []history.ProbePair{
		{From: "a", To: "b", Verdict: VerdictPass, Reachable: true, RTTP99Micros: 12},
		{From: "a", To: "c", Verdict: VerdictPass, Reachable: true, LossPercent: 0.1, RTTP99Micros: 12},
		{From: "b", To: "a", Verdict: VerdictFail, Reachable: false},
		{From: "c", To: "a", Verdict: VerdictFail, Reachable: true, LossPercent: 50},
	}}
	p := probeMatrix(run)
	if strings.Join(p.Hosts, ",") != "a,b,c" {
		t.Fatalf("hosts %v", p.Hosts)
	}
	for _, tc := range []struct {
		from, to    int
		class, text string
	}{
		{0, 0, "self", ""},
		{0, 1, "ok", "12µs"},
		{0, 2, "warn", "0.1% loss"},
		{1, 0, "bad", "✗"},
		{1, 2, "none", "·"},
		{2, 0, "bad", "50% loss"},
	} {
		c := p.Rows[tc.from].Cells[tc.to]
		if c.Class != tc.class || c.Text != tc.text {
			t.Errorf("%s → %s: %+v, want %s %q", p.Hosts[tc.from], p.Hosts[tc.to], c, tc.class, tc.text)
		}
	}
}

// TestStatusPageChromium loads the page in headless Chromium: the DOM it
// builds shows the fabric's devices and the probe matrix, and it renders
// a screenshot (kept in ROCEFAB_ARTIFACTS_DIR when set, for CI to keep).
func TestStatusPageChromium(t *testing.T) {
	netnstest.RequireTool(t, "chromium")
	a, _, _ := statusFabric(t, "")
	url := a.base + "/status"
	chromium := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
			"--user-data-dir=" + t.TempDir(), "--window-size=1280,1024"}
		cmd := exec.CommandContext(ctx, "chromium", append(base, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
		}
		return stdout.Bytes()
	}

	dom := string(chromium("--dump-dom", url))
	for _, s := range []string{`Fabric lab`, `data-device="leaf1"`, `data-device="leaf2"`, `drifted (degrades)`, `>gpu03<`, ecnPath} {
		if !strings.Contains(dom, s) {
			t.Errorf("the DOM has no %q:\n%s", s, dom)
		}
	}

	dir := os.Getenv("ROCEFAB_ARTIFACTS_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "status-page.png")
	_ = os.Remove(shot)
	chromium("--screenshot="+shot, url)
	png, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s is not a PNG with content (%d bytes)", shot, len(png))
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}

// TestStatusPageLosslessFindings: the detectors watch the streamed
// counters; a steady stream raises nothing, a PFC watchdog trip on a
// switch queue is an active pfc_storm on the page.
func TestStatusPageLosslessFindings(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	key := counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "pfc3/watchdog-storms"}
	waitFor(t, "leaf1's counters", func() bool { _, ok := a.hub.value(key); return ok })
	time.Sleep(10 * cfg.CountersInterval)
	if got := a.activeLossless(); len(got) != 0 {
		t.Fatalf("findings on a quiet fabric: %v", got)
	}
	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 2)
	var got []telemetry.Finding
	waitFor(t, "a pfc_storm finding", func() bool {
		got = a.activeLossless()
		return len(got) > 0
	})
	if len(got) != 1 || got[0].Code != telemetry.CodePFCStorm || got[0].Subject != (telemetry.Subject{Device: "leaf1", Port: "Ethernet2", Priority: 3}) {
		t.Fatalf("findings %v", got)
	}
	if v, ok := valueIn(scrape(t, a.base, ""), "rocefab_lossless_finding_active", map[string]string{"code": "pfc_storm",
		"severity": "error", "device": "leaf1", "port": "Ethernet2", "priority": "3"}); !ok || v != 1 {
		t.Errorf("rocefab_lossless_finding_active = %v (%v)", v, ok)
	}
	code, body := a.get("/status", "")
	if code != http.StatusOK {
		t.Fatalf("/status: %d", code)
	}
	for _, s := range []string{`<td class="bad">error</td><td class="mono">pfc_storm</td><td class="mono">` + got[0].Subject.String() + `</td>`,
		"the PFC watchdog detected 2 storm(s)", "counters since "} {
		if !strings.Contains(body, s) {
			t.Errorf("the page has no %q", s)
		}
	}
}
