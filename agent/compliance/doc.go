// Package compliance diffs a desired device model against the running one:
// hierarchical, order-insensitive, limited to what rocefab owns, with each
// change classed by its effect on traffic.
package compliance
