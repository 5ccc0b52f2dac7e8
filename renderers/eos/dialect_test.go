package eos

import (
	"strings"
	"testing"
	"time"
)

const sessionsOut = `Maximum number of completed sessions: 1
Maximum number of pending sessions: 5

   Name                              State                 User    Terminal
   --------------------------------- --------------------- ------- --------
   rocefab-20240522-101200-abcdef    pendingCommitTimer    rocefab vty3
 * rocefab-20240522-101300-123456    pending               rocefab vty4
   mine                              completed
`

func TestSessions(t *testing.T) {
	got := sessions(sessionsOut)
	want := []configSession{
		{"rocefab-20240522-101200-abcdef", "pendingCommitTimer"},
		{"rocefab-20240522-101300-123456", "pending"},
		{"mine", "completed"},
	}
	if len(got) != len(want) {
		t.Fatalf("sessions = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("session %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := sessions("no table here\n"); len(s) != 0 {
		t.Errorf("no header, yet sessions %+v", s)
	}
}

func TestHMS(t *testing.T) {
	for secs, want := range map[int64]string{1: "00:00:01", 61: "00:01:01", 3600: "01:00:00", 86399: "23:59:59"} {
		if got := hms(secs); got != want {
			t.Errorf("hms(%d) = %q, want %q", secs, got, want)
		}
	}
	if got := hms(int64((90 * time.Minute).Seconds())); got != "01:30:00" {
		t.Errorf("hms(90m) = %q", got)
	}
}

// FuzzSessions: every session read has a name and a state, none of them
// blank or holding spaces.
func FuzzSessions(f *testing.F) {
	f.Add(sessionsOut)
	f.Add("---\n*\n* x\n")
	f.Fuzz(func(t *testing.T, out string) {
		for _, s := range sessions(out) {
			if s.name == "" || s.state == "" || strings.ContainsAny(s.name+s.state, " \t\n") {
				t.Fatalf("session %+v from %q", s, out)
			}
		}
	})
}
