package devcfg

import "strings"

// Action is what a change does.
type Action int

const (
	Add Action = iota + 1
	Remove
	Modify
)

func (a Action) String() string {
	switch a {
	case Add:
		return "add"
	case Remove:
		return "remove"
	case Modify:
		return "modify"
	}
	return "unknown"
}

// Symbol is the plan's one-character marker.
func (a Action) Symbol() string {
	switch a {
	case Add:
		return "+"
	case Remove:
		return "-"
	case Modify:
		return "~"
	}
	return "?"
}

// MarshalText makes actions readable in JSON plans.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads an action back from a saved plan.
func (a *Action) UnmarshalText(b []byte) error {
	switch string(b) {
	case "add":
		*a = Add
	case "remove":
		*a = Remove
	case "modify":
		*a = Modify
	default:
		*a = 0
	}
	return nil
}

// Disruption classes a change by its effect on traffic.
type Disruption int

const (
	Hitless Disruption = iota
	TrafficAffecting
)

func (d Disruption) String() string {
	if d == TrafficAffecting {
		return "traffic-affecting"
	}
	return "hitless"
}

// MarshalText makes disruption classes readable in JSON plans.
func (d Disruption) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a disruption class back from a saved plan.
func (d *Disruption) UnmarshalText(b []byte) error {
	if string(b) == "traffic-affecting" {
		*d = TrafficAffecting
	} else {
		*d = Hitless
	}
	return nil
}

// Effect classes a difference by what it does to the lossless class while
// it stands: breaks (PFC, classification of the RoCE DSCP, the no-drop
// queue, MTU, buffers: RoCE traffic is dropped or paused wrongly), degrades
// (ECN marking, CNP handling, the PFC watchdog, scheduling: still lossless,
// but congestion control or recovery suffer) or neutral (nothing the
// lossless class depends on). Empty means not classed.
type Effect string

const (
	EffectNeutral  Effect = "neutral"
	EffectDegrades Effect = "degrades"
	EffectBreaks   Effect = "breaks"
)

// Rank orders effects: breaks 2, degrades 1, neutral and unclassed 0.
func (e Effect) Rank() int {
	switch e {
	case EffectBreaks:
		return 2
	case EffectDegrades:
		return 1
	}
	return 0
}

// Change is one difference between desired and running configuration.
type Change struct {
	Action Action `json:"action"`
	// Parents are the enclosing CLI lines (trees only).
	Parents []string `json:"parents,omitempty"`
	// Path is the line key (trees) or the path (paths).
	Path string `json:"path"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
	// Block holds the children of an added or removed tree line.
	Block []*Node `json:"block,omitempty"`

	Disruption Disruption `json:"disruption"`
	// Reason says why a change is traffic-affecting.
	Reason string `json:"reason,omitempty"`
	// Effect is what the difference does to the lossless class.
	Effect Effect `json:"effect,omitempty"`
}

// Where is the full location, for messages: parents and path joined.
func (c Change) Where() string {
	if len(c.Parents) == 0 {
		return c.Path
	}
	return strings.Join(c.Parents, " > ") + " > " + c.Path
}
