package sshsim

import (
	"io"
	"strings"
	"time"

	"github.com/gliderlabs/ssh"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"
)

// handle runs one interactive shell: echo, line editing, command execution
// and the prompt, like a switch's CLI on a PTY.
func (s *Sim) handle(sshSess ssh.Session) {
	conn, _ := sshSess.Context().Value(ssh.ContextKeyConn).(*gossh.ServerConn)
	s.mu.Lock()
	if conn != nil {
		s.conns[conn] = struct{}{}
	}
	s.sessions++
	sess := &session{user: sshSess.User()}
	banner := s.dev.login(sess)
	prompt := s.dev.prompt(sess)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.dev.logout(sess)
		s.releaseLocks(sess)
		if conn != nil {
			delete(s.conns, conn)
		}
		s.mu.Unlock()
	}()

	if cmd := sshSess.RawCommand(); strings.HasPrefix(cmd, "scp ") {
		s.scpSink(sshSess, conn, cmd)
		return
	} else if cmd != "" {
		// `ssh host command`: run it and leave, as exec channels do.
		out := s.run(sess, cmd)
		_, _ = io.WriteString(sshSess, out+"\n")
		_ = sshSess.Exit(0)
		return
	}
	if _, err := io.WriteString(sshSess, banner+prompt); err != nil {
		return
	}
	ld := lineDiscipline{echo: true}
	buf := make([]byte, 4096)
	for {
		n, err := sshSess.Read(buf)
		if n > 0 {
			echo, lines := ld.feed(buf[:n])
			if len(echo) > 0 {
				if _, err := sshSess.Write(echo); err != nil {
					return
				}
			}
			for _, line := range lines {
				out, act := s.answer(sess, line)
				switch act {
				case DropBefore, DropAfter:
					s.log.Debug("dropping connection on fault", zap.String("line", line))
					if conn != nil {
						_ = conn.Close()
					}
					_ = sshSess.Close()
					return
				case Hang:
					// Never answer: read and ignore until the client gives up.
					s.log.Debug("hanging on fault", zap.String("line", line))
					for {
						if _, err := sshSess.Read(buf); err != nil {
							return
						}
					}
				}
				if _, err := io.WriteString(sshSess, out); err != nil {
					return
				}
				if sess.closed {
					_ = sshSess.Exit(0)
					return
				}
				ld.echo = sess.secret == nil
			}
		}
		if err != nil {
			return
		}
	}
}

// answer processes one received line and returns what the terminal shows
// next: the newline of the Enter key, the output and the new prompt. A
// step fault may drop the connection or hang instead (act).
func (s *Sim) answer(sess *session, line string) (out string, act StepAction) {
	faults := s.currentFaults()
	if faults.Delay > 0 {
		time.Sleep(faults.Delay)
	}
	s.mu.Lock()
	if sess.secret != nil {
		defer s.mu.Unlock()
		s.received = append(s.received, "<secret>")
		fn := sess.secret
		sess.secret = nil
		res := fn(line)
		return "\n" + withNewline(res) + s.dev.prompt(sess), 0
	}
	step, stepped := s.stepFor(line)
	if stepped && step.Action == DropBefore {
		s.mu.Unlock()
		return "", DropBefore
	}
	s.received = append(s.received, line)
	if line == "\x03" {
		defer s.mu.Unlock()
		return "\n" + s.dev.prompt(sess), 0
	}
	cut := stepped && (step.Action == DropAfter || step.Action == Hang)
	var res string
	answer, answered := "", false
	for k, v := range faults.Answers {
		if strings.Contains(line, k) {
			answer, answered = v, true
		}
	}
	switch {
	case answered:
		res = answer
	case faults.RejectLine != "" && strings.TrimSpace(line) != "" && strings.Contains(line, faults.RejectLine) && s.opt.Personality != SONiC:
		res = faults.RejectMessage
		if res == "" {
			res = s.dev.invalid(sess, line)
		}
	case cut:
		// The session ends while the line runs: a shell sends its
		// foreground job SIGHUP.
		if c, ok := s.dev.(cuttable); ok {
			res = c.execCut(sess, line)
		} else {
			res = s.dev.exec(sess, line)
		}
	default:
		res = s.dev.exec(sess, line)
	}
	if faults.DropOnLine != "" && strings.Contains(line, faults.DropOnLine) {
		s.faults.DropOnLine = ""
		s.mu.Unlock()
		return "", DropAfter
	}
	if cut {
		s.mu.Unlock()
		return "", step.Action
	}
	switch {
	case sess.closed:
		out = "\n" + withNewline(res)
	case sess.secret != nil:
		// A password prompt ends without a newline.
		out = "\n" + res
	default:
		out = "\n" + s.wrap(sess, withNewline(res)) + s.dev.prompt(sess)
	}
	s.mu.Unlock()
	if stepped && step.Action == Slow {
		time.Sleep(step.Delay)
	}
	return out, 0
}

// cuttable is a personality whose commands behave differently when the
// session ends while they run (a shell's SIGHUP to its foreground job).
type cuttable interface {
	execCut(s *session, line string) string
}

// wrap breaks output lines longer than the session's terminal width, as
// NX-OS does (`terminal width`, 80 columns by default); other
// personalities print lines whole. s.mu must be held.
func (s *Sim) wrap(sess *session, out string) string {
	if s.opt.Personality != NXOS {
		return out
	}
	width := sess.width
	if width == 0 {
		width = nxosDefaultWidth
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		body := strings.TrimSuffix(l, "\n")
		for len(body) > width {
			b.WriteString(body[:width] + "\n")
			body = body[width:]
		}
		b.WriteString(body)
		if strings.HasSuffix(l, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// nxosDefaultWidth is NX-OS's terminal width before `terminal width`:
// Cisco's NX-API CLI reference shows `show terminal` answering "80
// columns" (Nexus 9000 NX-API CLI Reference 9.3(x), Terminal Commands).
const nxosDefaultWidth = 80

// releaseLocks drops the flock locks a closing session held, as the
// kernel does when the shell's file descriptors close. s.mu must be held.
func (s *Sim) releaseLocks(sess *session) {
	for p, holder := range s.locks {
		if holder == sess {
			delete(s.locks, p)
		}
	}
}

// run executes a non-interactive command.
func (s *Sim) run(sess *session, cmd string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = append(s.received, cmd)
	return s.dev.exec(sess, cmd)
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
