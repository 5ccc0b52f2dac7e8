// Package examplestest loads the repository's example intents (examples/)
// for tests, so test packages share one copy of the loading code.
package examplestest
