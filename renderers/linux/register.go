package linux

import (
	"regexp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
)

// Register adds the linux platform.
func Register(r *renderers.Registry) error {
	return r.Register(renderers.Entry{
		Name: "linux",
		New:  New,
		Attrs: renderers.Attributes{
			Platform: devcfg.Platform{
				Shape:       devcfg.ShapePaths,
				Commit:      devcfg.CommitNetlink,
				ShowRunning: ShowRunning,
				Syntax:      devcfg.Syntax{Style: devcfg.StylePaths},
				Parse:       Parse,
			},
			// Only netlink: nothing pushes these paths over SSH yet, so lint
			// refuses ssh rather than promising it.
			Transports: []string{"netlink"},
			MTUCeiling: MTUCeiling,
			// A Linux interface name: at most 15 bytes, no '/', ':' or space.
			PortPattern: regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$`),
			PortExample: "swp1",
			Classify: renderers.ClassifyByKeywords(map[string]string{
				"/mtu":       "an MTU change resets the interface queue and drops frames in flight",
				"forwarding": "a forwarding change starts or stops routing through the device",
				"ip_forward": "a forwarding change starts or stops routing through the device",
			}),
			Encode:  Encode,
			FileExt: ".txt",
			Sources: Sources,
		},
	})
}
