package sonicyang

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Base is a realistic CONFIG_DB of a switch before rocefab touches it.
type Base struct {
	Name string // e.g. "MSN2700/dynamic"
	DB   DB
}

// Bases are the device bases of yang-sonic/base (README there): the
// ACS-MSN2700 and ACS-MSN4700 bases with their stock QoS and PGs, under
// the dynamic and the traditional buffer model, and a Mellanox-SN4700-V64
// (64 ports) assembled from its port_config.ini and the dynamic-model
// buffer pools and profiles the same way.
func Bases(dir string) ([]Base, error) {
	read := func(name string) (DB, error) { return ReadDB(filepath.Join(dir, "base", name)) }
	var out []Base
	for _, b := range []struct{ name, base, stock string }{
		{"MSN2700/dynamic", "base-msn2700.json", "stock-msn2700.json"},
		{"MSN2700/traditional", "base-msn2700-traditional.json", "stock-msn2700.json"},
		{"MSN4700/dynamic", "base-msn4700.json", "stock-msn4700.json"},
		{"MSN4700/traditional", "base-msn4700.json", "stock-msn4700.json"},
	} {
		db, err := read(b.base)
		if err != nil {
			return nil, err
		}
		stock, err := read(b.stock)
		if err != nil {
			return nil, err
		}
		db.Merge(stock)
		if strings.HasSuffix(b.name, "traditional") {
			db["DEVICE_METADATA"]["localhost"]["buffer_model"] = "traditional"
		}
		out = append(out, Base{b.name, db})
	}
	for _, model := range []string{"dynamic", "traditional"} {
		db, err := sn4700V64(dir, model)
		if err != nil {
			return nil, err
		}
		out = append(out, Base{"SN4700-V64/" + model, db})
	}
	return out, nil
}

// sn4700V64 is DEVICE_METADATA, the PORT table of the SKU's
// port_config.ini (name, lanes, alias, index, speed; admin up, mtu 9100),
// the dynamic-model pools and profiles, lossy PG 0 and stock lossless PGs
// 3-4 per port, and 5 m cables.
func sn4700V64(dir, model string) (DB, error) {
	f, err := os.Open(filepath.Join(dir, "base", "sn4700v64_port_config.ini"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	db := DB{
		"DEVICE_METADATA": {"localhost": {"hostname": "leaf-sonic", "hwsku": "Mellanox-SN4700-V64", "platform": "x86_64-mlnx_msn4700-r0",
			"mac": "98:03:9b:00:00:02", "type": "LeafRouter", "buffer_model": model}},
		"PORT": {}, "BUFFER_PG": {}, "CABLE_LENGTH": {"AZURE": {}},
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 5 {
			return nil, fmt.Errorf("sn4700v64_port_config.ini: %q has fewer than 5 columns", line)
		}
		db["PORT"][fs[0]] = map[string]any{"lanes": fs[1], "alias": fs[2], "index": fs[3], "speed": fs[4], "admin_status": "up", "mtu": "9100"}
		db["BUFFER_PG"][fs[0]+"|0"] = map[string]any{"profile": "ingress_lossy_profile"}
		db["BUFFER_PG"][fs[0]+"|3-4"] = map[string]any{"profile": "NULL"}
		db["CABLE_LENGTH"]["AZURE"][fs[0]] = "5m"
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	buffers, err := ReadDB(filepath.Join(dir, "base", "buffers-mellanox2410-dynamic.json"))
	if err != nil {
		return nil, err
	}
	for _, t := range []string{"BUFFER_POOL", "BUFFER_PROFILE", "DEFAULT_LOSSLESS_BUFFER_PARAMETER", "LOSSLESS_TRAFFIC_PATTERN"} {
		db[t] = buffers[t]
	}
	return db, nil
}

// Ports lists a base's ports in index order.
func (b Base) Ports() []string {
	type port struct {
		name  string
		index int
	}
	var ps []port
	for name, f := range b.DB["PORT"] {
		var i int
		fmt.Sscan(fmt.Sprint(f["index"]), &i)
		ps = append(ps, port{name, i*1000 + portNumber(name)})
	}
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].index < ps[j-1].index; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

func portNumber(s string) int {
	var n int
	fmt.Sscan(strings.TrimLeft(s, "EthernetEth/"), &n)
	return n
}
