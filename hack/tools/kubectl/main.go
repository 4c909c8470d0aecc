// Command kubectl is the real kubectl, built from k8s.io/kubectl at the
// version kapi targets, so that end-to-end tests drive kapi with the same
// client users have. It lives in its own module to keep kubectl's
// dependencies out of kapi's.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		// Print the error the way kubectl does, then exit non-zero.
		util.CheckErr(err)
		os.Exit(1)
	}
}
