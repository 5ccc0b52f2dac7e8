package intent_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

var (
	srcType      = reflect.TypeOf(intent.Src{})
	sectionsType = reflect.TypeOf(intent.Sections{})
)

// schemaPaths walks the schema's yaml tags from the document root. With
// once, a struct type is expanded at its first path only (later paths list
// the field, not its children again): that is what the reference must
// document. Without it, every valid path is listed.
func schemaPaths(t reflect.Type, prefix string, once bool, seen map[reflect.Type]bool, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == srcType || f.Type == sectionsType || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			if once && seen[f.Type] {
				continue
			}
			seen[f.Type] = true
			schemaPaths(f.Type, prefix, once, seen, out)
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		*out = append(*out, path)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			if ft.Kind() == reflect.Slice {
				path += "[]"
			}
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct {
			continue
		}
		if _, isSchema := ft.FieldByName("Src"); !isSchema {
			continue // a value type such as Bytes or Address
		}
		if once && seen[ft] {
			continue
		}
		seen[ft] = true
		schemaPaths(ft, path, once, seen, out)
	}
}

func readDoc(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../docs/intent.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDocsCoverSchema fails when a schema field is missing from
// docs/intent.md, or the doc names a field the schema does not have.
func TestDocsCoverSchema(t *testing.T) {
	doc := readDoc(t)
	var required, valid []string
	schemaPaths(reflect.TypeOf(intent.Document{}), "", true, map[reflect.Type]bool{}, &required)
	schemaPaths(reflect.TypeOf(intent.Document{}), "", false, map[reflect.Type]bool{}, &valid)
	// A platform's own section is documented under groups, like the other
	// device attributes, and valid under switches too.
	reg := all.Renderers()
	for _, name := range reg.Names() {
		e, _ := reg.Lookup(name)
		if e.Attrs.Settings == nil {
			continue
		}
		typ := reflect.TypeOf(e.Attrs.Settings.New()).Elem()
		for _, list := range []string{"spec.groups[]", "spec.switches[]"} {
			path := list + "." + name
			valid = append(valid, path)
			schemaPaths(typ, path, false, map[reflect.Type]bool{}, &valid)
		}
		required = append(required, "spec.groups[]."+name)
		schemaPaths(typ, "spec.groups[]."+name, true, map[reflect.Type]bool{}, &required)
	}
	if len(required) < 80 {
		t.Fatalf("the schema walk found only %d fields", len(required))
	}
	for _, p := range required {
		if !strings.Contains(doc, "| `"+p+"` |") {
			t.Errorf("docs/intent.md has no table row for `%s`", p)
		}
	}
	known := map[string]bool{}
	for _, p := range valid {
		known[p] = true
	}
	for _, m := range regexp.MustCompile("`((?:spec|metadata)\\.[A-Za-z0-9_.\\[\\]]+)`").FindAllStringSubmatch(doc, -1) {
		if !known[m[1]] {
			t.Errorf("docs/intent.md names `%s`, which the schema does not have", m[1])
		}
	}
}

// TestDocsCoverCodes fails when a loader code (intent/codes.go) or a lint
// rule is missing from the code tables, or listed with the wrong severity.
func TestDocsCoverCodes(t *testing.T) {
	doc := readDoc(t)
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]intent.Severity{}
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, _ := strconv.Unquote(lit.Value); regexp.MustCompile(`^RF\d{3}$`).MatchString(s) {
				want[s] = intent.SeverityError
			}
		}
		return true
	})
	if len(want) < 15 {
		t.Fatalf("found %d loader codes in codes.go", len(want))
	}
	for _, r := range lint.Rules {
		want[r.Code] = r.Severity
	}
	for code, sev := range want {
		row := fmt.Sprintf("| `%s` | %s |", code, sev)
		if !strings.Contains(doc, row) {
			t.Errorf("docs/intent.md has no row starting %q", row)
		}
	}
	for _, m := range regexp.MustCompile("\\| `(RF\\d{3})` \\|").FindAllStringSubmatch(doc, -1) {
		if _, ok := want[m[1]]; !ok {
			t.Errorf("docs/intent.md lists %s, which no code defines", m[1])
		}
	}
}

// TestDocsDefaults keeps the documented defaults in step with the code.
func TestDocsDefaults(t *testing.T) {
	doc := readDoc(t)
	for field, def := range map[string]string{
		"spec.lossless.profile":             "`" + intent.DefaultProfile + "`",
		"spec.lossless.noDropPriority":      fmt.Sprintf("`%d`", intent.DefaultNoDropPriority),
		"spec.lossless.roceDscp":            fmt.Sprintf("`[%d]`", intent.DefaultRoCEDSCP),
		"spec.lossless.trust":               "`" + intent.DefaultTrust + "`",
		"spec.lossless.cnp.dscp":            fmt.Sprintf("`%d`", intent.DefaultCNPDSCP),
		"spec.lossless.cnp.priority":        fmt.Sprintf("`%d`", intent.DefaultCNPPriority),
		"spec.lossless.ecn.minThreshold":    fmt.Sprintf("(%d bytes)", intent.DefaultECNMin),
		"spec.lossless.ecn.maxThreshold":    fmt.Sprintf("(%d bytes)", intent.DefaultECNMax),
		"spec.lossless.ecn.markProbability": fmt.Sprintf("`%d`", intent.DefaultMarkProbability),
		"spec.lossless.mtu.host":            fmt.Sprintf("`%d`", intent.DefaultHostMTU),
		"spec.lossless.roceMode":            "`" + intent.DefaultRoCEMode + "`",
		"spec.probe.pairs":                  "`" + intent.DefaultProbePairs + "`",
		"spec.probe.crossLeafSample":        fmt.Sprintf("`%d`", intent.DefaultCrossLeafSample),
		"spec.probe.count":                  fmt.Sprintf("`%d`", intent.DefaultProbeCount),
		"spec.probe.ratePps":                fmt.Sprintf("`%d`", intent.DefaultProbeRatePPS),
		"spec.probe.pkey":                   fmt.Sprintf("`0x%X`", intent.DefaultProbePKey),
		"spec.probe.qpMin":                  fmt.Sprintf("`0x%X`", intent.DefaultProbeQPMin),
		"spec.probe.qpMax":                  fmt.Sprintf("`0x%X`", intent.DefaultProbeQPMax),
		"spec.probe.duration":               "`" + intent.DefaultProbeDuration.String() + "`",
	} {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(field) + "` \\|[^|]*\\|([^|]*)\\|").FindStringSubmatch(doc)
		if row == nil || !strings.Contains(row[1], def) {
			t.Errorf("docs/intent.md: %s should document the default %s, row: %v", field, def, row)
		}
	}
}
