package renderers

import "regexp"

// Source cites the vendor documentation or vendor-written configuration
// behind one statement form a renderer emits. Each platform keeps its
// table beside its renderer (sources.go), and a test renders every
// variant and fails on a statement no form cites.
type Source struct {
	// Form matches the statement: a CLI line without its parents, a Junos
	// `set` statement or an NVUE `nv set` command without the verb.
	Form *regexp.Regexp
	Cite string
}

// Cite returns the citation of the first form that matches stmt, or "".
func Cite(sources []Source, stmt string) string {
	for _, s := range sources {
		if s.Form.MatchString(stmt) {
			return s.Cite
		}
	}
	return ""
}

// Sourced builds a table from form/citation pairs; forms are anchored.
func Sourced(pairs ...string) []Source {
	out := make([]Source, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Source{Form: regexp.MustCompile("^(?:" + pairs[i] + ")$"), Cite: pairs[i+1]})
	}
	return out
}
