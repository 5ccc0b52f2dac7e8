// Package demo embeds the fabric template that `rocefab demo` runs, so the
// binary carries it wherever it is built or copied.
package demo
