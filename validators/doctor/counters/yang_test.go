package counters_test

import (
	"strings"
	"testing"

	"github.com/openconfig/goyang/pkg/yang"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/internal/yangdir"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// TestOpenConfigCounterPathsAreInTheModels: every counter path rocefab
// asks an OpenConfig target for is a read-only leaf of the public models
// (../shared/yang), so a strict target answers it rather than refusing
// the whole subscription; the queue names are the ones rocefab configures.
func TestOpenConfigCounterPathsAreInTheModels(t *testing.T) {
	if counters.OpenConfigQueuePrefix != openconfig.QueuePrefix {
		t.Fatalf("counter queue prefix %q, renderer %q", counters.OpenConfigQueuePrefix, openconfig.QueuePrefix)
	}
	dir := yangdir.Require(t)
	ms := yang.NewModules()
	ms.AddPath(dir)
	mods := []string{"openconfig-interfaces", "openconfig-if-ethernet", "openconfig-qos"}
	for _, m := range mods {
		if err := ms.Read(m); err != nil {
			t.Fatal(err)
		}
	}
	if errs := ms.Process(); len(errs) > 0 {
		t.Fatal(errs)
	}
	root := map[string]*yang.Entry{}
	for _, m := range mods {
		mod, errs := ms.GetModule(m)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for name, e := range mod.Dir {
			root[name] = e
		}
	}
	for _, platform := range []string{"openconfig", "eos", "nxos"} {
		paths := counters.PathsWith(all.Renderers(), platform, []string{"Ethernet1/1"}, []int{3})
		if len(paths) == 0 {
			t.Fatalf("%s: no counter paths", platform)
		}
		for _, cp := range paths {
			if cp.Target != "" || cp.Subscribe != "" {
				t.Errorf("%s: %s asks under target %q or for %q: OpenConfig serves leaves", platform, cp.Path, cp.Target, cp.Subscribe)
			}
			p, err := gnmipath.Parse(cp.Path)
			if err != nil {
				t.Fatal(err)
			}
			elems := gnmipath.Elems(p)
			e := root[elems[0].GetName()]
			for _, pe := range elems[1:] {
				if e == nil {
					break
				}
				e = e.Dir[pe.GetName()]
			}
			switch {
			case e == nil:
				t.Errorf("%s: %s is not in the OpenConfig models", platform, cp.Path)
			case e.IsDir() || !e.ReadOnly():
				t.Errorf("%s: %s is not a state leaf", platform, cp.Path)
			}
			if platform == "openconfig" && strings.Contains(cp.Path, "/queues/queue[") && !strings.Contains(cp.Path, "[name="+openconfig.QueuePrefix) {
				t.Errorf("%s asks for a queue rocefab does not configure", cp.Path)
			}
		}
	}
}
