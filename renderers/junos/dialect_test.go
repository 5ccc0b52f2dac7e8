package junos

import (
	"strings"
	"testing"
)

func TestPendingCommit(t *testing.T) {
	cases := []struct {
		out     string
		pending bool
		comment string
	}{
		{"0   2024-05-22 10:11:12 UTC by rocefab via cli commit confirmed, rollback in 9mins\n    rocefab-run1-ab12\n1   2024-05-21 09:00:00 UTC by admin via cli\n", true, "rocefab-run1-ab12"},
		{"0   2024-05-22 10:11:12 UTC by rocefab via cli\n    rocefab-x\n", false, "rocefab-x"},
		{"0   2024-05-22 10:11:12 UTC by admin via cli\n1   2024-05-21 09:00:00 UTC by admin via cli\n", false, "no comment"},
		{"", false, "no comment"},
	}
	for _, tc := range cases {
		if got := commitPending(tc.out); got != tc.pending {
			t.Errorf("commitPending(%q) = %v, want %v", tc.out, got, tc.pending)
		}
		if got := pendingComment(tc.out); got != tc.comment {
			t.Errorf("pendingComment(%q) = %q, want %q", tc.out, got, tc.comment)
		}
	}
}

// FuzzPendingComment: any `show system commit` output gives a one-line
// comment.
func FuzzPendingComment(f *testing.F) {
	f.Add("0   2024-05-22 10:11:12 UTC by rocefab via cli commit confirmed, rollback in 9mins\n    rocefab-1\n1 ...")
	f.Add("\n\n  \t\n")
	f.Fuzz(func(t *testing.T, out string) {
		_ = commitPending(out)
		if c := pendingComment(out); strings.Contains(c, "\n") || c == "" {
			t.Fatalf("comment %q", c)
		}
	})
}
