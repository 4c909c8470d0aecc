package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/kapi-dev/kapi/pkg/app"
)

// NewCommand returns the kapi command.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "kapi",
		Short: "kapi is a Kubernetes API server",
		Long: `kapi serves the Kubernetes API: it validates and configures data for the
api objects which include pods, services, deployments, and others, on embedded
etcd by default or on an external etcd cluster with --etcd-servers.

With no flags it creates --data-dir (./kapi-data), generates a CA, serving and
admin certificates and admin.kubeconfig there, and serves https://127.0.0.1:6443.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return Run(ctx, o, newLogger(o.Verbosity))
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// Run builds kapi from o and serves until ctx is done. It is the
// binary's: it routes klog, the global logger of client-go, to log, which
// a library must not do.
func Run(ctx context.Context, o *Options, log *slog.Logger) error {
	cfg, err := o.Complete(log)
	if err != nil {
		return err
	}
	klog.SetSlogLogger(log)
	s, err := app.New(ctx, cfg)
	if err != nil {
		return err
	}
	log.Info("kapi is serving", "url", s.URL, "data-dir", o.DataDir)
	fmt.Fprintf(os.Stderr, "\nkapi is serving on %s. To use it:\n\n    kubectl --kubeconfig %s get namespaces\n\n", s.URL, s.Kubeconfig)
	return s.Run(ctx)
}

func newLogger(v int) *slog.Logger {
	level := slog.LevelInfo
	if v >= 4 {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}
