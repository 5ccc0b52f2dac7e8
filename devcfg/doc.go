// Package devcfg is the shared device-configuration model: renderers produce
// it, running configs are parsed into it, and the diff compares two of them.
// It imports nothing else from rocefab, so drivers can depend on it alone.
package devcfg
