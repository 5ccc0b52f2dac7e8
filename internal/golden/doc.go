// Package golden compares test output with files under testdata and rewrites
// them when tests run with -update. The flag is declared here once.
package golden
