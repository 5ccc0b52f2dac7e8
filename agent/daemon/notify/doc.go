// Package notify posts compliance changes to a webhook, as generic JSON or
// in Slack's {"text": ...} form, retrying with backoff off the run's path.
package notify
