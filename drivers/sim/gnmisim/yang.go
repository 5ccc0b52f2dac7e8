package gnmisim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/openconfig/goyang/pkg/yang"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
)

// validatedModules are read from the YANG folder; their top-level
// containers are the roots Set updates are checked against.
var validatedModules = []string{"openconfig-interfaces", "openconfig-if-ethernet", "openconfig-vlan", "openconfig-qos"}

// ErrNoYANG is returned when validation is asked for and the folder is absent.
var ErrNoYANG = errors.New("YANG folder not found")

// schema resolves OpenConfig paths to YANG entries.
type schema struct {
	roots map[string]*yang.Entry // top-level container name → entry
}

func loadSchema(dir string) (*schema, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNoYANG, dir)
	}
	ms := yang.NewModules()
	ms.AddPath(dir)
	for _, m := range validatedModules {
		if err := ms.Read(m); err != nil {
			return nil, fmt.Errorf("read %s: %w", m, err)
		}
	}
	if errs := ms.Process(); len(errs) > 0 {
		return nil, fmt.Errorf("process YANG: %w", errors.Join(errs...))
	}
	s := &schema{roots: map[string]*yang.Entry{}}
	for _, m := range validatedModules {
		e, errs := ms.GetModule(m)
		if len(errs) > 0 || e == nil {
			return nil, fmt.Errorf("module %s: %w", m, errors.Join(errs...))
		}
		for name, child := range e.Dir {
			if _, dup := s.roots[name]; !dup {
				s.roots[name] = child
			}
		}
	}
	if len(s.roots) == 0 {
		return nil, fmt.Errorf("no top-level containers in %s", dir)
	}
	return s, nil
}

// validate checks that an OpenConfig leaf path exists in the schema and
// that its value has the RFC 7951 JSON form of the leaf's type.
func (s *schema) validate(path string, v devcfg.Value) error {
	p, err := gnmipath.Parse(path)
	if err != nil {
		return err
	}
	if !gnmipath.IsOpenConfig(p.GetOrigin()) {
		return nil
	}
	elems := p.GetElem()
	if len(elems) == 0 {
		return errors.New("no such schema node")
	}
	e := s.roots[stripModule(elems[0].GetName())]
	if e == nil {
		return fmt.Errorf("unknown top-level node %q", elems[0].GetName())
	}
	for i, pe := range elems {
		if i > 0 {
			next := e.Dir[stripModule(pe.GetName())]
			if next == nil {
				return fmt.Errorf("no schema node %q under %s", pe.GetName(), e.Path())
			}
			e = next
		}
		if len(pe.GetKey()) > 0 {
			if !e.IsList() {
				return fmt.Errorf("%s is not a list but has keys", e.Path())
			}
			for k, kv := range pe.GetKey() {
				ke := e.Dir[k]
				if ke == nil || !strings.Contains(" "+e.Key+" ", " "+k+" ") {
					return fmt.Errorf("%s has no key %q (keys: %s)", e.Path(), k, e.Key)
				}
				if err := checkType(ke.Type, keyJSON(kv)); err != nil {
					return fmt.Errorf("key %s=%s: %v", k, kv, err)
				}
			}
		}
	}
	if e.ReadOnly() {
		return fmt.Errorf("%s is read-only state", e.Path())
	}
	switch {
	case e.IsLeaf():
		return checkType(e.Type, []byte(v))
	case e.IsLeafList():
		var items []json.RawMessage
		if err := json.Unmarshal([]byte(v), &items); err != nil {
			return fmt.Errorf("leaf-list %s needs a JSON array", e.Path())
		}
		for _, it := range items {
			if err := checkType(e.Type, it); err != nil {
				return err
			}
		}
		return nil
	}
	if v == devcfg.Empty {
		return nil // presence or empty container
	}
	return fmt.Errorf("%s is not a leaf", e.Path())
}

// keyJSON guesses the JSON form of a key from its text: the type check
// then accepts either spelling for numbers.
func keyJSON(s string) []byte {
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return []byte(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func stripModule(n string) string {
	if i := strings.LastIndexByte(n, ':'); i >= 0 {
		return n[i+1:]
	}
	return n
}

// checkType applies RFC 7951: 64-bit integers and decimal64 are strings,
// smaller integers numbers, booleans true/false, enums and identities
// strings from the allowed set.
func checkType(t *yang.YangType, raw []byte) error {
	if t == nil {
		return nil
	}
	var v any
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	switch t.Kind {
	case yang.Yunion:
		var errs []string
		for _, sub := range t.Type {
			if err := checkType(sub, raw); err == nil {
				return nil
			} else {
				errs = append(errs, err.Error())
			}
		}
		return fmt.Errorf("fits no member of union %s (%s)", t.Name, strings.Join(errs, "; "))
	case yang.Yint8, yang.Yint16, yang.Yint32, yang.Yuint8, yang.Yuint16, yang.Yuint32:
		n, ok := v.(json.Number)
		if !ok {
			return fmt.Errorf("%s needs a JSON number, got %s", t.Name, raw)
		}
		return checkRange(t, n.String())
	case yang.Yint64, yang.Yuint64:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s (64-bit) needs a JSON string per RFC 7951, got %s", t.Name, raw)
		}
		return checkRange(t, s)
	case yang.Ydecimal64:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("decimal64 needs a JSON string per RFC 7951, got %s", raw)
		}
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return fmt.Errorf("bad decimal64 %q", s)
		}
	case yang.Ybool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("boolean needs true or false, got %s", raw)
		}
	case yang.Yempty:
		if a, ok := v.([]any); !ok || len(a) != 1 || a[0] != nil {
			return fmt.Errorf("empty needs [null], got %s", raw)
		}
	case yang.Yenum:
		s, ok := v.(string)
		if !ok || t.Enum == nil || !t.Enum.IsDefined(s) {
			return fmt.Errorf("%s is not a value of enumeration %s", raw, t.Name)
		}
	case yang.Yidentityref:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("identityref needs a string, got %s", raw)
		}
		if t.IdentityBase != nil && !identityDefined(t.IdentityBase, stripModule(s)) {
			return fmt.Errorf("%q is not an identity derived from %s", s, t.IdentityBase.Name)
		}
	case yang.Ystring, yang.Yleafref, yang.Ybinary, yang.Ybits, yang.YinstanceIdentifier:
		if _, ok := v.(string); !ok && t.Kind != yang.Yleafref {
			return fmt.Errorf("%s needs a JSON string, got %s", t.Name, raw)
		}
	}
	return nil
}

func identityDefined(base *yang.Identity, name string) bool {
	for _, v := range base.Values {
		if v.Name == name {
			return true
		}
	}
	return false
}

func checkRange(t *yang.YangType, s string) error {
	var n yang.Number
	switch t.Kind {
	case yang.Yuint8, yang.Yuint16, yang.Yuint32, yang.Yuint64:
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an unsigned integer", s)
		}
		n = yang.FromUint(u)
		if max := maxUnsigned(t.Kind); u > max {
			return fmt.Errorf("%d exceeds %s", u, t.Name)
		}
	default:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", s)
		}
		n = yang.FromInt(i)
	}
	if len(t.Range) > 0 && !t.Range.Contains(yang.YangRange{{Min: n, Max: n}}) {
		return fmt.Errorf("%s is outside range %s of %s", s, t.Range, t.Name)
	}
	return nil
}

func maxUnsigned(k yang.TypeKind) uint64 {
	switch k {
	case yang.Yuint8:
		return math.MaxUint8
	case yang.Yuint16:
		return math.MaxUint16
	case yang.Yuint32:
		return math.MaxUint32
	}
	return math.MaxUint64
}
