package gnmi

import (
	"encoding/json"
	"fmt"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
)

// sonicNotifications are one SONiC switch's answer to one sample of the
// counter paths rocefab asks for, as sonic-gnmi sends it (target
// COUNTERS_DB; a port field as string_val, a port's Queues and Pfcwd as
// JSON objects keyed "port:queue"), for ports × 8 priorities.
func sonicNotifications(ports int, round int) []*gnmipb.Notification {
	prefix := &gnmipb.Path{Target: "COUNTERS_DB"}
	var out []*gnmipb.Notification
	for p := range ports {
		port := fmt.Sprintf("Ethernet%d", p*4)
		n := &gnmipb.Notification{Timestamp: int64(round), Prefix: prefix}
		queues, pfcwd := map[string]map[string]string{}, map[string]map[string]string{}
		for prio := range 8 {
			for _, dir := range []string{"RX", "TX"} {
				n.Update = append(n.Update, &gnmipb.Update{
					Path: &gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "COUNTERS"}, {Name: port}, {Name: fmt.Sprintf("SAI_PORT_STAT_PFC_%d_%s_PKTS", prio, dir)}}},
					Val:  &gnmipb.TypedValue{Value: &gnmipb.TypedValue_StringVal{StringVal: fmt.Sprint(round * 1000)}},
				})
			}
			key := fmt.Sprintf("%s:%d", port, prio)
			queues[key] = map[string]string{"SAI_QUEUE_STAT_PACKETS": fmt.Sprint(round * 5000), "SAI_QUEUE_STAT_DROPPED_PACKETS": "0",
				"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": fmt.Sprint(round * 30)}
			pfcwd[key] = map[string]string{"PFC_WD_STATUS": "operational", "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": "0"}
		}
		for name, v := range map[string]any{"Queues": queues, "Pfcwd": pfcwd} {
			raw, _ := json.Marshal(v)
			n.Update = append(n.Update, &gnmipb.Update{
				Path: &gnmipb.Path{Elem: []*gnmipb.PathElem{{Name: "COUNTERS"}, {Name: port}, {Name: name}}},
				Val:  &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}},
			})
		}
		out = append(out, n)
	}
	return out
}

// BenchmarkDecodeSONiCRound1000 is the driver's share of a 1,000-switch
// sample round: decoding 1,000 SONiC switches × 64 ports × 8 priorities
// of COUNTERS_DB notifications (2.9 million counters) into counters, as
// the streams do before the agent stores them. Run with -cpu 1.
func BenchmarkDecodeSONiCRound1000(b *testing.B) {
	const switches = 1000
	ns := sonicNotifications(64, 1) // every switch sends the same shape
	b.ReportAllocs()
	total := 0
	for b.Loop() {
		total = 0
		for range switches {
			for _, n := range ns {
				total += len(notificationCounters(n))
			}
		}
	}
	if total != switches*64*8*6 {
		b.Fatalf("decoded %d counters, want %d", total, switches*64*8*6)
	}
	b.ReportMetric(float64(total), "counters/round")
}
