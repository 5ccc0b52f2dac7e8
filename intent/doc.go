// Package intent is the fabric intent: its schema, loading from YAML files
// with file:line:col for every field, merging, defaults and resolution into
// one flat model per device (fabric < group < device).
package intent
