package sshsim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gliderlabs/ssh"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"
)

// fileSink is a personality that takes files over SCP.
type fileSink interface {
	// scpTarget checks a destination and says why it is refused ("" when
	// taken): NX-OS takes bootflash: files once `feature scp-server` is on.
	scpTarget(path string) string
	// storeFile keeps a received file.
	storeFile(path string, data []byte)
}

// scpMaxFile bounds a received file.
const scpMaxFile = 64 << 20

// scpSink answers `scp -t PATH` as OpenSSH's scp in sink mode does (the
// protocol NX-OS's scp-server speaks): a zero byte when ready, a
// "C<mode> <size> <name>" header acknowledged with a zero byte, the bytes
// and a zero byte, acknowledged again; a refusal is byte 1 and a message.
// The received line "scp -t PATH" counts for step faults: DropBefore drops
// before anything is stored, DropAfter stores the file and drops before
// the last answer, Hang stores nothing and never answers, Slow takes
// Delay to store the file and answer.
func (s *Sim) scpSink(sshSess ssh.Session, conn *gossh.ServerConn, cmd string) {
	path := scpPath(cmd)
	line := "scp -t " + path
	s.mu.Lock()
	step, stepped := s.stepFor(line)
	s.received = append(s.received, line)
	sink, ok := s.dev.(fileSink)
	refusal := "scp: this device takes no files"
	if ok {
		refusal = sink.scpTarget(path)
	}
	s.mu.Unlock()
	drop := func() {
		if conn != nil {
			_ = conn.Close()
		}
		_ = sshSess.Close()
	}
	if stepped && step.Action == DropBefore {
		drop()
		return
	}
	if refusal != "" {
		_, _ = io.WriteString(sshSess, "\x01"+refusal+"\n")
		_ = sshSess.Exit(1)
		return
	}
	r := bufio.NewReader(sshSess)
	fail := func(msg string) {
		_, _ = io.WriteString(sshSess, "\x01scp: "+msg+"\n")
		_ = sshSess.Exit(1)
	}
	if _, err := sshSess.Write([]byte{0}); err != nil {
		return
	}
	header, err := r.ReadString('\n')
	if err != nil {
		return
	}
	f := strings.Fields(strings.TrimSpace(header))
	if len(f) != 3 || !strings.HasPrefix(f[0], "C") {
		fail("protocol error: expected a file header")
		return
	}
	size, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || size < 0 || size > scpMaxFile {
		fail("bad file size")
		return
	}
	if _, err := sshSess.Write([]byte{0}); err != nil {
		return
	}
	data := make([]byte, size+1)
	if _, err := io.ReadFull(r, data); err != nil {
		return
	}
	if stepped && step.Action == Hang {
		s.log.Debug("hanging on fault", zap.String("line", line))
		_, _ = io.Copy(io.Discard, r)
		return
	}
	if stepped && step.Action == Slow {
		time.Sleep(step.Delay)
	}
	s.mu.Lock()
	sink.storeFile(path, data[:size])
	s.mu.Unlock()
	if stepped && step.Action == DropAfter {
		drop()
		return
	}
	_, _ = sshSess.Write([]byte{0})
	_ = sshSess.Exit(0)
}

// scpPath is the destination of `scp [-q] -t PATH` (go-scp quotes it).
func scpPath(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	p := f[len(f)-1]
	if uq, err := strconv.Unquote(p); err == nil {
		p = uq
	}
	return p
}

// scpTarget: NX-OS takes files into bootflash: over SCP with `feature
// scp-server` ("feature scp-server" enables the SCP server, Cisco Nexus
// 9000 Series NX-OS Fundamentals Configuration Guide, Copying Files); a
// destination without a file system is bootflash:.
func (d *iosDevice) scpTarget(path string) string {
	if !d.nxos {
		return "scp: this device takes no files"
	}
	if d.running.find("feature scp-server") == nil {
		return "scp: permission denied (feature scp-server is not enabled)"
	}
	if !checkpointName.MatchString(bootflashName(path)) {
		return fmt.Sprintf("scp: %s: invalid file name", path)
	}
	return ""
}

func (d *iosDevice) storeFile(path string, data []byte) {
	d.bootflash[bootflashName(path)] = &flashFile{text: string(data)}
}

// bootflashName is the file name of an SCP destination on bootflash:.
func bootflashName(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, "bootflash:"), "/")
}

// loadConfigFile reads a configuration file as configure replace does:
// every line in its context, as if typed into an empty configuration, the
// header NX-OS prints (comments, `version`) skipped. The first line the
// device refuses fails the load.
func (d *iosDevice) loadConfigFile(text, reject string) (*node, string) {
	root := &node{}
	var ctx iosContext
	depth := []int{}
	for _, raw := range strings.Split(text, "\n") {
		raw = strings.TrimRight(raw, " \r")
		line := strings.TrimLeft(raw, " ")
		if line == "" || strings.HasPrefix(line, "!") || strings.HasPrefix(line, "version ") {
			continue
		}
		indent := len(raw) - len(line)
		for len(depth) > 0 && depth[len(depth)-1] >= indent {
			depth = depth[:len(depth)-1]
			applyConfigLine(d.g, root, &ctx, "exit", d.sameLine, d.rank)
		}
		if reject != "" && strings.Contains(line, reject) {
			return nil, line
		}
		in := len(ctx.path)
		if applyConfigLine(d.g, root, &ctx, line, d.sameLine, d.rank) == invalid {
			return nil, line
		}
		if len(ctx.path) > in {
			depth = append(depth, indent) // the line entered a mode
		}
	}
	return root, ""
}
