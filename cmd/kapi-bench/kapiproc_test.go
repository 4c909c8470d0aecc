package main

import "testing"

func TestFailedChecks(t *testing.T) {
	body := "[+]ping ok\n[+]etcd ok\n[-]poststarthook/bootstrap-controller failed: reason withheld\n[-]informer-sync failed: not synced\nreadyz check failed\n"
	want := "[-]poststarthook/bootstrap-controller failed: reason withheld; [-]informer-sync failed: not synced"
	if got := failedChecks(body); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := failedChecks("not ready\n"); got != "not ready" {
		t.Errorf("got %q", got)
	}
}
