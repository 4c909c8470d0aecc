package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readyzNotYet are kube-apiserver 1.37.1's readiness checks kapi does not
// have, and why. The list may only shrink.
var readyzNotYet = map[string]string{
	"etcd-readiness": "kapi's etcd check serves /readyz too; no separate readiness timeout yet",
	"informer-sync":  "the shared informers' sync is the generic-apiserver-start-informers hook",
	"poststarthook/start-apiserver-admission-initializer": "admission plugins take the shared informers; nothing else to start",
	"poststarthook/storage-readiness":                     "watch caches are made on first use, not at start",
	"poststarthook/peer-endpoint-reconciler-controller":   "no peer proxy (UnknownVersionInteroperabilityProxy)",
}

// readyzKapiOnly are kapi's checks kube-apiserver does not have: the
// controllers kube-controller-manager runs upstream.
var readyzKapiOnly = map[string]string{
	"poststarthook/start-clusterrole-aggregation-controller":          "kube-controller-manager's clusterrole-aggregation",
	"poststarthook/start-validatingadmissionpolicy-status-controller": "kube-controller-manager's validatingadmissionpolicy-status",
}

// TestReadyzChecksAreKubeAPIServers compares the checks /readyz?verbose
// lists with kube-apiserver 1.37.1's, started as the oracle was (a front
// proxy's client certificate, so the aggregator's reload hook is there):
// every check of the servers of issue 12 (the aggregator's controllers,
// autoregistration, priority and fairness, the object counts) under
// kube's names, and nothing else than the differences written above.
func TestReadyzChecksAreKubeAPIServers(t *testing.T) {
	ref := referenceFile(t, "health/readyz-verbose.txt")
	e := startAggregatorE2E(t, false)
	body, err := e.kube.CoreV1().RESTClient().Get().AbsPath("/readyz").Param("verbose", "true").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := checkNames(string(ref))
	want = slices.DeleteFunc(want, func(n string) bool { _, later := readyzNotYet[n]; return later })
	got := checkNames(string(body))
	got = slices.DeleteFunc(got, func(n string) bool { _, own := readyzKapiOnly[n]; return own })
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("/readyz?verbose checks (-kube-apiserver +kapi):\n%s", diff)
	}
}

// checkNames are the names of the "[+]name ok" lines of a verbose health
// answer.
func checkNames(verbose string) []string {
	var names []string
	for _, line := range strings.Split(verbose, "\n") {
		if name, ok := strings.CutPrefix(line, "[+]"); ok {
			names = append(names, strings.TrimSuffix(name, " ok"))
		}
	}
	return names
}
