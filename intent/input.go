package intent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
)

// Limits bound what the loader reads, so a hostile or mistaken commit (a
// link to /dev/zero, a generated file gone wrong, ranges that expand to
// millions of ports) is refused with a clear error instead of exhausting
// memory. docs/intent.md ("Limits") gives the defaults and the memory they
// allow; rocefab's --intent-max-* flags set them.
type Limits struct {
	// FileBytes bounds one intent file.
	FileBytes int64
	// FabricBytes bounds all the files of one fabric together.
	FabricBytes int64
	// Devices bounds switches and hosts together.
	Devices int
	// Ports bounds the switch ports of the fabric, after ranges expand.
	Ports int
}

// The default limits: more than twice the largest fabric in the benchmarks
// (2,000 switches and 16,000 hosts in 3.6 MB), and at most about 2.3 GB of
// memory while loading (BENCHMARKS.md).
const (
	DefaultFileBytes   = 8 << 20
	DefaultFabricBytes = 16 << 20
	DefaultDevices     = 50_000
	DefaultPorts       = 500_000
)

// MaxPortList bounds the ports one `names` value expands to, whatever the
// fabric limit: no switch has that many, and it keeps one value from
// allocating millions of names before the fabric-wide count sees them.
const MaxPortList = 65_536

// DefaultLimits returns the default limits.
func DefaultLimits() Limits {
	return Limits{FileBytes: DefaultFileBytes, FabricBytes: DefaultFabricBytes, Devices: DefaultDevices, Ports: DefaultPorts}
}

// withDefaults fills zero (unset) limits with the defaults.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.FileBytes <= 0 {
		l.FileBytes = d.FileBytes
	}
	if l.FabricBytes <= 0 {
		l.FabricBytes = d.FabricBytes
	}
	if l.Devices <= 0 {
		l.Devices = d.Devices
	}
	if l.Ports <= 0 {
		l.Ports = d.Ports
	}
	return l
}

// ErrInput is wrapped by every error about an intent file the loader will
// not read: not a regular file, a link out of the intent folder, over a
// size limit.
var ErrInput = errors.New("intent input refused")

// ErrLimit is wrapped by errors about a size limit (and by ErrInput).
var ErrLimit = fmt.Errorf("%w: over a limit", ErrInput)

// inputFile is one intent file to read: path as the user will see it;
// for files found in a folder, the folder and the path below it, so the
// file is opened through the folder and cannot lead out of it.
type inputFile struct {
	path   string
	folder string // "" for a file named on the command line
	rel    string
	size   int64
}

// InputFiles lists the intent files below paths as Load reads them: every
// *.yaml and *.yml below a folder in name order, hidden folders skipped. A
// file that is not a regular file, or a link that leads out of its folder,
// is an error wrapping ErrInput, as are paths that do not exist.
func InputFiles(paths ...string) ([]string, error) {
	var out []string
	var errs []error
	for _, p := range paths {
		files, bad, err := listInput(p)
		if err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, bad...)
		for _, f := range files {
			out = append(out, f.path)
		}
	}
	return out, errors.Join(errs...)
}

// listInput lists the intent files of one path. err is about the path
// itself; bad holds the files below it that are refused.
func listInput(p string) (files []inputFile, bad []error, err error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return nil, nil, notRegular(p, info.Mode())
		}
		return []inputFile{{path: p, size: info.Size()}}, nil, nil
	}
	root, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != p && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
			return nil
		}
		rel, err := filepath.Rel(p, path)
		if err != nil {
			return err
		}
		f := inputFile{path: path, folder: p, rel: rel}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				bad = append(bad, fmt.Errorf("%w: %s is a link that cannot be followed: %w", ErrInput, path, err))
				return nil
			}
			if within, _ := filepath.Rel(root, target); within == ".." || strings.HasPrefix(within, ".."+string(filepath.Separator)) || filepath.IsAbs(within) {
				bad = append(bad, fmt.Errorf("%w: %s links to %s, outside the intent folder %s", ErrInput, path, target, p))
				return nil
			}
			st, err := os.Stat(target)
			if err != nil {
				bad = append(bad, fmt.Errorf("%w: %w", ErrInput, err))
				return nil
			}
			mode = st.Mode()
			f.size = st.Size()
		} else if info, err := d.Info(); err == nil {
			f.size = info.Size()
		}
		if !mode.IsRegular() {
			bad = append(bad, notRegular(path, mode))
			return nil
		}
		files = append(files, f)
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	if err != nil {
		return files, bad, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return files, bad, nil
}

func notRegular(path string, mode fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO), not a regular file"
	case mode&fs.ModeCharDevice != 0:
		kind = "a character device, not a regular file"
	case mode&fs.ModeDevice != 0:
		kind = "a device, not a regular file"
	case mode&fs.ModeSocket != 0:
		kind = "a socket, not a regular file"
	case mode.IsDir():
		kind = "a folder, not a regular file"
	}
	return fmt.Errorf("%w: %s is %s", ErrInput, path, kind)
}

// ReadInput reads one intent file of at most max bytes. It opens the file
// without blocking and checks what it opened, so a FIFO or a device put in
// place of the file is refused at once, never waited on or read forever.
func ReadInput(path string, max int64) ([]byte, error) {
	return readInput(inputFile{path: path}, max)
}

func readInput(f inputFile, max int64) ([]byte, error) {
	const flags = os.O_RDONLY | syscall.O_NONBLOCK
	var fh *os.File
	var err error
	if f.folder != "" {
		// Through the folder: a link swapped in after listing still cannot
		// lead out of it.
		var root *os.Root
		if root, err = os.OpenRoot(f.folder); err == nil {
			fh, err = root.OpenFile(f.rel, flags, 0)
			root.Close()
		}
	} else {
		fh, err = os.OpenFile(f.path, flags, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(f.path, info.Mode())
	}
	if info.Size() > max {
		return nil, tooBig(f.path, info.Size(), max)
	}
	// The file may grow while it is read: read one byte past the limit.
	data, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, f.path, err)
	}
	if int64(len(data)) > max {
		return nil, tooBig(f.path, int64(len(data)), max)
	}
	return data, nil
}

func tooBig(path string, size, max int64) error {
	return fmt.Errorf("%w: %s is %s, more than the %s an intent file may hold (--intent-max-file-size)", ErrLimit, path, sizeText(size), sizeText(max))
}

// sizeText writes a size in the unit that reads best.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// ParseSize reads a size flag such as 16MiB, 500KB or 1048576B (the units
// of the intent's sizes).
func ParseSize(s string) (int64, error) {
	var b Bytes
	if err := b.parseScalar(strings.TrimSpace(s), ""); err != nil {
		return 0, errors.New(err.Error())
	}
	if b.N == 0 || b.N > 1<<40 {
		return 0, fmt.Errorf("size %q must be between 1B and 1TiB", s)
	}
	return int64(b.N), nil
}

// portBudget counts expanded ports across the files of one load, which
// are decoded in parallel.
type portBudget struct {
	limit    int64
	used     atomic.Int64
	reported atomic.Bool
}

// take counts n more ports; false means the fabric is over its limit (the
// first caller to cross it gets first == true, to report it once).
func (b *portBudget) take(n int) (ok, first bool) {
	if b == nil {
		return true, false
	}
	if b.used.Add(int64(n)) <= b.limit {
		return true, false
	}
	return false, b.reported.CompareAndSwap(false, true)
}
