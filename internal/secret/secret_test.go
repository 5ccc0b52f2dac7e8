package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
)

// hard is a password with every character that escaping changes.
const hard = `pa"ss\wo<rd>&é` + "\t!"

// TestRedactEveryForm: the secret is gone however it was printed: as is,
// quoted by %q, inside JSON (with and without HTML escaping), in a URL.
func TestRedactEveryForm(t *testing.T) {
	var html, plain bytes.Buffer
	_ = json.NewEncoder(&html).Encode(map[string]string{"error": "device said " + hard})
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"error": "device said " + hard})
	u := url.URL{Scheme: "https", Host: "git.example.com", User: url.UserPassword("netops", hard), Path: "/fabric.git"}
	for name, text := range map[string]string{
		"raw":            "% Invalid input: password " + hard + " at line 3",
		"%q":             fmt.Sprintf("device said %q", "password "+hard),
		"%+q":            fmt.Sprintf("device said %+q", "password "+hard),
		"JSON":           html.String(),
		"JSON, no HTML":  plain.String(),
		"URL":            u.String(),
		"query":          "https://h/?token=" + url.QueryEscape(hard),
		"twice in a row": hard + hard,
	} {
		t.Run(name, func(t *testing.T) {
			out := Redact(text, hard)
			var r Redactor
			r.Add(hard)
			for _, got := range []string{out, r.String(text)} {
				if strings.Contains(got, hard) || !strings.Contains(got, Mask) {
					t.Fatalf("not redacted: %q -> %q", text, got)
				}
				for _, f := range forms(hard) {
					if strings.Contains(got, f) {
						t.Fatalf("the form %q is left in %q", f, got)
					}
				}
			}
		})
	}
	if got := Redact("abc and abc", "abc"); got != "abc and abc" {
		t.Fatalf("a value shorter than %d was redacted: %q", MinLength, got)
	}
}

// TestErrorKeepsTheChain: a redacted error still matches its sentinels.
func TestErrorKeepsTheChain(t *testing.T) {
	sentinel := errors.New("rejected")
	err := Error(fmt.Errorf("%w: device said %q", sentinel, "bad password hunter2pass"), "hunter2pass")
	if strings.Contains(err.Error(), "hunter2pass") || !errors.Is(err, sentinel) {
		t.Fatalf("%v (is sentinel: %v)", err, errors.Is(err, sentinel))
	}
	if Error(nil, "x") != nil {
		t.Fatal("nil became an error")
	}
	plain := errors.New("nothing secret")
	if Error(plain, "hunter2pass") != plain {
		t.Fatal("an error without the secret was wrapped")
	}
}

// TestWriter: what goes through the writer is redacted, secrets learnt
// later included, and the caller sees its whole write accepted.
func TestWriter(t *testing.T) {
	var out bytes.Buffer
	var r Redactor
	w := r.Writer(&out)
	io.WriteString(w, "before: hunter2pass\n")
	r.Add("hunter2pass", "x", "")
	n, err := io.WriteString(w, "after: hunter2pass and hunter2passhunter2pass\n")
	if err != nil || n != len("after: hunter2pass and hunter2passhunter2pass\n") {
		t.Fatalf("write: %d %v", n, err)
	}
	if got := out.String(); got != "before: hunter2pass\nafter: <redacted> and <redacted><redacted>\n" {
		t.Fatalf("%q", got)
	}
	var nilR *Redactor
	if nilR.String("hunter2pass") != "hunter2pass" {
		t.Fatal("a nil redactor changed text")
	}
}

// TestCheckToken: weak tokens are refused with a reason that never shows
// them; strong ones pass.
func TestCheckToken(t *testing.T) {
	for tok, why := range map[string]string{
		" ":                                   "holds a space",
		"":                                    "0 characters long",
		"s3cret":                              "6 characters long",
		"aaaaaaaaaaaaaaaaaaaaaaaa":            "only 1 different characters",
		"abababababababababababab":            "only 2 different characters",
		"1234123412341234":                    "only 4 different characters",
		"correct horse battery staple":        "holds a space",
		"token-with-newline-at-end\n":         "tab or line break",
		"tab\tinside-a-long-enough-token":     "tab or line break",
		"nul\x00inside-a-long-enough-token":   "control character",
		"ümlaut-inside-a-long-enough-token":   "non-ASCII",
		"0123456789abcdef0123456789abcde\x7f": "control character",
		"REPLACE-WITH-A-LONG-RANDOM-TOKEN":    "placeholder of an example",
	} {
		err := CheckToken(tok)
		if !errors.Is(err, ErrWeak) || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckToken(%q) = %v, want %q", tok, err, why)
		}
		if len(tok) >= MinLength && err != nil && strings.Contains(err.Error(), tok) {
			t.Errorf("the refusal shows the token: %v", err)
		}
	}
	for _, tok := range []string{"s3cr3t-agent-token", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "Zq7!xP2#mK9$wL4&"} {
		if err := CheckToken(tok); err != nil {
			t.Errorf("CheckToken(%q): %v", tok, err)
		}
	}
}
