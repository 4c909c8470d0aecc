package app

import "testing"

// kube-apiserver 1.37.1 on a host named "vm" holds the identity lease
// kube-system/apiserver-wlv32tlttr4jl3gtroqexyxapa (read from the oracle).
func TestServerIdentityIsKubeAPIServers(t *testing.T) {
	if got, want := identityOf("vm"), "apiserver-wlv32tlttr4jl3gtroqexyxapa"; got != want {
		t.Errorf("identity on host vm: %s, want %s", got, want)
	}
}
