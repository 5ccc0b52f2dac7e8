package intent

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rocefab/rocefab/finding"
)

// Severity of a diagnostic.
type Severity int

const (
	SeverityError Severity = iota
	SeverityWarning
)

func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// MarshalText writes "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Loc is where a value sits in the intent: file, line, column and field path.
type Loc struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Col   int    `json:"column"`
	Field string `json:"field"`
}

func (l Loc) String() string {
	if l.Line == 0 {
		return l.File
	}
	return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Col)
}

// Diagnostic is one problem found in the intent, by the loader or by lint.
type Diagnostic struct {
	Loc
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String is the one format for every problem:
// file:line:col: CODE severity field.path: message
func (d Diagnostic) String() string {
	field := d.Field
	if field == "" {
		field = "(document)"
	}
	return fmt.Sprintf("%s: %s %s %s: %s", d.Loc, d.Code, d.Severity, field, d.Message)
}

// MarshalJSON flattens the location into the diagnostic object.
func (d Diagnostic) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		File     string `json:"file"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
		Code     string `json:"code"`
		Severity string `json:"severity"`
		Field    string `json:"field"`
		Message  string `json:"message"`
	}{d.File, d.Line, d.Col, d.Code, d.Severity.String(), d.Field, d.Message})
}

// Diagnostics collects problems so that all of them are reported at once.
type Diagnostics []Diagnostic

// Errorf adds an error at loc.
func (ds *Diagnostics) Errorf(loc Loc, code, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Loc: loc, Code: code, Severity: SeverityError, Message: fmt.Sprintf(format, args...)})
}

// Warnf adds a warning at loc.
func (ds *Diagnostics) Warnf(loc Loc, code, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Loc: loc, Code: code, Severity: SeverityWarning, Message: fmt.Sprintf(format, args...)})
}

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Count returns the number of errors and warnings.
func (ds Diagnostics) Count() (errs, warns int) {
	for _, d := range ds {
		if d.Severity == SeverityError {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns
}

// Sort orders diagnostics by file, line, column and code.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Code < b.Code
	})
}

// Err returns nil without errors, or one error listing every problem.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	return &InvalidError{Diagnostics: ds, text: strings.Join(lines, "\n")}
}

// InvalidError is returned when the intent has errors.
type InvalidError struct {
	Diagnostics Diagnostics
	text        string
}

func (e *InvalidError) Error() string { return e.text }

// ErrInvalid matches any InvalidError with errors.Is.
var ErrInvalid = errors.New("invalid intent")

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// Finding maps the diagnostic's severity onto the shared scale.
func (s Severity) Finding() finding.Severity {
	if s == SeverityWarning {
		return finding.Warning
	}
	return finding.Error
}

// Where is file:line:col and the field path, as findings point at it.
func (l Loc) Where() string {
	w := l.String()
	if l.Field != "" {
		w += " " + l.Field
	}
	return w
}

// AsFinding is the diagnostic in the shared finding shape (source lint).
func (d Diagnostic) AsFinding() finding.Finding {
	return finding.Finding{Source: finding.SourceLint, Code: finding.Code(d.Code), Severity: d.Severity.Finding(),
		Message: d.Message, Where: d.Loc.Where()}
}

// Findings are the diagnostics in the shared finding shape.
func (ds Diagnostics) Findings() []finding.Finding { return finding.All(ds) }
