package cmd

import (
	"bytes"
	"strings"
	"testing"
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
		{[]string{"--service-cluster-ip-range=10.0.0.0/33"}, "--service-cluster-ip-range"},
		{[]string{"--service-node-port-range=32000-30000"}, "--service-node-port-range"},
		{[]string{"--max-requests-inflight=-1"}, "--max-requests-inflight"},
		{[]string{"--request-timeout=-1s"}, "--request-timeout"},
		{[]string{"--etcd-compaction-interval=-1m"}, "--etcd-compaction-interval"},
		{[]string{"--etcd-servers=127.0.0.1:2379"}, "--etcd-servers"},
		{[]string{"--authorization-mode=Bogus"}, "--authorization-mode"},
		{[]string{"--authorization-mode=RBAC"}, "--authorization-mode"},
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
