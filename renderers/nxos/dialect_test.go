package nxos

import (
	"strings"
	"testing"
)

const summary = `User Checkpoint Summary
--------------------------------------------------------------------------------
1) system-fm-vrrp:
Created by admin
Created at Wed, 10:11:12 22 May 2024
Size is 24,816 bytes
Description: None

2) rocefab:
Created by rocefab
Created at Wed, 10:12:00 22 May 2024
Size is 25,001 bytes
Description: run 20240522T101200.000000Z-ab on ops1 pid 42
`

func TestCheckpointDescription(t *testing.T) {
	cases := []struct{ out, name, want string }{
		{summary, "rocefab", "run 20240522T101200.000000Z-ab on ops1 pid 42"},
		{summary, "system-fm-vrrp", "None"},
		{summary, "other", "another run"},
		{"1) rocefab:\nCreated by admin\n", "rocefab", "a checkpoint without description"},
		{"", "rocefab", "another run"},
	}
	for _, tc := range cases {
		if got := checkpointDescription(tc.out, tc.name); got != tc.want {
			t.Errorf("checkpointDescription(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// FuzzCheckpointDescription: any summary gives a one-line holder, read
// from a Description line or said to be unknown.
func FuzzCheckpointDescription(f *testing.F) {
	f.Add(summary)
	f.Add("1) rocefab:\nDescription:\n")
	f.Fuzz(func(t *testing.T, out string) {
		got := checkpointDescription(out, checkpoint)
		if strings.Contains(got, "\n") {
			t.Fatalf("description spans lines: %q", got)
		}
		if !strings.Contains(out, "Description:") && got != "another run" && got != "a checkpoint without description" {
			t.Fatalf("no description in the output, yet %q", got)
		}
	})
}
