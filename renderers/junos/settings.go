package junos

import (
	"fmt"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// Settings are the junos: section of a switch or group. Junos takes ECN
// thresholds only as a percentage of the queue buffer, so it needs the
// buffer size or explicit percentages.
type Settings struct {
	intent.Src
	QueueBufferSize *intent.Bytes   `yaml:"queueBufferSize"`
	FillLevelMin    *intent.Percent `yaml:"fillLevelMin"`
	FillLevelMax    *intent.Percent `yaml:"fillLevelMax"`
}

// SettingsType is the section as registered: lint decodes and checks it,
// the intent reference documents its fields.
var SettingsType = renderers.Settings{New: func() any { return new(Settings) }}

// decodeSettings decodes the switch's junos section, the zero Settings
// when it has none. A value that does not decode stays unset, as in the
// rest of the intent; the diagnostics say why.
func decodeSettings(sw *intent.Switch) (Settings, intent.Diagnostics) {
	var s Settings
	sec, ok := sw.Section("junos")
	if !ok {
		return s, nil
	}
	diags := sec.Decode(&s)
	return s, diags
}

// settingsOf is the switch's junos section, or an error naming what in it
// does not decode (lint reports that at validate time).
func settingsOf(sw *intent.Switch) (Settings, error) {
	s, diags := decodeSettings(sw)
	if err := diags.Err(); err != nil {
		return s, fmt.Errorf("switch %s: %w", sw.Name, err)
	}
	return s, nil
}

// needsQueueBuffer reports whether ECN thresholds on sw lack the queue
// buffer size, or both fill levels, that percentages need.
func needsQueueBuffer(sw *intent.Switch) bool {
	s, _ := decodeSettings(sw)
	return s.QueueBufferSize == nil && (s.FillLevelMin == nil || s.FillLevelMax == nil)
}
