package intent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Fabric is the merged content of every intent document, before defaults
// and resolution. Positions stay attached to every field.
type Fabric struct {
	Name  string
	Files []string
	// nameAt is where Name was first written.
	nameAt Loc

	Lossless *LosslessSpec
	Security *SecuritySpec
	Probe    *ProbeSpec
	Groups   []GroupSpec
	Switches []SwitchSpec
	Hosts    []HostSpec
	Links    []LinkSpec
}

// Load reads intent files and directories (every *.yaml and *.yml below a
// directory, in name order) and merges them, within the default Limits. It
// returns the fabric and all loader diagnostics; the fabric is nil only when
// nothing could be read.
func Load(paths ...string) (*Fabric, Diagnostics) {
	return LoadWith(DefaultLimits(), paths...)
}

// LoadWith is Load within lim (zero fields take the defaults). Only regular
// files are read, links must stay inside their intent folder (RF014), and
// a file, the fabric, its devices or its ports over a limit are refused
// (RF017) before they are read or expanded any further.
func LoadWith(lim Limits, paths ...string) (*Fabric, Diagnostics) {
	lim = lim.withDefaults()
	files, diags := selectInput(lim, paths)
	if files == nil {
		return nil, diags
	}
	budget := &portBudget{limit: int64(lim.Ports)}
	var docs []*Document
	var names []string
	for i, p := range parseFiles(files, lim, budget) {
		diags = append(diags, p.diags...)
		docs = append(docs, p.docs...)
		names = append(names, files[i].path)
	}
	fab := merge(names, docs, &diags)
	checkDevices(fab, lim, &diags)
	diags.Sort()
	return fab, diags
}

// Bundle joins the files Load reads of paths, within lim, into one
// multi-document YAML stream, for a host that reads the intent on
// standard input. It lists and reads them as Load does (hidden folders
// skipped, every file once, regular files only, links kept inside their
// folder, the same size limits); it returns the files in stream order,
// and an error wrapping ErrInput for anything Load would refuse to read.
func Bundle(lim Limits, paths ...string) ([]byte, []string, error) {
	lim = lim.withDefaults()
	files, diags := selectInput(lim, paths)
	if err := inputError(diags); err != nil {
		return nil, nil, err
	}
	var out []byte
	names := make([]string, 0, len(files))
	for _, f := range files {
		data, err := readInput(f, lim.FileBytes)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, "---\n"...)
		out = append(out, data...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			out = append(out, '\n')
		}
		names = append(names, f.path)
	}
	return out, names, nil
}

// inputError is the listing's errors as one error wrapping ErrInput (and
// ErrLimit for a limit), nil when it has none.
func inputError(diags Diagnostics) error {
	var errs []error
	for _, d := range diags {
		if d.Severity != SeverityError {
			continue
		}
		base := ErrInput
		if d.Code == CodeLimit {
			base = ErrLimit
		}
		errs = append(errs, fmt.Errorf("%w: %s", base, d.Message))
	}
	return errors.Join(errs...)
}

// selectInput lists the files Load reads of paths: every file once, the
// refused ones as diagnostics, and none at all when there is nothing to
// read or the files together are over the fabric limit. Load and Bundle
// share it, so what a host is sent is what the loader would read.
func selectInput(lim Limits, paths []string) ([]inputFile, Diagnostics) {
	var diags Diagnostics
	var files []inputFile
	read := map[string]bool{}
	for _, p := range paths {
		found, bad, err := listInput(p)
		if err != nil {
			diags.Errorf(Loc{File: p}, CodeNoInput, "%v", inputMessage(err))
		}
		for _, err := range bad {
			diags.Errorf(Loc{File: p}, CodeNoInput, "%v", inputMessage(err))
		}
		for _, f := range found {
			// A file named twice (a directory and a file in it) is read
			// once, not reported as defining everything twice.
			key := filepath.Clean(f.path)
			if abs, err := filepath.Abs(f.path); err == nil {
				key = abs
			}
			if !read[key] {
				read[key] = true
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		if !diags.HasErrors() {
			diags.Errorf(Loc{File: strings.Join(paths, " ")}, CodeNoInput, "no intent files (*.yaml, *.yml) found")
		}
		return nil, diags
	}
	// The fabric's size is known from the listing: nothing is read when it
	// is over the limit already.
	var total int64
	for i, f := range files {
		total += f.size
		if total > lim.FabricBytes {
			diags.Errorf(Loc{File: f.path, Line: 1, Col: 1}, CodeLimit,
				"the intent is more than %s with this file (%d of %d files, %s so far); split the fabric or raise --intent-max-size",
				sizeText(lim.FabricBytes), i+1, len(files), sizeText(total))
			return nil, diags
		}
	}
	return files, diags
}

// inputMessage drops ErrInput's own words from a message: the diagnostic's
// code says the input was refused.
func inputMessage(err error) string {
	return strings.ReplaceAll(strings.ReplaceAll(err.Error(), ErrLimit.Error()+": ", ""), ErrInput.Error()+": ", "")
}

// LoadBytes loads intent from memory, as if read from the named file,
// within the default limits.
func LoadBytes(name string, data []byte) (*Fabric, Diagnostics) {
	return LoadBytesWith(DefaultLimits(), name, data)
}

// LoadBytesWith is LoadBytes within lim.
func LoadBytesWith(lim Limits, name string, data []byte) (*Fabric, Diagnostics) {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.FileBytes || int64(len(data)) > lim.FabricBytes {
		var diags Diagnostics
		diags.Errorf(Loc{File: name, Line: 1, Col: 1}, CodeLimit, "%s", inputMessage(tooBig(name, int64(len(data)), min(lim.FileBytes, lim.FabricBytes))))
		return &Fabric{Files: []string{name}}, diags
	}
	docs, diags := parse(name, data, typeCache{}, &portBudget{limit: int64(lim.Ports)})
	fab := merge([]string{name}, docs, &diags)
	checkDevices(fab, lim, &diags)
	diags.Sort()
	return fab, diags
}

// checkDevices refuses a fabric with more switches and hosts than the
// limit, at the first device over it.
func checkDevices(fab *Fabric, lim Limits, diags *Diagnostics) {
	n := len(fab.Switches) + len(fab.Hosts)
	if n <= lim.Devices {
		return
	}
	at := Loc{}
	if i := lim.Devices; i < len(fab.Switches) {
		at = fab.Switches[i].At("name")
	} else {
		at = fab.Hosts[i-len(fab.Switches)].At("name")
	}
	diags.Errorf(at, CodeLimit, "the fabric has %d switches and hosts, more than the limit of %d (--intent-max-devices)", n, lim.Devices)
}

type parsedFile struct {
	docs  []*Document
	diags Diagnostics
}

// parseFiles reads and decodes files on every CPU: a large fabric is split
// into many files, and YAML parsing is most of the time it takes to load.
// Results keep the files' order, so merging stays deterministic.
func parseFiles(files []inputFile, lim Limits, ports *portBudget) []parsedFile {
	out := make([]parsedFile, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			types := typeCache{} // one per goroutine: a map is not safe to share
			for i := range next {
				f := files[i]
				data, err := readInput(f, lim.FileBytes)
				if err != nil {
					code := CodeNoInput
					if errors.Is(err, ErrLimit) {
						code = CodeLimit
					}
					out[i].diags.Errorf(Loc{File: f.path, Line: 1, Col: 1}, code, "%s", inputMessage(err))
					continue
				}
				out[i].docs, out[i].diags = parse(f.path, data, types, ports)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// Parse decodes every YAML document in one file.
func Parse(file string, data []byte) ([]*Document, Diagnostics) {
	return parse(file, data, typeCache{}, &portBudget{limit: DefaultPorts})
}

func parse(file string, data []byte, types typeCache, ports *portBudget) ([]*Document, Diagnostics) {
	var diags Diagnostics
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*Document
	for {
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			diags = append(diags, syntaxDiagnostic(file, data, err))
			break
		}
		if len(root.Content) == 0 {
			continue
		}
		doc := &Document{}
		d := newDecoder(file, &diags, &root, types)
		d.ports = ports
		d.decode(root.Content[0], reflect.ValueOf(doc).Elem(), "")
		if doc.APIVersion != "" && doc.APIVersion != APIVersion {
			diags.Errorf(doc.At("apiVersion"), CodeAPIVersion, "apiVersion %q is not supported (want %s)", doc.APIVersion, APIVersion)
		}
		if doc.Kind != "" && doc.Kind != Kind {
			diags.Errorf(doc.At("kind"), CodeAPIVersion, "kind %q is not supported (want %s)", doc.Kind, Kind)
		}
		docs = append(docs, doc)
	}
	return docs, diags
}

// syntaxDiagnostic keeps the line yaml.v3 reports ("yaml: line 7: ..."),
// corrected to 1-based, or finds the anchor an alias error names.
func syntaxDiagnostic(file string, data []byte, err error) Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line, col := 0, 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ":"); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, strings.TrimSpace(tail)
			}
		}
	}
	switch {
	case yamlParserProblem(msg):
		// yaml.v3 prints parser errors (not scanner errors) with the 0-based
		// line of the construct that failed (go-yaml #205).
		line++
	case line == 0:
		// yaml.v3 omits line 0, and alias errors carry no line at all.
		line, col = 1, 1
		if name, ok := aliasProblem(msg); ok {
			line, col = position(data, name)
		}
	}
	return Diagnostic{Loc: Loc{File: file, Line: line, Col: col}, Code: CodeSyntax, Severity: SeverityError, Message: msg}
}

// aliasProblem returns the "*name" or "&name" an alias error is about.
func aliasProblem(msg string) (string, bool) {
	for _, f := range []struct{ prefix, sigil string }{
		{"unknown anchor '", "*"},
		{"anchor '", "&"}, // anchor 'x' value contains itself
	} {
		if rest, ok := strings.CutPrefix(msg, f.prefix); ok {
			if name, _, ok := strings.Cut(rest, "'"); ok {
				return f.sigil + name, true
			}
		}
	}
	return "", false
}

// position is the 1-based line and column of the first s in data, or 1:1.
func position(data []byte, s string) (line, col int) {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1, 1
	}
	before := data[:i]
	line = bytes.Count(before, []byte("\n")) + 1
	col = i - bytes.LastIndexByte(before, '\n')
	return line, col
}

// yamlParserProblem reports whether msg is one of yaml.v3's parser (not
// scanner) problems, whose line numbers are 0-based.
func yamlParserProblem(msg string) bool {
	for _, p := range []string{
		"did not find expected",
		"found duplicate %TAG directive",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found undefined tag handle",
	} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

func merge(files []string, docs []*Document, diags *Diagnostics) *Fabric {
	fab := &Fabric{Files: files}
	if len(docs) == 0 && !diags.HasErrors() && len(files) > 0 {
		// An empty file must not validate clean: CI would pass a wrong path.
		diags.Errorf(Loc{File: files[0], Line: 1, Col: 1}, CodeNoInput, "no intent documents found (the file is empty or holds only comments)")
	}
	var nameAt, lossAt, secAt, probeAt *Loc
	setOnce := func(prev **Loc, at Loc, what string) bool {
		if *prev != nil {
			diags.Errorf(at, CodeDuplicateField, "%s is already set at %s; set it in one file only", what, **prev)
			return false
		}
		*prev = &at
		return true
	}
	var nGroups, nSwitches, nHosts, nLinks int
	for _, doc := range docs {
		nGroups += len(doc.Spec.Groups)
		nSwitches += len(doc.Spec.Switches)
		nHosts += len(doc.Spec.Hosts)
		nLinks += len(doc.Spec.Links)
	}
	fab.Groups = withCap[GroupSpec](nGroups)
	fab.Switches = withCap[SwitchSpec](nSwitches)
	fab.Hosts = withCap[HostSpec](nHosts)
	fab.Links = withCap[LinkSpec](nLinks)
	for _, doc := range docs {
		if doc.Metadata.Name != "" {
			if nameAt == nil || fab.Name == doc.Metadata.Name {
				if nameAt == nil {
					fab.nameAt = doc.Metadata.At("name")
				}
				fab.Name = doc.Metadata.Name
				nameAt = &Loc{}
			} else {
				diags.Errorf(doc.Metadata.At("name"), CodeDuplicateField, "fabric name %q differs from %q in another file", doc.Metadata.Name, fab.Name)
			}
		}
		s := doc.Spec
		if s.Lossless != nil && setOnce(&lossAt, s.At("lossless"), "spec.lossless") {
			fab.Lossless = s.Lossless
		}
		if s.Security != nil && setOnce(&secAt, s.At("security"), "spec.security") {
			fab.Security = s.Security
		}
		if s.Probe != nil && setOnce(&probeAt, s.At("probe"), "spec.probe") {
			fab.Probe = s.Probe
		}
		fab.Groups = append(fab.Groups, s.Groups...)
		fab.Switches = append(fab.Switches, s.Switches...)
		fab.Hosts = append(fab.Hosts, s.Hosts...)
		fab.Links = append(fab.Links, s.Links...)
	}
	checkNames(fab, diags)
	checkUniqueNames(fab, diags)
	checkSecrets(fab, diags)
	return fab
}

// checkSecrets rejects passwords and tokens written into the intent: the
// intent lives in git and is reviewed in pull requests.
func checkSecrets(fab *Fabric, diags *Diagnostics) {
	check := func(c *Credentials) {
		if c == nil {
			return
		}
		for _, f := range []struct{ name, val string }{{"password", c.Password}, {"token", c.Token}} {
			if f.val != "" {
				diags.Errorf(c.At(f.name), CodeInlineSecret, "inline secrets are not allowed in the intent; use passwordEnv (an environment variable) or passwordFile")
			}
		}
		if c.PasswordEnv != "" && c.PasswordFile != "" {
			diags.Errorf(c.At("passwordFile"), CodeInlineSecret, "set passwordEnv or passwordFile, not both")
		}
	}
	for i := range fab.Groups {
		check(fab.Groups[i].Credentials)
	}
	for i := range fab.Switches {
		check(fab.Switches[i].Credentials)
	}
	for i := range fab.Hosts {
		check(fab.Hosts[i].Credentials)
	}
}

// checkUniqueNames rejects a device or group defined twice, in one file or
// across files.
func checkUniqueNames(fab *Fabric, diags *Diagnostics) {
	seen := make(map[string]Loc, len(fab.Switches)+len(fab.Hosts))
	check := func(kind, name string, at Loc) {
		if name == "" {
			return
		}
		if prev, dup := seen[name]; dup {
			diags.Errorf(at, CodeDuplicateDevice, "%s %q is already defined at %s", kind, name, prev)
			return
		}
		seen[name] = at
	}
	for _, sw := range fab.Switches {
		check("device", sw.Name, sw.At("name"))
	}
	for _, h := range fab.Hosts {
		check("device", h.Name, h.At("name"))
	}
	groups := map[string]Loc{}
	for _, g := range fab.Groups {
		if prev, dup := groups[g.Name]; dup && g.Name != "" {
			diags.Errorf(g.At("name"), CodeDuplicateDevice, "group %q is already defined at %s", g.Name, prev)
			continue
		}
		groups[g.Name] = g.At("name")
	}
}
