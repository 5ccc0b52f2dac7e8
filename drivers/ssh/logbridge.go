package ssh

import (
	"fmt"
	"strings"

	"github.com/scrapli/scrapligo/logging"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// scrapliLogger routes scrapligo's log lines to zap at debug level. Any
// occurrence of a secret is replaced, as a second line of defence: scrapligo
// already hides what it types at password prompts.
func scrapliLogger(log *zap.Logger, secrets ...string) (*logging.Instance, error) {
	var replace []string
	for _, s := range secrets {
		if s != "" {
			replace = append(replace, s, "<redacted>")
		}
	}
	redact := strings.NewReplacer(replace...)
	if len(replace) == 0 {
		redact = strings.NewReplacer()
	}
	if !log.Core().Enabled(zapcore.DebugLevel) {
		return logging.NewInstance()
	}
	return logging.NewInstance(
		logging.WithLevel(logging.Debug),
		logging.WithFormatter(func(level, msg string) string { return level + ": " + msg }),
		logging.WithLogger(func(args ...interface{}) {
			log.Debug(redact.Replace(fmt.Sprint(args...)))
		}),
	)
}
