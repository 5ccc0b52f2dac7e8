package demo

import (
	"bytes"
	"fmt"
	"net/netip"
	"strconv"
	"text/template"

	fabric "github.com/rocefab/rocefab/examples/demo"
)

// intentParams are what the demo fills into examples/demo/fabric.yaml.tmpl.
type intentParams struct {
	CABundle, KnownHosts string
	Username             string
	PasswordEnv          string
	PasswordFile         string
	// Addr is each simulated platform's host:port on loopback, by
	// platform: nxos, eos, sonic, openconfig.
	Addr map[string]string
	// Exactly one of Netns and Loopback is set.
	Netns    *netnsParams
	Loopback *loopbackParams
}

type netnsParams struct {
	Router, Host1, Host2 string
	Host1Addr, Host2Addr netip.Addr
}

type loopbackParams struct {
	Host1Addr, Host2Addr netip.Addr
}

// renderIntent fills the embedded template. Every string goes through
// quote, so a temporary directory with odd characters stays valid YAML.
func renderIntent(p intentParams) ([]byte, error) {
	tmpl, err := template.New("fabric.yaml.tmpl").
		Funcs(template.FuncMap{"quote": strconv.Quote}).
		Option("missingkey=error").
		Parse(fabric.Template)
	if err != nil {
		return nil, fmt.Errorf("demo intent template: %w", err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("demo intent template: %w", err)
	}
	return b.Bytes(), nil
}
