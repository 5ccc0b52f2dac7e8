package gnmipath

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
)

// Leaf is one value at a path relative to some base.
type Leaf struct {
	Elems []*gnmipb.PathElem
	Value devcfg.Value
}

// Build is the inverse of Flatten: it nests leaves into one JSON value.
// Keyed elements become list entries (arrays of objects) whose key values
// are written as members: digits as JSON numbers, anything else as
// strings. qualify, when not nil, renames first-level members (to add an
// RFC 7951 module prefix). One leaf with no elements is returned as is.
func Build(leaves []Leaf, qualify func(member string) string) ([]byte, error) {
	if len(leaves) == 1 && len(leaves[0].Elems) == 0 {
		return []byte(leaves[0].Value), nil
	}
	root := &node{}
	for _, l := range leaves {
		if len(l.Elems) == 0 {
			return nil, fmt.Errorf("a leaf at the base path cannot sit beside %d others", len(leaves)-1)
		}
		if err := root.insert(l.Elems, l.Value); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	root.encode(&b, qualify)
	return b.Bytes(), nil
}

type node struct {
	leaf    devcfg.Value // set for leaves
	members map[string]*node
	entries []*entry // set for lists
	isList  bool
}

type entry struct {
	keys map[string]string
	id   string
	node *node
}

func (n *node) insert(elems []*gnmipb.PathElem, v devcfg.Value) error {
	e := elems[0]
	if n.leaf != "" {
		return fmt.Errorf("%q is both a leaf and a container", e.GetName())
	}
	if n.members == nil {
		n.members = map[string]*node{}
	}
	child := n.members[e.GetName()]
	if child == nil {
		child = &node{isList: len(e.GetKey()) > 0}
		n.members[e.GetName()] = child
	}
	if child.isList != (len(e.GetKey()) > 0) {
		return fmt.Errorf("%q is used both as a list and as a container", e.GetName())
	}
	if child.isList {
		id := keyID(e.GetKey())
		var found *entry
		for _, en := range child.entries {
			if en.id == id {
				found = en
				break
			}
		}
		if found == nil {
			found = &entry{keys: e.GetKey(), id: id, node: &node{}}
			child.entries = append(child.entries, found)
		}
		if len(elems) == 1 {
			if v == devcfg.Empty {
				return nil
			}
			return fmt.Errorf("list entry %q cannot hold a value", e.GetName()+id)
		}
		return found.node.insert(elems[1:], v)
	}
	if len(elems) == 1 {
		if child.members != nil || child.leaf != "" {
			return fmt.Errorf("%q set twice or both leaf and container", e.GetName())
		}
		child.leaf = v
		return nil
	}
	return child.insert(elems[1:], v)
}

func keyID(keys map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		fmt.Fprintf(&b, "[%s=%s]", k, keys[k])
	}
	return b.String()
}

func (n *node) encode(b *bytes.Buffer, qualify func(string) string) {
	switch {
	case n.leaf != "":
		b.WriteString(string(n.leaf))
	case n.isList:
		sort.Slice(n.entries, func(i, j int) bool { return n.entries[i].id < n.entries[j].id })
		b.WriteByte('[')
		for i, en := range n.entries {
			if i > 0 {
				b.WriteByte(',')
			}
			en.node.encodeObject(b, nil, en.keys)
		}
		b.WriteByte(']')
	default:
		n.encodeObject(b, qualify, nil)
	}
}

func (n *node) encodeObject(b *bytes.Buffer, qualify func(string) string, keys map[string]string) {
	type member struct {
		name string
		put  func()
	}
	var ms []member
	for k, v := range keys {
		if _, shadowed := n.members[k]; shadowed {
			continue
		}
		ms = append(ms, member{k, func() { writeKeyValue(b, v) }})
	}
	for name, child := range n.members {
		ms = append(ms, member{name, func() { child.encode(b, nil) }})
	}
	if qualify != nil {
		for i := range ms {
			ms[i].name = qualify(ms[i].name)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].name < ms[j].name })
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		b.Write(name)
		b.WriteByte(':')
		m.put()
	}
	b.WriteByte('}')
}

func writeKeyValue(b *bytes.Buffer, v string) {
	if isDigits(v) {
		b.WriteString(v)
		return
	}
	s, _ := json.Marshal(v)
	b.Write(s)
}

func isDigits(s string) bool {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
