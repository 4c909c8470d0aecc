// Command wardle runs the example extension API server of package wardle:
//
//	wardle --secure-port 8443 --bind-address 127.0.0.1 \
//	  --tls-cert-file serving.crt --tls-private-key-file serving.key \
//	  --kubeconfig k --authentication-kubeconfig k --authorization-kubeconfig k
//
// where k is a kubeconfig for the cluster whose aggregator proxies to it.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"context"
	"github.com/spf13/pflag"

	"github.com/kapi-dev/kapi/test/aggregation/wardle"
)

func main() {
	o := wardle.NewOptions()
	fs := pflag.NewFlagSet("wardle", pflag.ExitOnError)
	o.AddFlags(fs)
	_ = fs.Parse(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := o.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
