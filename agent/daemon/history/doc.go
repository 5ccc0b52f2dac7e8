// Package history keeps the agent's runs (plan, drift, apply, probe,
// reload) with their per-device statuses and diffs in a bbolt file, pruned
// by age and count, plus the last known state of every device.
package history
