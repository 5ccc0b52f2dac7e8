// Package mesh turns the intent into probe work: which host pairs to probe
// (from the cabling, or listed), the policy each pair is judged by, and one
// report for the whole fabric.
package mesh
