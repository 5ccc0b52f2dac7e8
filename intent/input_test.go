package intent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const oneSwitch = docHead + "spec:\n  switches:\n    - {name: leaf1, ports: [{names: Ethernet1-4}]}\n"

// loadGuarded loads within lim, failing the test if loading does not end:
// a FIFO read blocks and /dev/zero never ends, which is the bug these
// tests guard against.
func loadGuarded(t *testing.T, lim Limits, paths ...string) (*Fabric, Diagnostics) {
	t.Helper()
	type result struct {
		fab   *Fabric
		diags Diagnostics
	}
	done := make(chan result, 1)
	go func() {
		fab, diags := LoadWith(lim, paths...)
		done <- result{fab, diags}
	}()
	select {
	case r := <-done:
		return r.fab, r.diags
	case <-time.After(60 * time.Second):
		t.Fatalf("loading %v did not end", paths)
		return nil, nil
	}
}

// only returns the diagnostics with code, failing unless there are some.
func only(t *testing.T, diags Diagnostics, code string) []Diagnostic {
	t.Helper()
	var out []Diagnostic
	for _, d := range diags {
		if d.Code == code {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s in %v", code, diagStrings(diags))
	}
	return out
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
}

// TestLoaderReadsRegularFilesOnly: links to devices or out of the intent
// folder, FIFOs and devices are refused at once with RF014, naming the
// file and what it is; the rest of the folder is still read.
func TestLoaderReadsRegularFilesOnly(t *testing.T) {
	outside := writeFiles(t, map[string]string{"stolen.yaml": oneSwitch})
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) // adds the hostile entry
		want  string
	}{
		{"link to /dev/zero", func(t *testing.T, dir string) {
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "zero.yaml links to /dev/zero, outside the intent folder"},
		{"link out of the folder", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(outside, "stolen.yaml"), filepath.Join(dir, "stolen.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "outside the intent folder"},
		{"relative link climbing out", func(t *testing.T, dir string) {
			if err := os.Symlink("../../../../../../../../etc/hostname", filepath.Join(dir, "up.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "up.yaml"},
		{"FIFO named *.yaml", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "pipe.yaml"))
		}, "pipe.yaml is a named pipe (FIFO), not a regular file"},
		{"link to a FIFO in the folder", func(t *testing.T, dir string) {
			mkfifo(t, filepath.Join(dir, "pipe"))
			if err := os.Symlink("pipe", filepath.Join(dir, "via-link.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "via-link.yaml is a named pipe (FIFO)"},
		{"link to a folder", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("sub", filepath.Join(dir, "dir.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "dir.yaml is a folder, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"fabric.yaml": oneSwitch})
			tc.setup(t, dir)
			fab, diags := loadGuarded(t, Limits{}, dir)
			ds := only(t, diags, CodeNoInput)
			if len(ds) != 1 || !strings.Contains(ds[0].Message, tc.want) {
				t.Fatalf("want one RF014 saying %q, got %v", tc.want, diagStrings(diags))
			}
			if fab == nil || len(fab.Switches) != 1 {
				t.Fatalf("the folder's regular file was not read: %+v", fab)
			}
			if _, err := InputFiles(dir); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("InputFiles: %v", err)
			}
		})
	}

	// A link to a regular file inside the folder is read, through the
	// folder (a hidden folder is not read on its own).
	dir := writeFiles(t, map[string]string{".shared/fabric.yml": oneSwitch})
	if err := os.Symlink(".shared/fabric.yml", filepath.Join(dir, "fabric.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "fabric.yaml")} {
		if fab, diags := loadGuarded(t, Limits{}, p); len(diags) > 0 || len(fab.Switches) != 1 {
			t.Fatalf("%s with a link inside: %v", p, diagStrings(diags))
		}
	}
	if files, err := InputFiles(dir); err != nil || len(files) != 1 {
		t.Fatalf("InputFiles of a folder with an inner link: %v, %v", files, err)
	}
}

// TestLoaderRefusesDevicesAndFIFOsNamedDirectly: a path given on the
// command line is read only if it is a regular file.
func TestLoaderRefusesDevicesAndFIFOsNamedDirectly(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fabric.yaml")
	mkfifo(t, fifo)
	for path, want := range map[string]string{
		"/dev/zero": "/dev/zero is a character device, not a regular file",
		fifo:        "is a named pipe (FIFO), not a regular file",
	} {
		fab, diags := loadGuarded(t, Limits{}, path)
		if fab != nil || len(diags) != 1 || diags[0].Code != CodeNoInput || !strings.Contains(diags[0].Message, want) {
			t.Fatalf("%s: %v", path, diagStrings(diags))
		}
		if _, err := ReadInput(path, 1<<20); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
			t.Fatalf("ReadInput(%s): %v", path, err)
		}
	}
}

// TestLoaderSizeLimits: a file over the file limit, or files over the
// fabric limit together, are refused with RF017 before they are read; a
// huge sparse file costs nothing.
func TestLoaderSizeLimits(t *testing.T) {
	t.Run("sparse 64 GiB file", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"fabric.yaml": oneSwitch})
		huge := filepath.Join(dir, "huge.yaml")
		f, err := os.Create(huge)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(64 << 30); err != nil {
			t.Skipf("no sparse files here: %v", err)
		}
		f.Close()
		_, diags := loadGuarded(t, Limits{}, dir)
		ds := only(t, diags, CodeLimit)
		if !strings.Contains(ds[0].Message, "more than 16MiB") || ds[0].File != huge {
			t.Fatalf("%v", diagStrings(diags))
		}
		// Named alone, the file limit speaks first.
		_, diags = loadGuarded(t, Limits{FabricBytes: 1 << 40}, huge)
		if ds := only(t, diags, CodeLimit); !strings.Contains(ds[0].Message, "huge.yaml is 64GiB, more than the 8MiB an intent file may hold") {
			t.Fatalf("%v", diagStrings(diags))
		}
	})
	t.Run("file limit", func(t *testing.T) {
		dir := writeFiles(t, map[string]string{"a.yaml": oneSwitch + strings.Repeat("# padding\n", 200)})
		_, diags := loadGuarded(t, Limits{FileBytes: 1024}, dir)
		ds := only(t, diags, CodeLimit)
		if ds[0].Line != 1 || !strings.Contains(ds[0].Message, "more than the 1KiB an intent file may hold (--intent-max-file-size)") {
			t.Fatalf("%v", diagStrings(diags))
		}
	})
	t.Run("fabric limit", func(t *testing.T) {
		pad := strings.Repeat("# padding\n", 60)
		dir := writeFiles(t, map[string]string{"a.yaml": oneSwitch + pad, "b.yaml": docHead + "spec: {}\n" + pad, "c.yaml": docHead + "spec: {}\n" + pad})
		fab, diags := loadGuarded(t, Limits{FabricBytes: 1500}, dir)
		ds := only(t, diags, CodeLimit)
		if fab != nil || !strings.HasSuffix(ds[0].File, "c.yaml") || !strings.Contains(ds[0].Message, "more than 1500B with this file (3 of 3 files") {
			t.Fatalf("%v", diagStrings(diags))
		}
	})
	t.Run("in memory", func(t *testing.T) {
		_, diags := LoadBytesWith(Limits{FileBytes: 100}, "<stdin>", []byte(oneSwitch))
		if ds := only(t, diags, CodeLimit); ds[0].File != "<stdin>" {
			t.Fatalf("%v", diagStrings(diags))
		}
	})
}

// TestLoaderCountLimits: devices and expanded ports are bounded across
// files; the list that crosses the port limit is reported once and not
// kept, nor is any later one.
func TestLoaderCountLimits(t *testing.T) {
	var sw strings.Builder
	sw.WriteString(docHead + "spec:\n  switches:\n")
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&sw, "    - {name: leaf%d, ports: [{names: Ethernet1-64}]}\n", i)
	}
	dir := writeFiles(t, map[string]string{"a.yaml": sw.String(), "b.yaml": docHead + "spec:\n  hosts:\n    - {name: h1}\n    - {name: h2}\n"})

	_, diags := loadGuarded(t, Limits{Devices: 7}, dir)
	ds := only(t, diags, CodeLimit)
	if len(ds) != 1 || !strings.HasSuffix(ds[0].File, "b.yaml") || ds[0].Field != "spec.hosts[1].name" ||
		!strings.Contains(ds[0].Message, "8 switches and hosts, more than the limit of 7 (--intent-max-devices)") {
		t.Fatalf("%v", diagStrings(diags))
	}

	fab, diags := loadGuarded(t, Limits{Ports: 200}, dir)
	ds = only(t, diags, CodeLimit)
	if len(ds) != 1 || ds[0].Field != "spec.switches[3].ports[0].names" || !strings.Contains(ds[0].Message, "more than 200 switch ports") {
		t.Fatalf("%v", diagStrings(diags))
	}
	kept := 0
	for _, s := range fab.Switches {
		for _, p := range s.Ports {
			kept += len(p.Names.Names)
		}
	}
	if kept != 3*64 {
		t.Fatalf("%d ports kept, want the 192 within the limit", kept)
	}

	// One value over MaxPortList, whatever the fabric limit.
	ranges := make([]string, MaxPortList/4096+1)
	for i := range ranges {
		ranges[i] = fmt.Sprintf("Ethernet%d/1-4096", i+1)
	}
	doc := docHead + "spec:\n  switches:\n    - {name: leaf1, ports: [{names: '" + strings.Join(ranges, ",") + "'}]}\n"
	_, diags = LoadBytesWith(Limits{Ports: 1 << 30}, "f.yaml", []byte(doc))
	if ds := only(t, diags, CodeLimit); !strings.Contains(ds[0].Message, "more than 65536 ports") {
		t.Fatalf("%v", diagStrings(diags))
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"16MiB": 16 << 20, "500KB": 500_000, "1048576B": 1 << 20, " 1GiB ": 1 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "16", "16Mb", "0B", "-1MiB", "2TiB", "lots"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}
