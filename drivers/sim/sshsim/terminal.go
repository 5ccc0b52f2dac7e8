package sshsim

import "bytes"

// maxLineLen bounds one input line; longer input is cut, as a terminal's
// line buffer would.
const maxLineLen = 64 * 1024

// lineDiscipline turns the raw bytes a client types into complete lines and
// the echo a terminal prints back, like a PTY in canonical mode with echo.
type lineDiscipline struct {
	buf  []byte
	echo bool
	// lastCR remembers a carriage return so the "\n" of "\r\n" does not
	// end a second, empty line.
	lastCR bool
}

// feed consumes input and returns the echo to print and the completed lines.
func (l *lineDiscipline) feed(in []byte) (echo []byte, lines []string) {
	var out bytes.Buffer
	for _, c := range in {
		if c == '\n' && l.lastCR {
			l.lastCR = false
			continue
		}
		l.lastCR = c == '\r'
		switch {
		case c == '\r' || c == '\n':
			lines = append(lines, string(l.buf))
			l.buf = l.buf[:0]
			// The response writer starts with the newline the Enter key
			// echoes, so nothing is echoed here.
		case c == 0x7f || c == 0x08: // backspace
			if len(l.buf) > 0 {
				l.buf = l.buf[:len(l.buf)-1]
				if l.echo {
					out.WriteString("\b \b")
				}
			}
		case c == 0x03: // Ctrl-C abandons the line
			l.buf = l.buf[:0]
			if l.echo {
				out.WriteString("^C")
			}
			lines = append(lines, "\x03")
		case c == 0x15: // Ctrl-U clears the line
			l.buf = l.buf[:0]
		case c == '\t':
			if len(l.buf) < maxLineLen {
				l.buf = append(l.buf, ' ')
				if l.echo {
					out.WriteByte(' ')
				}
			}
		case c < 0x20:
			// Other control characters are ignored.
		default:
			if len(l.buf) < maxLineLen {
				l.buf = append(l.buf, c)
				if l.echo {
					out.WriteByte(c)
				}
			}
		}
	}
	return out.Bytes(), lines
}
