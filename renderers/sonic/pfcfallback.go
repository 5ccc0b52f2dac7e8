package sonic

import (
	_ "embed"
	"slices"
	"strconv"
	"text/template"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

//go:embed pfcfallback.tmpl
var fallbackTemplate string

// Watchdog range (milliseconds) and default of the fallback.
const (
	fallbackWDDefault    = 200
	fallbackWDDetectMin  = 100
	fallbackWDDetectMax  = 5000
	fallbackWDRestoreMin = 100
	fallbackWDRestoreMax = 60000
)

// PFCFallback carries SONiC's PFC as CONFIG_DB fields under origin
// sonic-db. Only sonic-gnmi serves that origin, and it takes one origin
// per SetRequest, so a target refuses it beside OpenConfig (NoPFCFallback,
// Target); it is kept so the plan says so.
var PFCFallback = renderers.PFCFallback{
	Origin:             Origin,
	Template:           template.Must(template.New("sonic").Parse(fallbackTemplate)),
	Prepare:            fallbackWatchdog,
	RendersCableLength: true,
	Scope: func(s *devcfg.Scope, ports []string, marker string) {
		for _, t := range []string{"MAP_PFC_PRIORITY_TO_QUEUE", "TC_TO_PRIORITY_GROUP_MAP", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"} {
			s.PathPrefixes = append(s.PathPrefixes, renderers.OriginPath(Origin, t, marker))
		}
		for _, port := range ports {
			for _, f := range []string{"pfc_enable", "pfc_to_queue_map", "tc_to_pg_map", "pfc_to_pg_map", "pfcwd_sw_enable"} {
				s.Paths = append(s.Paths, renderers.OriginPath(Origin, "PORT_QOS_MAP", port, f))
			}
			for pg := 1; pg < 8; pg++ {
				s.Paths = append(s.Paths, renderers.OriginPath(Origin, "BUFFER_PG", port+"|"+strconv.Itoa(pg)))
			}
			s.Paths = append(s.Paths, renderers.OriginPath(Origin, "PFC_WD", port), renderers.OriginPath(Origin, "CABLE_LENGTH", "AZURE", port))
		}
	},
	Target: func(models []string) (string, string) {
		if slices.Contains(models, Origin) {
			return "", "the target is sonic-gnmi (it advertises the sonic-db model), which takes one origin per SetRequest"
		}
		return "", "the target does not advertise the sonic-db model"
	},
	Sources: renderers.Sourced(
		`sonic-db:/(MAP_PFC_PRIORITY_TO_QUEUE|TC_TO_PRIORITY_GROUP_MAP|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/ROCEFAB/\d`, fallbackSource,
		`sonic-db:/PORT_QOS_MAP/\S+/(pfc_enable|pfc_to_queue_map|tc_to_pg_map|pfc_to_pg_map|pfcwd_sw_enable)|sonic-db:/BUFFER_PG/\S+\|\d/profile|sonic-db:/CABLE_LENGTH/AZURE/\S+|sonic-db:/PFC_WD/\S+/(action|detection_time|restoration_time)`, fallbackSource),
}

const fallbackSource = "sonic fallback, origin sonic-db as sonic-net/sonic-gnmi serves CONFIG_DB; sonic-yang-models sonic-pfc-priority-queue-map.yang, sonic-tc-priority-group-map.yang, sonic-pfc-priority-priority-group-map.yang, sonic-port-qos-map.yang (pfc_enable, pfc_to_queue_map, tc_to_pg_map, pfc_to_pg_map, pfcwd_sw_enable), sonic-buffer-pg.yang (profile NULL: buffermgrd's dynamic model computes the lossless profile), sonic-cable-length.yang, sonic-pfcwd.yang (action, detection_time 100..5000, restoration_time 100..60000)"

// fallbackWatchdog sets the watchdog in CONFIG_DB's units: milliseconds.
func fallbackWatchdog(sw *intent.Switch, d *renderers.FallbackData, _ *devcfg.Config) error {
	w := sw.Policy.Watchdog
	if !w.Enabled {
		return nil
	}
	d.WatchdogAction = w.Action
	if d.WatchdogAction == "" {
		d.WatchdogAction = "drop"
	}
	var err error
	if d.DetectionMillis, err = renderers.WatchdogMillis("SONiC", "detection", w.Detection, fallbackWDDefault, fallbackWDDetectMin, fallbackWDDetectMax); err != nil {
		return err
	}
	if d.RestorationMillis, err = renderers.WatchdogMillis("SONiC", "restoration", w.Restoration, fallbackWDDefault, fallbackWDRestoreMin, fallbackWDRestoreMax); err != nil {
		return err
	}
	return nil
}
