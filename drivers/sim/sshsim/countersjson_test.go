package sshsim

import (
	"encoding/json"
	"strings"
	"testing"
)

// at walks a decoded JSON value by object keys and array indexes ("0").
func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := int(p[0] - '0')
			if i >= len(x) {
				t.Fatalf("index %s beyond %d at %v", p, len(x), path)
			}
			v = x[i]
		default:
			t.Fatalf("%v: %T at %s", path, v, p)
		}
	}
	return v
}

func decoded(t *testing.T, out string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return v
}

// TestJSONCountersMoveOnJumpOnly: each platform's JSON counter commands
// answer in the documented shape, with what Jump added and nothing else.
func TestJSONCountersMoveOnJumpOnly(t *testing.T) {
	type check struct {
		line string
		path []string
		want any
	}
	for _, tc := range []struct {
		p      Personality
		port   string
		checks []check
	}{
		{NXOS, "Ethernet1/5", []check{
			{"show queuing interface Ethernet1/5 | json", []string{"TABLE_module", "ROW_module", "TABLE_queuing_interface", "ROW_queuing_interface", "1", "TABLE_pfc_stats", "ROW_pfc_stats", "3", "rx-pause-count"}, "1204"},
			{"show queuing interface Ethernet1/5 | json", []string{"TABLE_module", "ROW_module", "TABLE_queuing_interface", "ROW_queuing_interface", "1", "TABLE_pfc_stats", "ROW_pfc_stats", "3", "tx-pause-count"}, "0"},
			{"show queuing interface Ethernet1/5 | json", []string{"TABLE_module", "ROW_module", "TABLE_queuing_interface", "ROW_queuing_interface", "0", "TABLE_qosgrp_egress_stats", "ROW_qosgrp_egress_stats", "3", "TABLE_qosgrp_egress_stats_entry", "ROW_qosgrp_egress_stats_entry", "4", "eq-uc-stat-value"}, "35"},
			{"show queuing pfc-queue interface Ethernet1/5 detail | json", []string{"TABLE_module", "ROW_module", "TABLE_queuing_interface", "ROW_queuing_interface", "TABLE_qosgrp_stats", "ROW_qosgrp_stats", "0", "TABLE_qosgrp_stats_entry", "ROW_qosgrp_stats_entry", "0", "q-shutdown"}, "2"},
		}},
		{EOS, "Ethernet5", []check{
			{"show interfaces Ethernet5 priority-flow-control counters detail | json", []string{"interfaces", "Ethernet5", "priorities", "3", "rxFrames"}, 1204.0},
			{"show interfaces Ethernet5 priority-flow-control counters detail | json", []string{"interfaces", "Ethernet5", "priorities", "4", "rxFrames"}, 0.0},
			{"show priority-flow-control counters watchdog | json", []string{"interfaces", "Ethernet5", "txQueues", "3", "stuckCount"}, 2.0},
			{"show qos interfaces ecn counters queue | json", []string{"intfQueueCounters", "Ethernet5", "queueCounters", "3"}, "35"},
			{"show qos interfaces ecn counters queue | json", []string{"intfQueueCounters", "Ethernet5", "queueCounters", "0"}, "-"},
			{"show interfaces counters queue detail | json", []string{"egressQueueCounters", "interfaces", "Ethernet5", "ucastQueues", "trafficClasses", "TC3", "dropPrecedences", "DP0", "droppedPackets"}, 6.0},
		}},
		{Cumulus, "swp5", []check{
			{"nv show interface swp5 counters qos -o json", []string{"pfc-stats", "3", "rx-pause-frames"}, 1204.0},
			{"nv show interface swp5 counters qos -o json", []string{"egress-queue-stats", "3", "ecn-marked-frames"}, 35.0},
			{"nv show interface swp5 counters qos -o json", []string{"egress-queue-stats", "3", "tx-uc-buffer-discards"}, 6.0},
		}},
		{Junos, "et-0/0/5", []check{
			{"show interfaces et-0/0/5 extensive | display json", []string{"interface-information", "0", "physical-interface", "0", "ethernet-mac-pfc-statistics", "3", "input-mac-pfc-frames", "0", "data"}, "1204"},
			{"show interfaces queue et-0/0/5 | display json", []string{"interface-information", "0", "physical-interface", "0", "queue-counters", "0", "queue", "3", "queue-counters-total-drop-packets", "0", "data"}, "6"},
			{"show interfaces queue et-0/0/5 | display json", []string{"interface-information", "0", "physical-interface", "0", "name", "0", "data"}, "et-0/0/5"},
		}},
	} {
		t.Run(string(tc.p), func(t *testing.T) {
			sim := startSim(t, Options{Personality: tc.p, Hostname: "sw1", Blank: true})
			c := newConsole(t, sim)
			if tc.p == EOS {
				c.do("enable")
			}
			// Before any Jump, the watched counters read zero (EOS lists no
			// watchdog interface at all).
			if out := c.do("show priority-flow-control counters watchdog | json"); tc.p == EOS && strings.TrimSpace(strings.Join(strings.Fields(out), "")) != `{"interfaces":{}}` {
				t.Fatalf("watchdog before any event: %s", out)
			}
			sim.Jump(tc.port, 3, PFCRxFrames, 1200)
			sim.Jump(tc.port, 3, PFCRxFrames, 4)
			sim.Jump(tc.port, 3, ECNMarked, 35)
			sim.Jump(tc.port, 3, QueueDrops, 6)
			sim.Jump(tc.port, 3, WatchdogStorms, 2)
			for _, ch := range tc.checks {
				out := c.do(ch.line)
				if got := at(t, decoded(t, out), ch.path...); got != ch.want {
					t.Errorf("%s %v = %#v, want %#v", ch.line, ch.path, got, ch.want)
				}
			}
		})
	}
}

func TestJSONCountersRefuseBadPorts(t *testing.T) {
	for p, line := range map[Personality]string{
		NXOS:    "show queuing interface Bogus9 | json",
		Junos:   "show interfaces queue bogus | display json",
		Cumulus: "nv show interface eth9x counters qos -o json",
	} {
		sim := startSim(t, Options{Personality: p, Hostname: "sw1", Blank: true})
		out := newConsole(t, sim).do(line)
		if json.Valid([]byte(out)) {
			t.Errorf("%s answered %q with JSON: %s", p, line, out)
		}
	}
}
