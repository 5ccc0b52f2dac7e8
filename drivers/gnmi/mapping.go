package gnmi

import (
	"encoding/json"
	"fmt"
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// mapping converts between the platform's path keys and gNMI paths
// (devcfg.GNMIMapping): OpenConfig path strings by default, RFC 6901
// pointers under one origin for document platforms such as SONiC.
type mapping struct{ devcfg.GNMIMapping }

func (m mapping) origin() string { return gnmipath.Origin(m.Origin) }

// root is the Root elements, nil without them.
func (m mapping) root() []*gnmipb.PathElem {
	if m.Root == "" {
		return nil
	}
	p, err := gnmipath.Parse(m.Root)
	if err != nil {
		return nil
	}
	return p.GetElem()
}

// rooted puts the Root elements in front of a path of the platform's
// origin, unless they are there already.
func (m mapping) rooted(p *gnmipb.Path) *gnmipb.Path {
	root := m.root()
	if len(root) == 0 || gnmipath.Origin(p.GetOrigin()) != m.origin() || hasElems(p.GetElem(), root) {
		return p
	}
	p.Elem = append(append([]*gnmipb.PathElem(nil), root...), p.GetElem()...)
	return p
}

// unrooted drops the Root elements of a path of the platform's origin.
func (m mapping) unrooted(p *gnmipb.Path) *gnmipb.Path {
	root := m.root()
	if len(root) == 0 || gnmipath.Origin(p.GetOrigin()) != m.origin() || !hasElems(p.GetElem(), root) {
		return p
	}
	return &gnmipb.Path{Origin: p.GetOrigin(), Elem: p.GetElem()[len(root):]}
}

func hasElems(elems, prefix []*gnmipb.PathElem) bool {
	if len(elems) < len(prefix) {
		return false
	}
	for i, e := range prefix {
		if elems[i].GetName() != e.GetName() || len(elems[i].GetKey()) != 0 {
			return false
		}
	}
	return true
}

// toGNMI reads a platform path key. An explicit "origin:" prefix wins.
func (m mapping) toGNMI(key string) (*gnmipb.Path, error) {
	if o, _ := gnmipath.SplitOrigin(key); o != "" || !m.Document {
		p, err := gnmipath.Parse(key)
		if err == nil && o == "" && m.Origin != "" {
			p.Origin = m.Origin
			if gnmipath.IsOpenConfig(p.Origin) {
				p.Origin = ""
			}
		}
		if err == nil {
			p = m.rooted(p)
		}
		return p, err
	}
	if !strings.HasPrefix(key, "/") {
		return nil, fmt.Errorf("%w %q: a JSON pointer starts with '/'", gnmipath.ErrSyntax, key)
	}
	p := &gnmipb.Path{Origin: m.Origin}
	if key == "/" {
		return m.rooted(p), nil
	}
	for _, seg := range strings.Split(key[1:], "/") {
		if seg == "" {
			return nil, fmt.Errorf("%w %q: empty element", gnmipath.ErrSyntax, key)
		}
		p.Elem = append(p.Elem, &gnmipb.PathElem{Name: strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")})
	}
	return m.rooted(p), nil
}

// canon is the canonical gNMI path string of a platform key.
func (m mapping) canon(key string) (string, error) {
	p, err := m.toGNMI(key)
	if err != nil {
		return "", err
	}
	return gnmipath.Format(p), nil
}

// fromGNMI is the platform key of a gNMI path.
func (m mapping) fromGNMI(p *gnmipb.Path) string {
	if gnmipath.Origin(p.GetOrigin()) != m.origin() {
		return gnmipath.Format(p)
	}
	p = m.unrooted(p)
	if !m.Document {
		return gnmipath.Format(&gnmipb.Path{Elem: p.GetElem()})
	}
	var b strings.Builder
	for _, e := range p.GetElem() {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(e.GetName(), "~", "~0"), "/", "~1"))
	}
	if b.Len() == 0 {
		return "/"
	}
	return b.String()
}

// wholeElems cuts a scope prefix back to its last complete element.
func (m mapping) wholeElems(prefix string) string {
	if o, _ := gnmipath.SplitOrigin(prefix); o == "" && m.Document {
		if i := strings.LastIndexByte(prefix, '/'); i > 0 {
			return prefix[:i]
		}
		return "/"
	}
	return wholeElems(prefix)
}

// parseInput is what Platform.Parse takes: the flat leaf JSON keyed by
// platform keys, or for document platforms the origin's nested document.
func (m mapping) parseInput(leaves devcfg.Paths) ([]byte, error) {
	if !m.Document {
		flat := make(devcfg.Paths, len(leaves))
		for k, v := range leaves {
			p, err := gnmipath.Parse(k)
			if err != nil {
				return nil, err
			}
			flat[m.fromGNMI(p)] = v
		}
		return gnmipath.Encode(flat)
	}
	var ls []gnmipath.Leaf
	for k, v := range leaves {
		p, err := gnmipath.Parse(k)
		if err != nil {
			return nil, err
		}
		if gnmipath.Origin(p.GetOrigin()) == m.origin() {
			if p = m.unrooted(p); len(p.GetElem()) > 0 {
				ls = append(ls, gnmipath.Leaf{Elems: p.GetElem(), Value: v})
			}
		}
	}
	if len(ls) == 0 {
		return []byte("{}"), nil
	}
	doc, err := gnmipath.Build(ls, nil)
	if err != nil {
		return nil, err
	}
	if !json.Valid(doc) {
		return nil, fmt.Errorf("built document is not JSON")
	}
	return doc, nil
}
