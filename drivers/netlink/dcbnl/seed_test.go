package dcbnl

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWriteSeedCorpus regenerates testdata/fuzz/FuzzParseReply under
// ROCEFAB_WRITE_SEEDS=1; otherwise it checks the corpus is committed.
func TestWriteSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzParseReply")
	seeds := map[string][]byte{
		"kernel-ieee-get":       kernelGetReply(),
		"kernel-ieee-get-peer":  kernelPeerReply(),
		"request-ieee-get":      GetIEEE("eth0"),
		"request-sdcbx":         SetDCBX("eth0", DCBXHost|DCBXVerIEEE),
		"set-status-eopnotsupp": append([]byte{0, CmdIEEESet, 0, 0}, attr(AttrIEEE, []byte{0xa1})...),
		"gdcbx-reply":           append([]byte{0, CmdGDCBX, 0, 0}, attr(AttrDCBX, []byte{0x0a})...),
		"truncated":             kernelGetReply()[:50],
	}
	if os.Getenv("ROCEFAB_WRITE_SEEDS") == "1" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name := range seeds {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("seed %s missing (run with ROCEFAB_WRITE_SEEDS=1): %v", name, err)
		}
	}
}
