package intent

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func switchDoc(name string) string {
	return docHead + "spec:\n  switches:\n    - {name: " + name + ", ports: [{names: Ethernet1-4}]}\n"
}

func switchNames(f *Fabric) []string {
	var out []string
	for _, s := range f.Switches {
		out = append(out, s.Name)
	}
	slices.Sort(out)
	return out
}

// TestBundleReadsWhatLoadReads: for every layout the bundle holds exactly
// the files Load reads (hidden folders such as .git skipped, hidden files
// read, links inside the folder followed, every file once), and loading
// the bundle gives the same switches; where Load refuses the input, so
// does Bundle.
func TestBundleReadsWhatLoadReads(t *testing.T) {
	tests := []struct {
		name string
		// setup makes the layout in dir and returns the paths to load.
		setup func(t *testing.T, dir string) []string
		lim   Limits
		want  []string // files, relative to dir; nil: refused
	}{
		{
			name: "git folder with yaml inside",
			setup: func(t *testing.T, dir string) []string {
				write(t, dir, "fabric.yaml", switchDoc("leaf1"))
				write(t, dir, ".git/config.yaml", switchDoc("gitleaf"))
				write(t, dir, ".git/refs/heads/main.yml", switchDoc("gitleaf2"))
				return []string{dir}
			},
			want: []string{"fabric.yaml"},
		},
		{
			name: "hidden file",
			setup: func(t *testing.T, dir string) []string {
				write(t, dir, "a.yaml", switchDoc("leaf1"))
				write(t, dir, ".b.yaml", switchDoc("leaf2"))
				return []string{dir}
			},
			want: []string{".b.yaml", "a.yaml"},
		},
		{
			name: "link inside the folder",
			setup: func(t *testing.T, dir string) []string {
				// The target's name is not *.yaml: only the link is read.
				write(t, dir, "data/spine.txt", switchDoc("spine1"))
				if err := os.Symlink(filepath.Join("data", "spine.txt"), filepath.Join(dir, "spine.yaml")); err != nil {
					t.Fatal(err)
				}
				write(t, dir, "leaf.yml", switchDoc("leaf1"))
				return []string{dir}
			},
			want: []string{"leaf.yml", "spine.yaml"},
		},
		{
			name: "link out of the folder",
			setup: func(t *testing.T, dir string) []string {
				write(t, dir, "outside.yaml", switchDoc("leaf9"))
				write(t, dir, "in/a.yaml", switchDoc("leaf1"))
				if err := os.Symlink(filepath.Join(dir, "outside.yaml"), filepath.Join(dir, "in", "b.yaml")); err != nil {
					t.Fatal(err)
				}
				return []string{filepath.Join(dir, "in")}
			},
		},
		{
			name: "sub folders, other files, a file named twice",
			setup: func(t *testing.T, dir string) []string {
				write(t, dir, "b.yaml", switchDoc("leaf2"))
				write(t, dir, "sub/a.yml", switchDoc("leaf1"))
				write(t, dir, "README.md", "# not intent\n")
				write(t, dir, "notes.txt", "apiVersion: nothing\n")
				return []string{dir, filepath.Join(dir, "b.yaml")}
			},
			want: []string{"b.yaml", "sub/a.yml"},
		},
		{
			name: "file over the limit",
			setup: func(t *testing.T, dir string) []string {
				write(t, dir, "a.yaml", switchDoc("leaf1"))
				return []string{dir}
			},
			lim: Limits{FileBytes: 16},
		},
		{
			name: "no intent files",
			setup: func(t *testing.T, dir string) []string {
				write(t, dir, ".git/fabric.yaml", switchDoc("leaf1"))
				return []string{dir}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			paths := tt.setup(t, dir)
			fab, diags := LoadWith(tt.lim, paths...)
			data, files, err := Bundle(tt.lim, paths...)
			if tt.want == nil {
				if !diags.HasErrors() {
					t.Fatalf("Load accepted the input: %v", fab.Files)
				}
				if err == nil || !errors.Is(err, ErrInput) {
					t.Fatalf("Bundle: err %v, want one wrapping ErrInput (Load: %v)", err, diagStrings(diags))
				}
				return
			}
			if diags.HasErrors() || err != nil {
				t.Fatalf("Load: %v; Bundle: %v", diagStrings(diags), err)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(dir, w))
			}
			if !slices.Equal(fab.Files, want) {
				t.Fatalf("Load read %v, want %v", fab.Files, want)
			}
			if !slices.Equal(files, fab.Files) {
				t.Fatalf("Bundle read %v, Load %v", files, fab.Files)
			}
			back, bdiags := LoadBytes("bundle", data)
			if bdiags.HasErrors() {
				t.Fatalf("the bundle does not load: %v\n%s", diagStrings(bdiags), data)
			}
			if a, b := switchNames(back), switchNames(fab); !slices.Equal(a, b) {
				t.Fatalf("bundle defines %v, Load %v", a, b)
			}
		})
	}
}

func write(t *testing.T, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
