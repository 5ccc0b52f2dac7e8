// Package daemon is `rocefab agent`: it follows the intent in git, checks
// drift and runs the probe on schedules, plans (or carefully applies) each
// new commit, keeps a run history, collects PFC/ECN counters, notifies on
// compliance changes and serves health, metrics and a JSON API.
package daemon
