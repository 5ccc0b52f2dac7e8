package renderers

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/intent"
)

// Renderer renders the complete lossless configuration of one switch.
type Renderer interface {
	Render(sw *intent.Switch) (*devcfg.Config, error)
}

// Attributes are a platform's facts, as data: what its driver needs, what
// lint checks, and how its changes affect traffic.
type Attributes struct {
	// Platform is handed to the driver: scrapligo name, commit style,
	// CLI error strings, syntax, Parse and Normalise.
	Platform devcfg.Platform
	// Transports the platform supports; the first is the default.
	Transports []string
	// MTUCeiling is the platform's jumbo maximum as an L3 MTU; intent MTU
	// "max" renders it, and a larger number is a lint error.
	MTUCeiling int
	// PortPattern matches valid port names; PortExample shows one.
	PortPattern *regexp.Regexp
	PortExample string
	// MaxNoDropPriorities is how many lossless priorities the platform takes.
	MaxNoDropPriorities int
	// Singletons lists the device-wide settings the renderer claims.
	Singletons []string
	// Settings is the platform's own section of a switch or group, under
	// the key named after the platform; nil: the platform takes none (lint
	// refuses the key).
	Settings *Settings
	// NeedsQueueBuffer reports whether the switch's section of the
	// platform lacks the queue buffer size its ECN thresholds need (Junos
	// takes them as a percentage of it); nil: the platform needs none.
	NeedsQueueBuffer func(sw *intent.Switch) bool
	// QueueBufferHint is what lint says when NeedsQueueBuffer does.
	QueueBufferHint string
	// SingleOriginModels are gNMI models whose servers take one origin per
	// SetRequest: the gnmi driver refuses a SetRequest mixing origins to
	// any target advertising one, whatever platform the switch is managed
	// as (an OpenConfig switch may run on such a server).
	SingleOriginModels []string
	// PFCFallback is how an OpenConfig switch of this OS carries its
	// native PFC (openconfig.pfcFallback.platform names it); nil: it
	// cannot.
	PFCFallback *PFCFallback
	// NoPFCFallback is why an OpenConfig switch of this OS cannot carry
	// its PFC after all (lint warns); "" when it can.
	NoPFCFallback string
	// NeedsPFCFallback: the platform has no PFC model (OpenConfig).
	NeedsPFCFallback bool
	// Classify says whether a change is traffic-affecting, and why.
	Classify func(devcfg.Change) (devcfg.Disruption, string)
	// Encode is the device-native text of a rendered config (CLI, set
	// statements, config_db JSON, gNMI JSON), as `rocefab render` writes it
	// and golden files record it. It must be deterministic.
	Encode func(*devcfg.Config) ([]byte, error)
	// FileExt is the extension of rendered files, e.g. ".cfg" or ".json".
	FileExt string
	// Sources cite the vendor source of every statement form the renderer
	// emits (see Source); nil for platforms without a table yet.
	Sources []Source
	// Watchdog says how the platform takes the PFC watchdog's times, so
	// lint refuses a time the platform cannot express at validate time;
	// nil: the platform declares nothing (lint checks nothing).
	Watchdog *WatchdogTimes
	// Headroom is what the platform contributes to the PFC headroom
	// calculation (its default cable length, whether it renders computed
	// headroom); nil: the generic defaults.
	Headroom *HeadroomFacts
	// LAGNumbers is the range of port-channel numbers the platform takes;
	// nil: the platform renders no numbered port-channels.
	LAGNumbers *LAGNumbers
	// Fit, when set, fits a rendered config to the device it is planned
	// for, before the diff: running is the whole parsed running config with
	// its Facts. Fit may rewrite desired (its Paths, Owned scope and Notes,
	// e.g. for SONiC's buffer model); an error refuses the device, naming
	// what the device lacks (e.g. ports its PORT table does not have).
	Fit func(sw *intent.Switch, desired, running *devcfg.Config) error
	// LLDP is how the cabling check reads the platform's LLDP neighbours
	// (the command or gNMI Get, the parser, its citation); nil: the
	// generic readers (lldpcli, openconfig-lldp) or none.
	LLDP *observe.LLDP
	// ShowCounters are the show commands, with their parsers, that read
	// the platform's RoCE counters over SSH; nil: not read that way.
	ShowCounters observe.CounterCommands
	// CounterPaths are the gNMI leaves of the platform's RoCE counters;
	// nil: OpenConfig's (validators/doctor/counters).
	CounterPaths observe.CounterPaths
	// ShowCounterSources cite each show command's JSON shape, by command.
	ShowCounterSources map[string]string
}

// Settings describe a platform's section of a switch or group.
type Settings struct {
	// New returns a pointer to an empty value of the section: a schema
	// struct (yaml tags, an embedded intent.Src, intent's units) that
	// intent.Section.Decode fills and the intent reference documents.
	New func() any
}

// Decode decodes a section into a new value, with the loader's
// diagnostics (file, line, field).
func (s *Settings) Decode(sec intent.Section) (any, intent.Diagnostics) {
	v := s.New()
	return v, sec.Decode(v)
}

// Entry is one registered platform.
type Entry struct {
	Name    string
	Aliases []string
	New     func() Renderer
	Attrs   Attributes
}

// DefaultTransport is the platform's first transport.
func (e *Entry) DefaultTransport() string {
	if len(e.Attrs.Transports) == 0 {
		return ""
	}
	return e.Attrs.Transports[0]
}

// Transport is the switch's transport, or the platform default.
func (e *Entry) Transport(sw *intent.Switch) string {
	if sw.Transport != "" {
		return sw.Transport
	}
	return e.DefaultTransport()
}

// SupportsTransport reports whether t is in the platform's matrix.
func (e *Entry) SupportsTransport(t string) bool {
	for _, x := range e.Attrs.Transports {
		if x == t {
			return true
		}
	}
	return false
}

// SwitchMTU is the L3 MTU to render: the ceiling for "max", else the value.
func (e *Entry) SwitchMTU(p intent.Policy) int { return SwitchMTU(p, e.Attrs.MTUCeiling) }

// Headroom is the PFC headroom of every lossless port of sw on this
// platform.
func (e *Entry) Headroom(sw *intent.Switch) SwitchHeadroom {
	return Headroom(sw, e.Attrs.Headroom, e.Attrs.MTUCeiling)
}

// Registry holds the platforms. It is a value, not a global, so tests can
// build their own.
type Registry struct {
	byName map[string]*Entry
	names  []string // primary names, sorted
}

// ErrUnknownPlatform is returned for a platform nobody registered.
var ErrUnknownPlatform = errors.New("unknown platform")

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]*Entry{}} }

// Register adds a platform under its name and aliases. A name already
// taken is an error.
func (r *Registry) Register(e Entry) error {
	if e.Name == "" || e.New == nil {
		return fmt.Errorf("renderers: platform entry needs a name and a constructor")
	}
	e.Attrs.Platform.Name = e.Name
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		if _, dup := r.byName[n]; dup {
			return fmt.Errorf("renderers: platform %q registered twice", n)
		}
	}
	entry := &e
	for _, n := range append([]string{e.Name}, e.Aliases...) {
		r.byName[n] = entry
	}
	r.names = append(r.names, e.Name)
	sort.Strings(r.names)
	return nil
}

// Lookup returns the platform, or an error listing the known ones.
func (r *Registry) Lookup(name string) (*Entry, error) {
	if e, ok := r.byName[name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownPlatform, name, strings.Join(r.names, ", "))
}

// SingleOriginModels gathers every platform's SingleOriginModels, sorted.
func (r *Registry) SingleOriginModels() []string {
	var out []string
	for _, n := range r.names {
		for _, m := range r.byName[n].Attrs.SingleOriginModels {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out
}

// SectionDecoders are the platforms that take a section, by name, each
// decoding it as lint checks it (intent.CheckSections).
func (r *Registry) SectionDecoders() map[string]intent.SectionDecoder {
	out := map[string]intent.SectionDecoder{}
	for _, n := range r.names {
		if s := r.byName[n].Attrs.Settings; s != nil {
			out[n] = func(sec intent.Section) intent.Diagnostics {
				_, diags := s.Decode(sec)
				return diags
			}
		}
	}
	return out
}

// Names returns the primary platform names, sorted.
func (r *Registry) Names() []string { return append([]string(nil), r.names...) }

// Render renders one switch through its platform.
func (r *Registry) Render(sw *intent.Switch) (*devcfg.Config, error) {
	e, err := r.Lookup(sw.Platform)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sw.Name, err)
	}
	cfg, err := e.New().Render(sw)
	if err != nil {
		return nil, fmt.Errorf("%s: render %s: %w", sw.Name, sw.Platform, err)
	}
	cfg.Device, cfg.Platform = sw.Name, e.Name
	// The plan shows what every lossless port needs, whatever the
	// platform renders of it.
	cfg.Notes = append(cfg.Notes, e.Headroom(sw).Notes(sw.Policy)...)
	return cfg, nil
}

// ClassifyByKeywords marks a change traffic-affecting when its location
// contains one of the keywords, with the keyword's reason. Platforms use it
// for MTU, PFC and buffer changes, which flap links or drop traffic.
func ClassifyByKeywords(rules map[string]string) func(devcfg.Change) (devcfg.Disruption, string) {
	keys := make([]string, 0, len(rules))
	for k := range rules {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return func(c devcfg.Change) (devcfg.Disruption, string) {
		where := strings.ToLower(c.Where() + " " + c.Old + " " + c.New + " " + blockText(c.Block))
		for _, k := range keys {
			if strings.Contains(where, strings.ToLower(k)) {
				return devcfg.TrafficAffecting, rules[k]
			}
		}
		return devcfg.Hitless, ""
	}
}

func blockText(nodes []*devcfg.Node) string {
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(n.Line)
		b.WriteByte(' ')
		b.WriteString(blockText(n.Children))
	}
	return b.String()
}
