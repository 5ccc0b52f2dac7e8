package probe

import (
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/ipv4"
	"golang.org/x/sys/unix"

	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// The benchmarks run on veth through a router namespace (host A – router –
// host B), the probe and a plain UDP baseline on the same path, in the same
// run, so the ratio is what matters. See BENCHMARKS.md, "Probe".

const benchAckEvery = 64 // AckReq on every 64th packet in the throughput test

type benchLine struct {
	l    *netnstest.Line
	a, b *Endpoint
	pol  Policy
}

func newBenchLine(b *testing.B) *benchLine {
	b.Helper()
	netnstest.Require(b)
	l := netnstest.NewLine(b, netnstest.LineOptions{})
	pol := DefaultPolicy()
	// One-way SENDs only, like the plain UDP baseline: no READs.
	pol.RatePPS, pol.AckEvery, pol.PayloadSize, pol.ReadEvery = 0, benchAckEvery, 64, -1
	// Replies must not be what limits the probe.
	cfg := EndpointConfig{Policy: pol, ReplyPPS: -1, ReplyBytesPerSec: -1, CNPPPS: -1}
	return &benchLine{l: l, a: nsEndpoint(b, l.A, cfg), b: nsEndpoint(b, l.B, cfg), pol: pol}
}

// udpPair opens plain UDP sockets: sender in A, receiver in B.
func (bl *benchLine) udpPair(b *testing.B) (*net.UDPConn, *net.UDPConn) {
	b.Helper()
	var tx, rx *net.UDPConn
	if err := bl.l.A.Do(func() (err error) {
		tx, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4zero})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if err := bl.l.B.Do(func() (err error) {
		rx, err = net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4zero, Port: 9})
		if err == nil {
			err = rx.SetReadBuffer(8 << 20)
		}
		return err
	}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tx.Close(); rx.Close() })
	return tx, rx
}

// deliveredRate watches a counter until it stops growing and returns the
// packets counted per second between start and the last increase.
func deliveredRate(start time.Time, count func() uint64, base uint64) (pps float64, got uint64) {
	last, lastAt := count(), time.Now()
	for time.Since(lastAt) < 200*time.Millisecond {
		time.Sleep(5 * time.Millisecond)
		if c := count(); c != last {
			last, lastAt = c, time.Now()
		}
	}
	got = last - base
	return float64(got) / lastAt.Sub(start).Seconds(), got
}

// BenchmarkThroughputVsUDP: one-way RC SEND requests with 64-byte payloads
// (AckReq on every 64th) from A's endpoint to B's responder, against plain
// UDP datagrams of the same size sent with sendmmsg and received with
// recvmmsg on the same path. Rates are what B received per second.
func BenchmarkThroughputVsUDP(b *testing.B) {
	bl := newBenchLine(b)
	tx, rx := bl.udpPair(b)
	udpSize := wire.BTHLen + bl.pol.PayloadSize + wire.ICRCLen // same datagram as the probe's

	var udpRecv atomic.Uint64
	go func() {
		pc := ipv4.NewPacketConn(rx)
		ms := make([]ipv4.Message, 64)
		for i := range ms {
			ms[i].Buffers = [][]byte{make([]byte, 2048)}
		}
		for {
			n, err := pc.ReadBatch(ms, 0)
			if err != nil {
				return
			}
			udpRecv.Add(uint64(n))
		}
	}()
	udpSend := func(n int) {
		pc := ipv4.NewPacketConn(tx)
		dst := &net.UDPAddr{IP: bl.l.BAddr.AsSlice(), Port: 9}
		ms := make([]ipv4.Message, 64)
		for i := range ms {
			ms[i] = ipv4.Message{Buffers: [][]byte{make([]byte, udpSize)}, Addr: dst}
		}
		for sent := 0; sent < n; {
			k := min(64, n-sent)
			w, err := pc.WriteBatch(ms[:k], 0)
			if err != nil {
				b.Fatal(err)
			}
			sent += w
		}
	}
	// probeSend connects a session and sends n packets; the count and the
	// clock start after the handshake.
	probeSend := func(n int) (base uint64, start time.Time) {
		pol := bl.pol
		pol.Count = n
		s, err := bl.a.newSession(bl.l.BAddr, pol, n, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.close()
		if _, err := s.connect(context.Background()); err != nil {
			b.Fatal(err)
		}
		base, start = bl.b.Counters().Received, time.Now()
		s.runData(context.Background())
		return base, start
	}

	var probePPS, udpPPS []float64
	var probeGot, udpGot, probeSent, udpSent uint64
	b.ResetTimer()
	// Alternate the two senders so both see the same machine state.
	for _, half := range []int{b.N / 2, b.N - b.N/2} {
		base, start := probeSend(half)
		pps, got := deliveredRate(start, func() uint64 { return bl.b.Counters().Received }, base)
		probePPS, probeGot, probeSent = append(probePPS, pps), probeGot+got, probeSent+uint64(half)

		base = udpRecv.Load()
		start = time.Now()
		udpSend(half)
		pps, got = deliveredRate(start, udpRecv.Load, base)
		udpPPS, udpGot, udpSent = append(udpPPS, pps), udpGot+got, udpSent+uint64(half)
	}
	b.StopTimer()
	p, u := mean(probePPS), mean(udpPPS)
	b.ReportMetric(p, "probe-pps")
	b.ReportMetric(u, "udp-pps")
	b.ReportMetric(p/u, "ratio")
	b.ReportMetric(100*(1-float64(probeGot)/float64(probeSent)), "probe-drop-%")
	b.ReportMetric(100*(1-float64(udpGot)/float64(udpSent)), "udp-drop-%")
}

// BenchmarkLatencyVsUDP: ping-pong, one packet in flight. The probe sends a
// 64-byte RC SEND with AckReq and waits for the ACK from B's responder;
// the baseline sends a UDP datagram of the same size to an echo socket in B
// and blocks on the reply. probe-rtt is what the probe reports (kernel
// receive timestamp minus user send time); *-wall is the loop's own time.
func BenchmarkLatencyVsUDP(b *testing.B) {
	bl := newBenchLine(b)
	tx, rx := bl.udpPair(b)
	go func() { // echo
		buf := make([]byte, 2048)
		for {
			n, from, err := rx.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			rx.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	udpSize := wire.BTHLen + bl.pol.PayloadSize + wire.ICRCLen
	dst := netip.AddrPortFrom(bl.l.BAddr, 9)
	// The baseline also takes kernel receive timestamps, so probe-rtt and
	// udp-rtt-kernel measure the same span; udp-rtt adds the wake-up of the
	// reading goroutine.
	rc, err := tx.SyscallConn()
	if err != nil {
		b.Fatal(err)
	}
	rc.Control(func(fd uintptr) { unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) })

	b.ResetTimer()
	var probeRTT, udpRTT, udpKernelRTT []int64
	var probeWall, udpWall time.Duration
	for _, half := range []int{b.N / 2, b.N - b.N/2} {
		pol := bl.pol
		pol.Count, pol.AckEvery, pol.Outstanding = half, 1, 1
		s, err := bl.a.newSession(bl.l.BAddr, pol, half, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.connect(context.Background()); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		s.runData(context.Background())
		s.wait(context.Background(), time.Second, func() bool { return s.inflight <= 0 })
		probeWall += time.Since(start)
		s.mu.Lock()
		probeRTT = append(probeRTT, s.rttNs...)
		s.mu.Unlock()
		s.close()

		buf := make([]byte, udpSize)
		in := make([]byte, 2048)
		oob := make([]byte, 128)
		start = time.Now()
		for range half {
			t0 := time.Now()
			if _, err := tx.WriteToUDPAddrPort(buf, dst); err != nil {
				b.Fatal(err)
			}
			tx.SetReadDeadline(t0.Add(time.Second))
			_, oobn, _, _, err := tx.ReadMsgUDPAddrPort(in, oob)
			if err != nil {
				continue // lost: no sample
			}
			udpRTT = append(udpRTT, time.Since(t0).Nanoseconds())
			if ts, ok := kernelStamp(oob[:oobn]); ok {
				udpKernelRTT = append(udpKernelRTT, ts-t0.UnixNano())
			}
		}
		udpWall += time.Since(start)
	}
	b.StopTimer()
	p, u, uk := median(probeRTT), median(udpRTT), median(udpKernelRTT)
	b.ReportMetric(p/1e3, "probe-rtt-p50-µs")
	b.ReportMetric(u/1e3, "udp-rtt-p50-µs")
	b.ReportMetric(uk/1e3, "udp-rtt-kernel-p50-µs")
	b.ReportMetric(p/u, "rtt-ratio")
	b.ReportMetric(p/uk, "rtt-ratio-kernel")
	b.ReportMetric(float64(probeWall.Microseconds())/float64(b.N), "probe-wall-µs/rt")
	b.ReportMetric(float64(udpWall.Microseconds())/float64(b.N), "udp-wall-µs/rt")
	b.ReportMetric(float64(len(probeRTT)), "probe-samples")
}

// kernelStamp reads SCM_TIMESTAMPNS from a control message buffer.
func kernelStamp(oob []byte) (int64, bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SCM_TIMESTAMPNS && len(m.Data) >= 16 {
			return int64(binary.NativeEndian.Uint64(m.Data)*1e9 + binary.NativeEndian.Uint64(m.Data[8:])), true
		}
	}
	return 0, false
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func median(v []int64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return float64(s[len(s)/2])
}
