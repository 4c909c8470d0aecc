// Command kapi is a Kubernetes API server.
package main

import (
	"fmt"
	"os"

	"github.com/kapi-dev/kapi/pkg/cmd"
)

func main() {
	if err := cmd.NewCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
