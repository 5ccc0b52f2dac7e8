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
		if conn != nil {
			delete(s.conns, conn)
		}
		s.mu.Unlock()
	}()

	if cmd := sshSess.RawCommand(); cmd != "" {
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
				out, drop := s.answer(sess, line)
				if drop {
					s.log.Debug("dropping connection on fault", zap.String("line", line))
					if conn != nil {
						_ = conn.Close()
					}
					_ = sshSess.Close()
					return
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
// next: the newline of the Enter key, the output and the new prompt.
func (s *Sim) answer(sess *session, line string) (out string, drop bool) {
	faults := s.currentFaults()
	if faults.Delay > 0 {
		time.Sleep(faults.Delay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess.secret != nil {
		s.received = append(s.received, "<secret>")
		fn := sess.secret
		sess.secret = nil
		res := fn(line)
		return "\n" + withNewline(res) + s.dev.prompt(sess), false
	}
	s.received = append(s.received, line)
	if line == "\x03" {
		return "\n" + s.dev.prompt(sess), false
	}
	var res string
	if faults.RejectLine != "" && strings.TrimSpace(line) != "" && strings.Contains(line, faults.RejectLine) && s.opt.Personality != SONiC {
		res = faults.RejectMessage
		if res == "" {
			res = s.dev.invalid(sess, line)
		}
	} else {
		res = s.dev.exec(sess, line)
	}
	if faults.DropOnLine != "" && strings.Contains(line, faults.DropOnLine) {
		s.faults.DropOnLine = ""
		return "", true
	}
	if sess.closed {
		return "\n" + withNewline(res), false
	}
	if sess.secret != nil {
		// A password prompt ends without a newline.
		return "\n" + res, false
	}
	return "\n" + withNewline(res) + s.dev.prompt(sess), false
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
