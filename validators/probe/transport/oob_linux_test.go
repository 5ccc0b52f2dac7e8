//go:build linux

package transport

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// aligned copies b into 8-byte-aligned memory, as the kernel's control
// message buffer (from make) is.
func aligned(b []byte, extra int) []byte {
	words := make([]uint64, (len(b)+extra)/8+1)
	out := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)[:len(b)]
	copy(out, b)
	return out
}

// encodeOOB writes what parseOOB read back as the kernel would report it.
func encodeOOB(m *Message) []byte {
	b := aligned(nil, 256)
	if m.HasTOS {
		b = appendTOS(b, true, m.TOS)
	}
	if m.Local.Is4() {
		var pi unix.Inet4Pktinfo
		pi.Addr = m.Local.As4()
		b = appendCmsg(b, unix.IPPROTO_IP, unix.IP_PKTINFO, (*[unix.SizeofInet4Pktinfo]byte)(unsafe.Pointer(&pi))[:])
	} else if m.Local.IsValid() {
		b = appendPktinfo(b, m.Local)
	}
	if m.KernelTime {
		ts := unix.NsecToTimespec(m.RxTime)
		b = appendCmsg(b, unix.SOL_SOCKET, unix.SCM_TIMESTAMPNS, (*[unsafe.Sizeof(ts)]byte)(unsafe.Pointer(&ts))[:])
	}
	return b
}

// FuzzParseOOB: parseOOB reads control messages the kernel wrote. It must
// not panic or read past the buffer on any bytes, and what it reads must
// re-encode to control messages it reads the same way.
func FuzzParseOOB(f *testing.F) {
	// Seeds in testdata/fuzz/FuzzParseOOB: control messages recorded from
	// the kernel for IPv4 and IPv6 sockets, and constructed edge cases
	// (truncated header, length past the end, zero length, unknown types).
	f.Fuzz(func(t *testing.T, oob []byte) {
		var m Message
		parseOOB(&m, aligned(oob, 0))
		if !m.HasTOS && m.TOS != 0 {
			t.Fatalf("TOS %d without HasTOS", m.TOS)
		}
		if !m.KernelTime && m.RxTime != 0 {
			t.Fatalf("RxTime %d without KernelTime", m.RxTime)
		}
		var again Message
		parseOOB(&again, encodeOOB(&m))
		if again.TOS != m.TOS || again.HasTOS != m.HasTOS || again.Local != m.Local ||
			again.RxTime != m.RxTime || again.KernelTime != m.KernelTime {
			t.Fatalf("parsed %+v, re-encoded and parsed %+v", m, again)
		}
	})
}

// The kernel recordings in the seed corpus read as what was sent: TOS
// 26<<2|2 from the sender, to the loopback address, kernel timestamped.
func TestParseOOBKernelRecordings(t *testing.T) {
	for file, local := range map[string]string{"kernel-ipv4": "127.0.0.1", "kernel-ipv6": "::1"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzParseOOB", file))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
		quoted := bytes.TrimSuffix(bytes.TrimPrefix(lines[len(lines)-1], []byte("[]byte(")), []byte(")"))
		oob, err := strconv.Unquote(string(quoted))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var m Message
		parseOOB(&m, aligned([]byte(oob), 0))
		if !m.HasTOS || m.TOS != 26<<2|2 || m.Local != netip.MustParseAddr(local) || !m.KernelTime || m.RxTime <= 0 {
			t.Errorf("%s: %+v", file, m)
		}
	}
}
