// Package secret keeps secret values (device passwords, tokens, a git
// URL's password) out of what rocefab prints, logs and stores. Drivers
// redact the secrets they hold where they form errors from what a device
// said (Redact, Error); the CLI also passes everything it writes through a
// Redactor that knows every secret it resolved, as a second line of
// defence.
package secret

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Mask replaces a secret.
const Mask = "<redacted>"

// MinLength is the shortest value redacted. A shorter secret is no secret
// (and replacing every "ab" in the output would garble it).
const MinLength = 4

// forms are the ways a value may appear in output: as is, inside a Go
// quoted string (%q, as errors quote device messages), inside a JSON
// string (reports, JSON logs; with and without HTML escaping), and
// percent-encoded in a URL.
func forms(v string) []string {
	out := []string{v}
	add := func(f string) {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	q := strconv.Quote(v)
	add(q[1 : len(q)-1])
	q = strconv.QuoteToASCII(v)
	add(q[1 : len(q)-1])
	if j, err := json.Marshal(v); err == nil {
		add(string(j[1 : len(j)-1]))
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		j := strings.TrimSuffix(b.String(), "\n")
		add(j[1 : len(j)-1])
	}
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	add(url.UserPassword("u", v).String()[2:])
	return out
}

// Redact replaces every form of each secret in s with Mask.
func Redact(s string, secrets ...string) string {
	for _, v := range secrets {
		if len(v) < MinLength {
			continue
		}
		for _, f := range forms(v) {
			if strings.Contains(s, f) {
				s = strings.ReplaceAll(s, f, Mask)
			}
		}
	}
	return s
}

// Error returns err with secrets redacted from its text; errors.Is and
// errors.As still see err (nil stays nil).
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := Redact(msg, secrets...); red != msg {
		return &redacted{msg: red, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// Redactor knows a growing set of secrets and redacts them from text. The
// zero value knows none; it is safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	values  map[string]bool
	replace *strings.Replacer
}

// Add learns secrets; values shorter than MinLength are ignored.
func (r *Redactor) Add(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := false
	for _, v := range values {
		if len(v) < MinLength || r.values[v] {
			continue
		}
		if r.values == nil {
			r.values = map[string]bool{}
		}
		r.values[v] = true
		changed = true
	}
	if !changed {
		return
	}
	var all []string
	for v := range r.values {
		all = append(all, forms(v)...)
	}
	// Longest first, so a secret that contains another is masked whole.
	slices.SortFunc(all, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(all))
	for _, f := range all {
		pairs = append(pairs, f, Mask)
	}
	r.replace = strings.NewReplacer(pairs...)
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	rep := r.replace
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// Writer redacts what goes through to w. Each Write is redacted on its
// own: rocefab's printers and its logger write whole lines or entries.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &writer{r: r, w: w} }

type writer struct {
	r *Redactor
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	s := w.r.String(string(p))
	if _, err := io.WriteString(w.w, s); err != nil {
		return 0, err
	}
	return len(p), nil // the caller wrote all of p, whatever it became
}

// Unwrap is the writer behind the filter, so callers can tell a terminal.
func (w *writer) Unwrap() io.Writer { return w.w }

// Sync flushes w when it can, for zap.
func (w *writer) Sync() error {
	if s, ok := w.w.(interface{ Sync() error }); ok {
		return s.Sync()
	}
	return nil
}

// ErrWeak is wrapped by CheckToken's refusals.
var ErrWeak = errors.New("weak token")

// MinTokenLength and MinTokenDistinct are what CheckToken asks of a
// bearer token.
const (
	MinTokenLength   = 16
	MinTokenDistinct = 8
)

// CheckToken refuses a bearer token that is easy to guess or breaks the
// Authorization header: shorter than 16 characters, fewer than 8 distinct
// ones ("aaaaaaaaaaaaaaaa", "abababababababab"), or holding anything but
// printable ASCII (spaces, tabs, newlines and control characters
// included: a token of one space must not pass). The error never shows
// the token. `openssl rand -hex 32` makes a good one.
func CheckToken(tok string) error {
	const hint = "e.g. the output of openssl rand -hex 32"
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c > '~' {
			what := "a space"
			switch {
			case c == '\t' || c == '\n' || c == '\r':
				what = "a tab or line break"
			case c < ' ' || c == 0x7f:
				what = "a control character"
			case c > '~':
				what = "a non-ASCII character"
			}
			return fmt.Errorf("%w: the token holds %s (byte %d of %d); use printable ASCII, %s", ErrWeak, what, i+1, len(tok), hint)
		}
	}
	if strings.Contains(strings.ToUpper(tok), "REPLACE-WITH") {
		// The placeholder of rocefab's own examples is public.
		return fmt.Errorf("%w: the token is the placeholder of an example; put a token of your own, %s", ErrWeak, hint)
	}
	if len(tok) < MinTokenLength {
		return fmt.Errorf("%w: the token is %d characters long; use at least %d, %s", ErrWeak, len(tok), MinTokenLength, hint)
	}
	distinct := map[byte]bool{}
	for i := 0; i < len(tok); i++ {
		distinct[tok[i]] = true
	}
	if len(distinct) < MinTokenDistinct {
		return fmt.Errorf("%w: the token uses only %d different characters; use at least %d, %s", ErrWeak, len(distinct), MinTokenDistinct, hint)
	}
	return nil
}
