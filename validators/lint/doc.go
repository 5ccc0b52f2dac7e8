// Package lint checks a resolved intent against rules with stable codes
// (RF1xx); the loader's codes (RF0xx) share the same diagnostic format.
package lint
