// Package intentsrc gives the agent the current version of the intent: a
// local folder re-read on each update, or a git branch or tag fetched with
// go-git into the state directory (HTTPS token or SSH key, host keys checked).
package intentsrc
