package junos

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/renderers/devcfg"
)

// Parse reads `show configuration | display set`: one `set` statement per
// line, split into path and value by splitStatement. Bracketed lists
// ("fill-level [ 1 10 ]") become one entry per element, and a `deactivate`
// line removes the statements below it (inactive configuration does not
// run). Other lines (comments, blank lines) are ignored.
func Parse(raw []byte) (*devcfg.Config, error) {
	out := devcfg.Paths{}
	var inactive [][]string
	for i, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		verb, rest, _ := strings.Cut(line, " ")
		if verb != "set" && verb != "deactivate" {
			continue
		}
		words, err := splitWords(rest)
		if err != nil {
			return nil, fmt.Errorf("junos: line %d: %w", i+1, err)
		}
		if len(words) == 0 {
			return nil, fmt.Errorf("junos: line %d: %q has no statement", i+1, line)
		}
		if verb == "deactivate" {
			inactive = append(inactive, words)
			continue
		}
		for _, stmt := range expandLists(words) {
			path, v := splitStatement(stmt)
			out[path] = v
		}
	}
	for _, words := range inactive {
		pre := strings.Join(words, " ")
		for path, v := range out {
			if full := statement(path, v); full == pre || strings.HasPrefix(full, pre+" ") {
				delete(out, path)
			}
		}
	}
	return &devcfg.Config{Platform: "junos", Shape: devcfg.ShapePaths, Paths: out}, nil
}

// splitWords splits on spaces, keeping a double-quoted string as one word
// (with its quotes), as Junos prints descriptions.
func splitWords(s string) ([]string, error) {
	var words []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return words, nil
		}
		if s[0] == '"' {
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, fmt.Errorf("unterminated quoted string %s", s)
			}
			words = append(words, s[:end+1])
			s = s[end+1:]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		words = append(words, s[:end])
		s = s[end:]
	}
}

// expandLists turns "a b [ x y ]" into "a b x" and "a b y".
func expandLists(words []string) [][]string {
	open := -1
	for i, w := range words {
		if w == "[" {
			open = i
			break
		}
	}
	if open < 0 {
		return [][]string{words}
	}
	closeAt := -1
	for i := open + 1; i < len(words); i++ {
		if words[i] == "]" {
			closeAt = i
			break
		}
	}
	if closeAt < 0 || closeAt == open+1 {
		return [][]string{words}
	}
	var out [][]string
	for _, item := range words[open+1 : closeAt] {
		stmt := append(append(append([]string(nil), words[:open]...), item), words[closeAt+1:]...)
		out = append(out, expandLists(stmt)...)
	}
	return out
}

// Normalise drops `set version ...`, which Junos prints on every device.
func Normalise(cfg *devcfg.Config) *devcfg.Config {
	out := cfg.Clone()
	delete(out.Paths, "version")
	return out
}
