// Package netnstest builds throwaway network namespaces, veth pairs and small
// routed topologies for tests, and always removes them again.
//
// Names are unique per process and per call, so tests may run in parallel and
// in several packages at once. Set ROCEFAB_REQUIRE_NETNS=1 (CI does) to turn
// the "needs root" and missing-tool (RequireTool) skips into failures, so the
// end-to-end tests cannot silently stop running.
package netnstest
