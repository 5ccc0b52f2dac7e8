package intent

import "testing"

func TestWithLinksKeepsOnlyTheGivenLinks(t *testing.T) {
	f, diags := LoadBytes("f.yaml", []byte(`apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: t}
spec:
  switches:
    - {name: leaf1, platform: linux, ports: [{names: swp1-2, mode: routed}]}
  hosts:
    - {name: h1, nics: [{netdev: eth0, address: 192.0.2.2}]}
    - {name: h2, nics: [{netdev: eth0, address: 192.0.2.6}]}
  links:
    - {a: h1:eth0, b: leaf1:swp1}
    - {a: h2:eth0, b: leaf1:swp2}
`))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	r, diags := Resolve(f)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	_ = r.HostLinksOf("h1") // build the original's index first
	c := r.WithLinks(r.Links[1:])
	if got := c.HostLinksOf("h2"); len(got) != 1 || got[0].SwitchEnd.Port != "swp2" {
		t.Errorf("the copy's h2 links: %+v", got)
	}
	if got := c.HostLinksOf("h1"); len(got) != 0 {
		t.Errorf("the copy keeps h1's link: %+v", got)
	}
	if len(r.Links) != 2 || len(r.HostLinksOf("h1")) != 1 {
		t.Errorf("the original changed: %d links", len(r.Links))
	}
}
