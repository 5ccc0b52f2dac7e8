// Command rocefab keeps RoCEv2 fabrics lossless and compliant.
package main

import (
	"os"

	"github.com/rocefab/rocefab/agent/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
