//go:build !linux

package transport

import "time"

// ICMPListener is unavailable off Linux.
type ICMPListener struct{}

// ListenICMP reports ErrUnsupported off Linux.
func ListenICMP(bool) (*ICMPListener, error) { return nil, ErrUnsupported }

func (*ICMPListener) Read([]byte, time.Time) (ICMPError, error) { return ICMPError{}, ErrUnsupported }
func (*ICMPListener) Close() error                              { return nil }

// SetTTL reports ErrUnsupported off Linux.
func SetTTL(Conn, int) error { return ErrUnsupported }
