package cmd

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/pkg/app"
)

// TestBadFlagValuesNameTheFlag: a start with a bad flag value stops with a
// message naming the flag, before anything is created.
func TestBadFlagValuesNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--secure-port=0"}, "--secure-port"},
		{[]string{"--secure-port=70000"}, "--secure-port"},
		{[]string{"--secure-port=abc"}, "--secure-port"},
		{[]string{"--service-cluster-ip-range=10.0.0.0/33"}, "service-cluster-ip-range"},
		{[]string{"--service-node-port-range=32000-30000"}, "--service-node-port-range"},
		{[]string{"--max-requests-inflight=-1"}, "--max-requests-inflight"},
		{[]string{"--max-requests-inflight=0", "--max-mutating-requests-inflight=0"}, "--max-requests-inflight"},
		{[]string{"--request-timeout=-1s"}, "--request-timeout"},
		{[]string{"--etcd-compaction-interval=-1m"}, "--etcd-compaction-interval"},
		{[]string{"--etcd-servers=127.0.0.1:2379"}, "--etcd-servers"},
		{[]string{"--encryption-provider-config-automatic-reload"}, "--encryption-provider-config-automatic-reload"},
		{[]string{"--default-watch-cache-size=-1"}, "--default-watch-cache-size"},
		{[]string{"--watch-cache-sizes=pods"}, "--watch-cache-sizes"},
		{[]string{"--watch-cache-sizes=pods#many"}, "--watch-cache-sizes"},
		{[]string{"--watch-cache-sizes=pods#-1"}, "--watch-cache-sizes"},
		{[]string{"--watch-cache=maybe"}, "--watch-cache"},
		{[]string{"--authorization-mode=Bogus"}, "--authorization-mode"},
		{[]string{"--authorization-mode=RBAC,RBAC"}, "--authorization-mode"},
		{[]string{"--runtime-config=apps/v1=maybe"}, "--runtime-config"},
		{[]string{"--tls-cert-file=/x.crt"}, "--tls-cert-file"},
		{[]string{"--bind-address=not-an-ip"}, "--bind-address"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			cmd := NewCommand()
			cmd.SetArgs(append(tc.args, "--data-dir="+dir+"/data"))
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			err := cmd.Execute()
			if err == nil {
				t.Fatal("the start did not fail")
			}
			if !strings.Contains(err.Error(), tc.flag) {
				t.Errorf("error %q does not name %s", err, tc.flag)
			}
		})
	}
}

// TestHelpListsKubeAPIServerFlags: envtest and kube-apiserver users find
// the flags they pass.
func TestHelpListsKubeAPIServerFlags(t *testing.T) {
	cmd := NewCommand()
	cmd.SetArgs([]string{"--help"})
	var out bytes.Buffer
	cmd.SetOut(&out)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{
		"--secure-port", "--bind-address", "--advertise-address", "--tls-cert-file", "--tls-private-key-file",
		"--cert-dir", "--client-ca-file", "--token-auth-file", "--authorization-mode", "--anonymous-auth",
		"--service-cluster-ip-range", "--service-node-port-range", "--max-requests-inflight",
		"--max-mutating-requests-inflight", "--request-timeout", "--min-request-timeout", "--runtime-config",
		"--shutdown-delay-duration", "--profiling", "--etcd-servers", "--etcd-cafile", "--etcd-certfile",
		"--etcd-keyfile", "--etcd-prefix", "--allow-privileged", "--disable-admission-plugins",
		"--service-account-issuer", "--service-account-key-file", "--service-account-signing-key-file",
		"--watch-cache", "--watch-cache-sizes", "--default-watch-cache-size", "--etcd-compaction-interval",
	} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("--help does not list %s", flag)
		}
	}
}

// TestEnvtestFlagsAreAccepted: the flags controller-runtime's envtest
// passes parse.
func TestEnvtestFlagsAreAccepted(t *testing.T) {
	o := NewOptions()
	fs := NewCommand().Flags()
	_ = fs
	cmd := NewCommand()
	err := cmd.Flags().Parse([]string{
		"--advertise-address=127.0.0.1", "--allow-privileged=true", "--authorization-mode=AlwaysAllow",
		"--cert-dir=/tmp/x", "--disable-admission-plugins=ServiceAccount", "--etcd-servers=http://127.0.0.1:2379",
		"--secure-port=6443", "--service-account-issuer=https://127.0.0.1:6443/",
		"--service-account-key-file=/tmp/sa.pub", "--service-account-signing-key-file=/tmp/sa.key",
		"--service-cluster-ip-range=10.0.0.0/24", "--client-ca-file=/tmp/ca.crt",
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = o
}

// TestWatchCacheSizes: kube-apiserver's defaults (no cache for events),
// overridden per resource by --watch-cache-sizes, with 0 meaning none.
func TestWatchCacheSizes(t *testing.T) {
	o := NewOptions()
	fs := pflag.NewFlagSet("kapi", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--watch-cache-sizes=pods#0,deployments.apps#500,events#100", "--default-watch-cache-size=50"}); err != nil {
		t.Fatal(err)
	}
	cfg := o.WatchCacheConfig()
	if !cfg.Enabled || cfg.DefaultSize != 50 {
		t.Fatalf("config %+v: want enabled with default size 50", cfg)
	}
	for res, want := range map[schema.GroupResource]int{
		{Resource: "pods"}:                           0,
		{Group: "apps", Resource: "deployments"}:     500,
		{Resource: "events"}:                         100,
		{Group: "events.k8s.io", Resource: "events"}: 0,
	} {
		if got, ok := cfg.Sizes[res]; !ok || got != want {
			t.Errorf("size of %s = %d (set: %v), want %d", res, got, ok, want)
		}
	}
}

// The binary started without flags is the server app.NewConfig describes:
// the defaults are decided once, in pkg/app.
func TestNoFlagsCompleteToTheDefaultConfig(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	got, err := NewOptions().Complete(log)
	if err != nil {
		t.Fatal(err)
	}
	want := app.NewConfig()
	want.DataDir, want.Logger = "kapi-data", log
	if !reflect.DeepEqual(got, want) {
		t.Errorf("config of no flags\n%+v\nwant\n%+v", got, want)
	}
}
