package junos

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// Parse reads `show configuration | display set`: one `set` statement per
// line, split into path and value by splitStatement. Bracketed lists
// ("fill-level [ 1 10 ]") become one entry per element. Two statements
// that split to the same path with different values show that the last
// word is a member of a set (a listing prints a single-valued leaf once),
// so both are kept as presence entries. A `deactivate X` line is kept as
// the path "deactivate X" (with that text as its value), and the statements below X
// stay in the model: the device holds them but does not run them, and
// the renderer's singletons make that a conflict rather than a change
// planned forever. Other lines (comments, blank lines) are ignored.
func Parse(raw []byte) (*devcfg.Config, error) {
	out := devcfg.Paths{}
	sets := map[string]bool{}
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
			node := strings.Join(words, " ")
			out[Inactive+node] = devcfg.String(Inactive + node)
			continue
		}
		for _, stmt := range expandLists(words) {
			path, v := splitStatement(stmt)
			if v != devcfg.Empty {
				if prev, ok := out[path]; ok && prev != v && !sets[path] {
					delete(out, path)
					out[statement(path, prev)] = devcfg.Empty
					sets[path] = true
				}
				if sets[path] {
					path, v = statement(path, v), devcfg.Empty
				}
			}
			out[path] = v
		}
	}
	return &devcfg.Config{Platform: "junos", Shape: devcfg.ShapePaths, Paths: out}, nil
}

// Inactive prefixes the model path of a `deactivate` line.
const Inactive = "deactivate "

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
