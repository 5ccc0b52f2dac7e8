package sshsim

import (
	"strconv"
	"strings"
)

// lockDir is where the Linux personalities keep lock files: /run/lock is
// the world-writable tmpfs the Filesystem Hierarchy Standard reserves for
// lock files, emptied at boot.
const lockDir = "/run/lock/"

// lockShell runs the bash lines a client uses to hold a lock on a Linux
// switch (Cumulus, SONiC) for as long as its shell lives, as flock(1)
// documents it (util-linux: "flock [options] number": the lock is held
// on an open file descriptor and released when it is closed, which the
// kernel does when the shell exits or its connection drops):
//
//	exec 9>>/run/lock/NAME         open descriptor 9 on the file
//	flock -n 9; echo "flock=$?"    try the lock: flock=0 held, flock=1 busy
//	echo 'TEXT' > /run/lock/FILE   record the holder
//	cat /run/lock/FILE             read the holder
//	exec 9>&-                      close the descriptor, releasing the lock
//
// It reports whether the line was one of these. Sim.mu must be held.
func (s *Sim) lockShell(sess *session, line string) (string, bool) {
	switch {
	case strings.HasPrefix(line, "exec "):
		spec := strings.TrimSpace(strings.TrimPrefix(line, "exec "))
		if fd, ok := strings.CutSuffix(spec, ">&-"); ok {
			n, err := strconv.Atoi(fd)
			if err != nil {
				return "-bash: exec: " + spec + ": bad file descriptor", true
			}
			if path, open := sess.fds[n]; open {
				if s.locks[path] == sess {
					delete(s.locks, path)
				}
				delete(sess.fds, n)
			}
			return "", true
		}
		fd, path, ok := strings.Cut(spec, ">>")
		n, err := strconv.Atoi(fd)
		if !ok || err != nil || !strings.HasPrefix(path, lockDir) {
			return "", false
		}
		if sess.fds == nil {
			sess.fds = map[int]string{}
		}
		sess.fds[n] = path
		if _, exists := s.files[path]; !exists {
			s.files[path] = ""
		}
		return "", true
	case strings.HasPrefix(line, "flock -n "):
		fd, tail, _ := strings.Cut(strings.TrimPrefix(line, "flock -n "), ";")
		if strings.TrimSpace(tail) != `echo "flock=$?"` {
			return "", false
		}
		n, err := strconv.Atoi(strings.TrimSpace(fd))
		path, open := sess.fds[n]
		if err != nil || !open {
			return "flock: " + strings.TrimSpace(fd) + ": Bad file descriptor\nflock=64", true
		}
		if holder, held := s.locks[path]; held && holder != sess {
			return "flock=1", true
		}
		s.locks[path] = sess
		return "flock=0", true
	case strings.HasPrefix(line, "echo ") && strings.Contains(line, "> "+lockDir):
		text, path, _ := strings.Cut(strings.TrimPrefix(line, "echo "), "> ")
		s.files[strings.TrimSpace(path)] = strings.Trim(strings.TrimSpace(text), "'\"") + "\n"
		return "", true
	case strings.HasPrefix(line, "cat "+lockDir):
		path := strings.TrimSpace(strings.TrimPrefix(line, "cat "))
		body, ok := s.files[path]
		if !ok {
			return "cat: " + path + ": No such file or directory", true
		}
		return strings.TrimSuffix(body, "\n"), true
	}
	return "", false
}
