package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/internal/secret"
)

// TestAgentRefusesWeakTokens: a token of one space, a short or repetitive
// one, from a file or a variable, is a usage error naming the problem and
// never the token; the agent does not start, so it binds nothing.
func TestAgentRefusesWeakTokens(t *testing.T) {
	dir := t.TempDir()
	file := func(content string) string {
		p := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := []string{"agent", "../../examples/basic", "--state-dir", dir, "--counters-interval", "0s"}
	for _, tc := range []struct {
		name  string
		args  []string
		token string // in ROCEFAB_AGENT_TOKEN
		want  string
	}{
		{"one space in a file, beyond localhost", []string{"--listen", "0.0.0.0:0", "--token-file", file(" \n")}, "", "holds a space"},
		{"one space in the variable, beyond localhost", []string{"--listen", "0.0.0.0:0"}, " ", "holds a space"},
		{"one space in the variable, on loopback too", []string{"--listen", "127.0.0.1:0"}, " ", "holds a space"},
		{"one space in a file, on loopback too", []string{"--listen", "127.0.0.1:0", "--token-file", file(" \n")}, "", "holds a space"},
		{"a tab inside, on loopback too", []string{"--listen", "127.0.0.1:0"}, "abcdefgh\tijklmnopq", "holds"},
		{"short", []string{"--listen", "0.0.0.0:0"}, "s3cret", "6 characters long"},
		{"repetitive, on loopback too", []string{"--listen", "127.0.0.1:0"}, "aaaaaaaaaaaaaaaaaaaaaaaa", "only 1 different characters"},
		{"the example's placeholder", []string{"--listen", "0.0.0.0:0", "--token-file", file("REPLACE-WITH-A-LONG-RANDOM-TOKEN\n")}, "", "placeholder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ROCEFAB_AGENT_TOKEN", tc.token)
			code, out, errOut := runCLI(t, "", append(base, tc.args...)...)
			if code != ExitUsage || !strings.Contains(errOut, "the API token is refused") || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s%s", code, ExitUsage, tc.want, out, errOut)
			}
			if strings.Contains(errOut, "serving on") {
				t.Fatal("the agent started")
			}
			if len(strings.TrimSpace(tc.token)) >= 4 && strings.Contains(errOut, tc.token) {
				t.Fatal("the refusal shows the token")
			}
		})
	}
}

// TestPrintSettingsRedactsURLPasswords: a password in --git-url is shown
// as xxxxx by --print-settings, as the webhook URL is redacted whole.
func TestPrintSettingsRedactsURLPasswords(t *testing.T) {
	const pw = "Url-Pa55word-in-flag"
	code, out, errOut := runCLI(t, "", "agent", "--git-url", "https://netops:"+pw+"@git.example.com/net/fabric.git",
		"--webhook-url", "https://hooks.example.com/services/T000/B000/"+pw, "--print-settings")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out+errOut, pw) || got["agent.git.url"] != "https://netops:xxxxx@git.example.com/net/fabric.git" || got["agent.notify.webhook-url"] != "<redacted>" {
		t.Fatalf("settings:\n%s", out)
	}
}

// TestOutputsFilterResolvedSecrets: whatever rocefab prints or logs after
// resolving a device password is filtered for it, a second line of
// defence behind the drivers' own redaction.
func TestOutputsFilterResolvedSecrets(t *testing.T) {
	const pw = "Device-Pa55word-resolved"
	t.Setenv("ROCEFAB_TEST_FILTER_PASSWORD", pw)
	var out bytes.Buffer
	secrets := &secret.Redactor{}
	a := &app{stdout: secrets.Writer(&out), secrets: secrets}
	creds, err := a.resolveSecret(compliance.Connection{Username: "rocefab", PasswordEnv: "ROCEFAB_TEST_FILTER_PASSWORD"})
	if err != nil || creds.Password != pw {
		t.Fatalf("resolve: %v %v", creds, err)
	}
	fmt.Fprintf(a.stdout, "leaf1: push: device said %q\n", "bad secret "+pw)
	if got := out.String(); strings.Contains(got, pw) || !strings.Contains(got, "bad secret <redacted>") {
		t.Fatalf("printed %q", got)
	}
}
