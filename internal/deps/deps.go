// Package deps pins the project's third-party modules in go.mod while the
// packages that use them are written in parallel. Remove once all are used.
package deps

import (
	_ "github.com/creack/pty"
	_ "github.com/gliderlabs/ssh"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/gofrs/flock"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/mattn/go-isatty"
	_ "github.com/openconfig/gnmi/proto/gnmi"
	_ "github.com/openconfig/gnmi/proto/gnmi_ext"
	_ "github.com/openconfig/goyang/pkg/yang"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/testutil"
	_ "github.com/prometheus/common/expfmt"
	_ "github.com/safchain/ethtool"
	_ "github.com/scrapli/scrapligo/driver/network"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
	_ "github.com/vishvananda/netlink"
	_ "github.com/vishvananda/netns"
	_ "go.etcd.io/bbolt"
	_ "go.uber.org/zap"
	_ "golang.org/x/crypto/ssh"
	_ "golang.org/x/net/ipv4"
	_ "golang.org/x/net/ipv6"
	_ "golang.org/x/sys/unix"
	_ "google.golang.org/grpc"
	_ "gopkg.in/yaml.v3"
)
