package wire

import (
	"errors"
	"strconv"
)

// Sentinel errors; decoding wraps them in *Error so errors.Is works.
var (
	ErrTruncated     = errors.New("truncated")
	ErrBadVersion    = errors.New("unsupported version")
	ErrUnknownOpcode = errors.New("unknown opcode")
	ErrMalformed     = errors.New("malformed")
	ErrBadICRC       = errors.New("ICRC mismatch")
	ErrNotRoCE       = errors.New("not a RoCEv2 packet")
)

// Error carries the sentinel and the detail of one decode failure.
type Error struct {
	Kind   error  // one of the Err* sentinels
	Detail string // human detail, e.g. "RETH needs 16 bytes at offset 12, have 4"
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "roce: " + e.Kind.Error()
	}
	return "roce: " + e.Kind.Error() + ": " + e.Detail
}

func (e *Error) Unwrap() error { return e.Kind }

func truncated(what string, off, need, have int) error {
	return &Error{Kind: ErrTruncated, Detail: what + " needs " + strconv.Itoa(need) +
		" bytes at offset " + strconv.Itoa(off) + ", have " + strconv.Itoa(have)}
}
