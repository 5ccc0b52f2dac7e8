package gnmi

import (
	"encoding/json"
	"fmt"
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// originCLI is the origin of vendor CLI text.
const originCLI = "cli"

// cliIndent indents a "no" line under its modes. The device enters modes
// by their commands; the indentation keeps the text readable and nests as
// the running config prints it (EOS: three spaces).
const cliIndent = "   "

// cliText collects the origin cli part of a patch as the one block of CLI
// text a target takes: the gNMI mixed-schema and union_replace
// specifications (openconfig/reference rpc/gnmi/gnmi-union_replace.md,
// "Native CLI Configuration") encode CLI configuration as ASCII text under
// an origin that "does not support addressing a path" (the empty path)
// and has no delete operation; the featureprofiles tests send it to EOS as
// Update{Path: {Origin: "cli"}, Val: ascii_val} (openconfig/featureprofiles,
// feature tests' cliSetRequest), and an Arista engineer's EOS example sets
// CLI with gnmic --encoding ASCII set --update-path "cli:" (gist
// sulrich/81a2e2aec1d70d7a62f21a59299e640b). So every cli update's
// value (the CLI text of one line, modes first) is appended in patch order,
// and a delete becomes the "no" form of its line under its modes.
type cliText struct {
	deletes, updates []string
}

// del adds the "no" form of a cli key: "interface Ethernet1 >
// priority-flow-control on" → "interface Ethernet1\n   no priority-flow-control on".
func (c *cliText) del(p *gnmipb.Path) error {
	var parts []string
	for _, e := range p.GetElem() {
		if len(e.GetKey()) > 0 {
			return fmt.Errorf("%w: origin cli element %s has keys, which CLI text cannot carry", drivers.ErrUnsupported, e.GetName())
		}
		for _, s := range strings.Split(e.GetName(), " > ") {
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
	}
	if len(parts) == 0 {
		return fmt.Errorf("%w: a delete of the whole origin cli", drivers.ErrUnsupported)
	}
	var b strings.Builder
	for depth, s := range parts {
		if depth > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(cliIndent, depth))
		if depth == len(parts)-1 {
			b.WriteString("no ")
		}
		b.WriteString(s)
	}
	c.deletes = append(c.deletes, b.String())
	return nil
}

// add appends an update's CLI text; the value must be a JSON string.
func (c *cliText) add(v devcfg.Value) error {
	var text string
	if err := json.Unmarshal([]byte(v), &text); err != nil {
		return fmt.Errorf("%w: origin cli takes CLI text, not %s", drivers.ErrUnsupported, v)
	}
	if strings.TrimSpace(text) != "" {
		c.updates = append(c.updates, text)
	}
	return nil
}

// update is the one Update carrying the text, nil when there is none.
// The "no" lines come first, as deletes precede updates in a SetRequest.
func (c *cliText) update() *gnmipb.Update {
	all := append(append([]string(nil), c.deletes...), c.updates...)
	if len(all) == 0 {
		return nil
	}
	return &gnmipb.Update{
		Path: &gnmipb.Path{Origin: originCLI},
		Val:  &gnmipb.TypedValue{Value: &gnmipb.TypedValue_AsciiVal{AsciiVal: strings.Join(all, "\n") + "\n"}},
	}
}

// cliMatch is how much of an origin cli key a device message names: the
// length of its command and modes when the message contains them all, else
// 0. Its command is the key's last " > " part.
func cliMatch(msg, canon string) int {
	p, err := gnmipath.Parse(canon)
	if err != nil || p.GetOrigin() != originCLI || len(p.GetElem()) != 1 {
		return 0
	}
	n := 0
	for _, part := range strings.Split(p.GetElem()[0].GetName(), " > ") {
		if !strings.Contains(msg, part) {
			return 0
		}
		n += len(part)
	}
	return n
}
