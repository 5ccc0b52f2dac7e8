// Package engine runs plan, apply, drift and rollback across a fleet: it
// renders, fetches through drivers, diffs, pushes safely and keeps an audit
// trail. The CLI, the daemon and the demo all use it.
package engine
