package transport_test

import (
	"bytes"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// A pcap written by the probe must open in tshark and dissect as InfiniBand
// with the BTH fields we put in, over IPv4 and IPv6.
func TestPcapDissectsInTshark(t *testing.T) {
	// CI installs tshark: there a missing one fails instead of skipping.
	netnstest.RequireTool(t, "tshark")
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "probe.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	pw, err := transport.NewPcapWriter(f)
	if err != nil {
		t.Fatal(err)
	}
	type pkt struct {
		src, dst netip.AddrPort
		tos      uint8
		p        wire.Packet
	}
	// Requests and replies both go to port 4791; the source port is entropy.
	a4, b4 := netip.MustParseAddrPort("192.0.2.1:50123"), netip.MustParseAddrPort("198.51.100.1:4791")
	a4r, b4r := netip.MustParseAddrPort("192.0.2.1:4791"), netip.MustParseAddrPort("198.51.100.1:60001")
	a6, b6 := netip.MustParseAddrPort("[2001:db8:a::1]:61000"), netip.MustParseAddrPort("[2001:db8:b::1]:4791")
	pkts := []pkt{
		{a4, b4, transport.TOS(26, 2), wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: 0xFFFF, DestQP: 0xF00001, AckReq: true, PSN: 77}, Payload: make([]byte, 64)}},
		{b4r, a4r, transport.TOS(26, 2), wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCAcknowledge, PKey: 0xFFFF, DestQP: 0xF00000, PSN: 77}, AETH: wire.AETH{Syndrome: 0x1F, MSN: 1}}},
		{b4r, a4r, transport.TOS(48, 2), wire.Packet{BTH: wire.BTH{Opcode: wire.OpCNP, PKey: 0xFFFF, DestQP: 0xF00000, BECN: true}}},
		{a6, b6, transport.TOS(26, 1), wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCReadRequest, PKey: 0xFFFF, DestQP: 0xF00003, PSN: 5}, RETH: wire.RETH{DMALength: 1024}}},
	}
	for i, p := range pkts {
		env := wire.ProbeEnvelope(p.src, p.dst)
		b, err := wire.Encode(nil, &env, &p.p)
		if err != nil {
			t.Fatal(err)
		}
		if err := pw.WriteDatagram(time.Unix(1700000000, int64(i)*1000), p.src, p.dst, p.tos, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tshark, "-r", path, "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
		"-T", "fields", "-E", "separator=,",
		"-e", "ip.src", "-e", "ipv6.src", "-e", "udp.dstport", "-e", "ip.dsfield.dscp", "-e", "ipv6.tclass.dscp",
		"-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn",
		"-e", "infiniband.bth.a", "-e", "udp.checksum.status", "-e", "ip.checksum.status")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pkts) {
		t.Fatalf("tshark read %d packets, want %d:\n%s", len(lines), len(pkts), out)
	}
	want := []string{
		// ... opcode, DestQP, PSN, AckReq, UDP checksum status (1 = good), IP checksum status
		"192.0.2.1,,4791,26,,4,0xf00001,77,1,1,1",
		"198.51.100.1,,4791,26,,17,0xf00000,77,0,1,1",
		"198.51.100.1,,4791,48,,129,0xf00000,0,0,1,1",
		",2001:db8:a::1,4791,,26,12,0xf00003,5,0,1,",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("packet %d: tshark says\n  %s\nwant\n  %s", i+1, lines[i], w)
		}
	}
}

func TestAppendIPUDPChecksums(t *testing.T) {
	// A packet with a valid IPv4 header checksum sums to 0xFFFF.
	b := transport.AppendIPUDP(nil, netip.MustParseAddrPort("192.0.2.1:1"), netip.MustParseAddrPort("198.51.100.1:4791"), 0x68, []byte{1, 2, 3})
	var s uint32
	for i := 0; i < 20; i += 2 {
		s += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for s > 0xFFFF {
		s = s&0xFFFF + s>>16
	}
	if s != 0xFFFF {
		t.Fatalf("IPv4 header checksum does not verify: %#x", s)
	}
	if !bytes.Equal(b[len(b)-3:], []byte{1, 2, 3}) || b[6] != 0x40 {
		t.Fatalf("payload or DF wrong: %x", b)
	}
}
